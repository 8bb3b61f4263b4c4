/**
 * Authentication as kube-apiserver does it: a verified client certificate, else a bearer
 * token (static token file, bootstrap tokens, service-account JWTs), else anonymous. A
 * credential that is presented but not accepted is a 401, never anonymous. Every
 * authenticated user is also in `system:authenticated`; anonymous is `system:anonymous` in
 * `system:unauthenticated`.
 *
 * Token results are cached for 10 s after a success, as kube-apiserver's token cache does,
 * so a request with a service-account token does not read its Secret or ServiceAccount each
 * time (a deleted token keeps working for at most that long).
 */
import { createHash } from "node:crypto";
import type { UserInfo } from "../context.ts";

export const AUTHENTICATED = "system:authenticated";
export const UNAUTHENTICATED = "system:unauthenticated";
export const ANONYMOUS = "system:anonymous";

/** What authentication sees of a request. */
export interface AuthRequest {
  headers: Record<string, string | undefined>;
  /**
   * The client certificate's subject when one was presented; `verified` says whether it
   * chains to the client CA (and is in date, and meant for client auth).
   */
  clientCertificate?: {
    commonName: string;
    organizations: string[];
    verified: boolean;
    error?: string;
    /** Lower-case hex SHA-256 of the certificate's DER (the credential id kube-apiserver records). */
    sha256?: string;
  };
}

/** A token authenticator's answer: a user, a refusal (401), or "not mine" (undefined). */
export type TokenResult = { user: UserInfo; expiresAt?: number } | { error: string } | undefined;

export interface TokenAuthenticator {
  name: string;
  authenticate(token: string): TokenResult | Promise<TokenResult>;
}

export type AuthOutcome = { user: UserInfo } | { error: string };

export interface AuthenticatorOptions {
  /** x509 client certificates are accepted (the server was given a client CA). */
  clientCertificates: boolean;
  tokens: readonly TokenAuthenticator[];
  /** `--anonymous-auth` (default true). */
  anonymous: boolean;
  now?: () => number;
}

const TOKEN_CACHE_TTL_MS = 10_000;
const TOKEN_CACHE_MAX = 10_000;

export interface Authenticator {
  authenticate(req: AuthRequest): Promise<AuthOutcome>;
}

/** Adds `system:authenticated` to a user's groups (once). */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(AUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED] };
}

export const ANONYMOUS_USER: UserInfo = { name: ANONYMOUS, groups: [UNAUTHENTICATED] };

/** The bearer token of an `Authorization` header, when it holds one. */
export function bearerToken(headers: Record<string, string | undefined>): string | undefined {
  const header = headers.authorization;
  if (!header) return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

export function createAuthenticator(opts: AuthenticatorOptions): Authenticator {
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { user: UserInfo; until: number }>();

  const fromToken = async (token: string): Promise<AuthOutcome> => {
    const key = createHash("sha256").update(token).digest("base64");
    const hit = cache.get(key);
    if (hit && hit.until > now()) return { user: hit.user };
    if (hit) cache.delete(key);
    const errors: string[] = [];
    for (const a of opts.tokens) {
      const r = await a.authenticate(token);
      if (r === undefined) continue;
      if ("error" in r) {
        errors.push(r.error);
        continue;
      }
      const user = withAuthenticatedGroup(r.user);
      if (cache.size >= TOKEN_CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(key, { user, until: Math.min(now() + TOKEN_CACHE_TTL_MS, r.expiresAt ?? Infinity) });
      return { user };
    }
    return { error: errors.length > 0 ? errors.join("; ") : "invalid bearer token" };
  };

  return {
    async authenticate(req) {
      const cert = req.clientCertificate;
      if (cert && opts.clientCertificates && cert.verified && cert.commonName !== "") {
        const user: UserInfo = { name: cert.commonName, groups: [...cert.organizations] };
        if (cert.sha256)
          user.extra = { "authentication.kubernetes.io/credential-id": [`X509SHA256=${cert.sha256}`] };
        return { user: withAuthenticatedGroup(user) };
      }
      const token = bearerToken(req.headers);
      if (token !== undefined) return fromToken(token);
      // A certificate that does not verify is a refusal; a verified one without a name is no
      // credential at all (the request goes on as anonymous), as kube-apiserver has it.
      if (cert && opts.clientCertificates && !cert.verified) {
        return { error: `x509: ${cert.error ?? "certificate signed by unknown authority"}` };
      }
      if (opts.anonymous) return { user: ANONYMOUS_USER };
      return { error: "no credentials" };
    },
  };
}
