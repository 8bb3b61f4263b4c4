/**
 * `--enable-bootstrap-token-auth`: a bearer token `<id>.<secret>` is user
 * `system:bootstrap:<id>` in `system:bootstrappers` (plus the Secret's `auth-extra-groups`)
 * when Secret `kube-system/bootstrap-token-<id>` exists, is not being deleted, has the
 * bootstrap type, holds this secret, has not expired and allows authentication. Anything
 * else is no opinion, as kube-apiserver's authenticator gives (the request then ends in
 * `invalid bearer token` unless another authenticator takes the token). Groups are a sorted
 * set.
 */
import { timingSafeEqual } from "node:crypto";
import {
  BOOTSTRAP_GROUP_PATTERN,
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_USER_PREFIX,
  BOOTSTRAPPERS_GROUP,
  bootstrapSecretName,
  bootstrapTokenExpired,
  readBootstrapToken,
  TOKEN_PATTERN,
} from "../../api/bootstrap-token.ts";
import type { TokenAuthenticator } from "./authenticator.ts";
import type { ServiceAccountLookup } from "./service-account.ts";

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function bootstrapTokenAuthenticator(
  lookup: Pick<ServiceAccountLookup, "get">,
  now: () => number = Date.now,
): TokenAuthenticator {
  return {
    name: "bootstrap-token",
    async authenticate(token) {
      const m = TOKEN_PATTERN.exec(token);
      if (!m) return undefined;
      const [, id, secret] = m as unknown as [string, string, string];
      const stored = await lookup.get("secrets", BOOTSTRAP_TOKEN_NAMESPACE, bootstrapSecretName(id));
      if (!stored || stored.metadata.deletionTimestamp) return undefined;
      const parsed = readBootstrapToken(stored);
      if (!parsed || parsed.id !== id || !sameSecret(parsed.secret, secret)) return undefined;
      if (bootstrapTokenExpired(parsed, now()) || !parsed.usages.includes("authentication")) return undefined;
      if (parsed.extraGroups.some((g) => !BOOTSTRAP_GROUP_PATTERN.test(g))) return undefined;
      const groups = [...new Set([BOOTSTRAPPERS_GROUP, ...parsed.extraGroups])].sort();
      const result: { user: { name: string; groups: string[] }; expiresAt?: number } = {
        user: { name: `${BOOTSTRAP_USER_PREFIX}${id}`, groups },
      };
      if (parsed.expiration !== undefined) result.expiresAt = parsed.expiration;
      return result;
    },
  };
}
