/**
 * Service-account tokens as kube-apiserver issues and checks them.
 *
 * - Bound tokens (TokenRequest, `kubectl create token`): issuer `--service-account-issuer`,
 *   audiences, `exp`/`iat`/`nbf`, `jti`, and a `kubernetes.io` claim naming the namespace,
 *   the service account (name, uid) and, when bound, a Secret or Pod. Valid while the
 *   account (and the bound object) exists with the same uid.
 * - Legacy tokens (Secrets of type `kubernetes.io/service-account-token`): issuer
 *   `kubernetes/serviceaccount`, flat `kubernetes.io/serviceaccount/*` claims, no expiry;
 *   valid while the Secret still holds this very token and the account's uid matches.
 *
 * The user is `system:serviceaccount:<ns>:<name>` in groups `system:serviceaccounts` and
 * `system:serviceaccounts:<ns>`.
 */
import { randomUUID } from "node:crypto";
import { isObject, type StoredObject } from "../../api/meta.ts";
import type { JwtSigner, JwtVerifier } from "../../pki/jws.ts";
import type { UserInfo } from "../context.ts";
import type { TokenAuthenticator, TokenResult } from "./authenticator.ts";

export const LEGACY_ISSUER = "kubernetes/serviceaccount";
export const SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";
const PREFIX = "system:serviceaccount:";
/** Clock skew tolerated on `exp` and `nbf`. */
const LEEWAY_S = 60;
const CREDENTIAL_ID = "authentication.kubernetes.io/credential-id";
const POD_NAME = "authentication.kubernetes.io/pod-name";
const POD_UID = "authentication.kubernetes.io/pod-uid";

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${PREFIX}${namespace}:${name}`;
}

/** `system:serviceaccount:<ns>:<name>` → its parts, else undefined. */
export function parseServiceAccountUsername(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(PREFIX)) return undefined;
  const [namespace, name, ...rest] = user.slice(PREFIX.length).split(":");
  if (!namespace || !name || rest.length > 0) return undefined;
  return { namespace, name };
}

export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/** The objects a token's validity depends on, read from the store. */
export interface ServiceAccountLookup {
  get(
    resource: "serviceaccounts" | "secrets" | "pods",
    namespace: string,
    name: string,
  ): Promise<StoredObject | undefined>;
}

export interface ServiceAccountTokenSettings {
  /** `--service-account-issuer`: the first issues tokens; all are accepted. */
  issuers: readonly string[];
  /** `--api-audiences` (default: the issuers). A bound token must name one. */
  audiences: readonly string[];
  /** Signs tokens with `--service-account-signing-key-file`; without it no token is issued. */
  signer?: JwtSigner;
  /** Checks tokens with `--service-account-key-file` (and the signing key's public half). */
  verifier: JwtVerifier;
  /** `--service-account-max-token-expiration` in seconds (0: none). */
  maxExpirationSeconds: number;
}

export interface BoundTokenRequest {
  namespace: string;
  serviceAccount: { name: string; uid: string };
  audiences: readonly string[];
  expirationSeconds: number;
  boundObject?: { kind: "Pod" | "Secret"; name: string; uid: string };
  now: number;
}

/** Mints a bound token (TokenRequest); returns it with its expiry (ms since the epoch). */
export function issueBoundToken(
  settings: ServiceAccountTokenSettings & { signer: JwtSigner },
  req: BoundTokenRequest,
): { token: string; expiresAt: number } {
  const iat = Math.floor(req.now / 1000);
  const exp = iat + req.expirationSeconds;
  const k8s: Record<string, unknown> = {
    namespace: req.namespace,
    serviceaccount: { name: req.serviceAccount.name, uid: req.serviceAccount.uid },
  };
  if (req.boundObject) {
    k8s[req.boundObject.kind === "Pod" ? "pod" : "secret"] = {
      name: req.boundObject.name,
      uid: req.boundObject.uid,
    };
  }
  const token = settings.signer.sign({
    aud: [...req.audiences],
    exp,
    iat,
    iss: settings.issuers[0],
    jti: randomUUID(),
    "kubernetes.io": k8s,
    nbf: iat,
    sub: serviceAccountUsername(req.namespace, req.serviceAccount.name),
  });
  return { token, expiresAt: exp * 1000 };
}

/** Mints the token of a `kubernetes.io/service-account-token` Secret. */
export function issueLegacyToken(
  signer: JwtSigner,
  secret: { namespace: string; name: string },
  serviceAccount: { name: string; uid: string },
): string {
  return signer.sign({
    iss: LEGACY_ISSUER,
    "kubernetes.io/serviceaccount/namespace": secret.namespace,
    "kubernetes.io/serviceaccount/secret.name": secret.name,
    "kubernetes.io/serviceaccount/service-account.name": serviceAccount.name,
    "kubernetes.io/serviceaccount/service-account.uid": serviceAccount.uid,
    sub: serviceAccountUsername(secret.namespace, serviceAccount.name),
  });
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** Go's `%q` of a []string, as kube-apiserver's messages print audiences. */
function goQuoted(list: readonly string[]): string {
  return `[${list.map((x) => JSON.stringify(x)).join(" ")}]`;
}

/** Why a token's service account no longer backs it, in kube-apiserver's words. */
function accountProblem(
  account: StoredObject | undefined,
  namespace: string,
  name: string,
  uid: string,
): string | undefined {
  if (!account || account.metadata.deletionTimestamp)
    return `service account ${namespace}/${name} has been deleted`;
  if (account.metadata.uid !== uid)
    return `service account UID (${account.metadata.uid}) does not match claim (${uid})`;
  return undefined;
}

function userOf(namespace: string, name: string, uid: string, extra?: Record<string, string[]>): UserInfo {
  const user: UserInfo = {
    name: serviceAccountUsername(namespace, name),
    uid,
    groups: serviceAccountGroups(namespace),
  };
  if (extra && Object.keys(extra).length > 0) user.extra = extra;
  return user;
}

function secretToken(secret: StoredObject): string | undefined {
  const data = isObject(secret.data) ? secret.data : {};
  return typeof data.token === "string" ? Buffer.from(data.token, "base64").toString("utf8") : undefined;
}

/** Why a bound token's time claims refuse it now (`t` in seconds), if they do. */
function timeProblem(claims: Record<string, unknown>, t: number): string | undefined {
  const exp = typeof claims.exp === "number" ? claims.exp : undefined;
  if (exp === undefined || exp + LEEWAY_S < t) return "service account token has expired";
  if (typeof claims.nbf === "number" && claims.nbf - LEEWAY_S > t) {
    return "service account token is not valid yet";
  }
  return undefined;
}

/**
 * The audiences a token is good for among those asked for, or why none: a token without an
 * `aud` claim (a legacy one) is for the API audiences.
 */
function tokenAudiences(
  claims: Record<string, unknown>,
  apiAudiences: readonly string[],
  requested: readonly string[],
): { audiences: string[] } | { error: string } {
  const aud = Array.isArray(claims.aud)
    ? claims.aud.map(String)
    : typeof claims.aud === "string"
      ? [claims.aud]
      : [];
  const own = aud.length > 0 ? aud : [...apiAudiences];
  const wanted = requested.length > 0 ? requested : apiAudiences;
  const audiences = own.filter((a) => wanted.includes(a));
  if (audiences.length === 0 && apiAudiences.length > 0) {
    return {
      error: `token audiences ${goQuoted(own)} is invalid for the target audiences ${goQuoted(wanted)}`,
    };
  }
  return { audiences };
}

export function serviceAccountAuthenticator(
  settings: Pick<ServiceAccountTokenSettings, "issuers" | "audiences" | "verifier">,
  lookup: ServiceAccountLookup,
  now: () => number = Date.now,
): TokenAuthenticator {
  const issuers = new Set(settings.issuers);

  const legacy = async (claims: Record<string, unknown>, token: string): Promise<TokenResult> => {
    const namespace = str(claims["kubernetes.io/serviceaccount/namespace"]);
    const secretName = str(claims["kubernetes.io/serviceaccount/secret.name"]);
    const name = str(claims["kubernetes.io/serviceaccount/service-account.name"]);
    const uid = str(claims["kubernetes.io/serviceaccount/service-account.uid"]);
    if (!namespace || !secretName || !name || !uid)
      return { error: "service account token is missing claims" };
    const secret = await lookup.get("secrets", namespace, secretName);
    if (!secret || secret.metadata.deletionTimestamp || secretToken(secret) !== token) {
      return { error: "service account token has been invalidated" };
    }
    const problem = accountProblem(
      await lookup.get("serviceaccounts", namespace, name),
      namespace,
      name,
      uid,
    );
    if (problem) return { error: problem };
    return { user: userOf(namespace, name, uid) };
  };

  const bound = async (claims: Record<string, unknown>): Promise<TokenResult> => {
    const invalid = timeProblem(claims, Math.floor(now() / 1000));
    if (invalid) return { error: invalid };
    const exp = claims.exp as number;
    const k8s = isObject(claims["kubernetes.io"]) ? claims["kubernetes.io"] : {};
    const sa = isObject(k8s.serviceaccount) ? k8s.serviceaccount : {};
    const namespace = str(k8s.namespace);
    const name = str(sa.name);
    const uid = str(sa.uid);
    if (!namespace || !name || !uid) return { error: "service account token is missing claims" };
    const account = await lookup.get("serviceaccounts", namespace, name);
    const problem = accountProblem(account, namespace, name, uid);
    if (problem) return { error: problem };
    const extra: Record<string, string[]> = {};
    if (typeof claims.jti === "string") extra[CREDENTIAL_ID] = [`JTI=${claims.jti}`];
    for (const [claim, resource] of [
      ["secret", "secrets"],
      ["pod", "pods"],
    ] as const) {
      const ref = isObject(k8s[claim]) ? (k8s[claim] as Record<string, unknown>) : undefined;
      if (!ref) continue;
      const obj = await lookup.get(resource, namespace, str(ref.name) ?? "");
      if (!obj || obj.metadata.uid !== ref.uid || obj.metadata.deletionTimestamp) {
        return { error: `the ${claim} the token is bound to has been deleted` };
      }
      if (claim === "pod") {
        extra[POD_NAME] = [String(ref.name)];
        extra[POD_UID] = [String(ref.uid)];
      }
    }
    return { user: userOf(namespace, name, uid, extra), expiresAt: exp * 1000 };
  };

  return {
    name: "service-account",
    audienceAware: true,
    async authenticate(token, requested = []) {
      if (token.split(".").length !== 3) return undefined;
      let iss: unknown;
      try {
        iss = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")).iss;
      } catch {
        return undefined;
      }
      // Tokens of other issuers are some other authenticator's business.
      if (iss !== LEGACY_ISSUER && !issuers.has(iss as string)) return undefined;
      const claims = settings.verifier.verify(token);
      if (!claims) return { error: "service account token's signature is invalid" };
      const audiences = tokenAudiences(claims, settings.audiences, requested);
      if ("error" in audiences) return audiences;
      const result = await (iss === LEGACY_ISSUER ? legacy(claims, token) : bound(claims));
      return result && "user" in result ? { ...result, audiences: audiences.audiences } : result;
    },
  };
}
