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

/**
 * A token authenticator's answer: a user (with the audiences the token is good for, from an
 * audience-aware authenticator), a refusal (401), or "not mine" (undefined).
 */
export type TokenResult =
  | { user: UserInfo; expiresAt?: number; audiences?: string[] }
  | { error: string }
  | undefined;

export interface TokenAuthenticator {
  name: string;
  /**
   * Audience-aware authenticators (service-account tokens) check the token against the
   * audiences asked for themselves; for the others the chain does it (the API audiences
   * must meet the ones asked for).
   */
  audienceAware?: boolean;
  authenticate(token: string, audiences?: readonly string[]): TokenResult | Promise<TokenResult>;
}

export type AuthOutcome = { user: UserInfo; audiences?: string[] } | { error: string };

export interface AuthenticatorOptions {
  /** x509 client certificates are accepted (the server was given a client CA). */
  clientCertificates: boolean;
  tokens: readonly TokenAuthenticator[];
  /** `--anonymous-auth` (default true). */
  anonymous: boolean;
  /** `--api-audiences` (default: the service-account issuers); empty: audiences unchecked. */
  apiAudiences?: readonly string[];
  now?: () => number;
}

const TOKEN_CACHE_TTL_MS = 10_000;
const TOKEN_CACHE_MAX = 10_000;

export interface Authenticator {
  authenticate(req: AuthRequest): Promise<AuthOutcome>;
  /**
   * A bearer token alone, for TokenReview: checked against `audiences` (default: the API
   * audiences), the outcome carrying those it is good for.
   */
  authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthOutcome>;
}

/** Adds `system:authenticated` to a user's groups (once). */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(AUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED] };
}

export const ANONYMOUS_USER: UserInfo = { name: ANONYMOUS, groups: [UNAUTHENTICATED] };

/**
 * The bearer token of an `Authorization` header, read as kube-apiserver reads it: the word
 * after `Bearer ` (an empty one is a token that fails); undefined when the header is not a
 * bearer one.
 */
export function bearerToken(headers: Record<string, string | undefined>): string | undefined {
  const header = headers.authorization?.trim();
  if (!header) return undefined;
  const parts = header.split(" ");
  if (parts.length < 2 || parts[0]!.toLowerCase() !== "bearer") return undefined;
  return parts[1];
}

function intersect(a: readonly string[], b: readonly string[]): string[] {
  return a.filter((x) => b.includes(x));
}

export function createAuthenticator(opts: AuthenticatorOptions): Authenticator {
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { outcome: { user: UserInfo; audiences?: string[] }; until: number }>();

  const apiAudiences = opts.apiAudiences ?? [];
  const fromToken = async (token: string, requested = apiAudiences): Promise<AuthOutcome> => {
    const key = `${createHash("sha256").update(token).digest("base64")} ${requested.join(",")}`;
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.outcome;
    if (hit) cache.delete(key);
    const errors: string[] = [];
    for (const a of opts.tokens) {
      // An authenticator that knows nothing of audiences speaks for the API audiences only.
      const common =
        a.audienceAware || apiAudiences.length === 0 ? undefined : intersect(apiAudiences, requested);
      if (common?.length === 0) continue;
      const r = await a.authenticate(token, requested);
      if (r === undefined) continue;
      if ("error" in r) {
        errors.push(r.error);
        continue;
      }
      const audiences = common ?? r.audiences;
      const outcome = { user: withAuthenticatedGroup(r.user), ...(audiences?.length ? { audiences } : {}) };
      if (cache.size >= TOKEN_CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(key, { outcome, until: Math.min(now() + TOKEN_CACHE_TTL_MS, r.expiresAt ?? Infinity) });
      return outcome;
    }
    return { error: errors.length > 0 ? errors.join("; ") : "invalid bearer token" };
  };

  return {
    authenticateToken: (token, audiences) =>
      fromToken(token, audiences && audiences.length > 0 ? audiences : apiAudiences),
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
