/**
 * Bootstrap tokens (`<id>.<secret>`, kept in Secrets `kube-system/bootstrap-token-<id>` of
 * type `bootstrap.kubernetes.io/token`): their names, the Secret's data keys, and reading a
 * Secret back into what it grants. Shared by the authenticator, the bootstrap signer, the
 * token cleaner and `karmadactl token`.
 */
import { parseRfc3339 } from "../machinery/timestamps.ts";
import { isObject, type StoredObject } from "./meta.ts";

export const BOOTSTRAP_TOKEN_NAMESPACE = "kube-system";
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = "bootstrap-token-";
export const BOOTSTRAP_TOKEN_TYPE = "bootstrap.kubernetes.io/token";
export const BOOTSTRAP_USER_PREFIX = "system:bootstrap:";
export const BOOTSTRAPPERS_GROUP = "system:bootstrappers";
/** The extra group `karmadactl token create` gives its tokens by default. */
export const KARMADA_BOOTSTRAP_GROUP = "system:bootstrappers:karmada:default-cluster-token";

export const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const TOKEN_ID_PATTERN = /^[a-z0-9]{6}$/;
/** What an extra group must look like. */
export const BOOTSTRAP_GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
/** Usages a token can have (`usage-bootstrap-<usage>` keys). */
export const BOOTSTRAP_USAGES = ["authentication", "signing"] as const;

export const CLUSTER_INFO_NAMESPACE = "kube-public";
export const CLUSTER_INFO_NAME = "cluster-info";
export const JWS_KEY_PREFIX = "jws-kubeconfig-";

export function bootstrapSecretName(tokenId: string): string {
  return `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${tokenId}`;
}

/** What a bootstrap-token Secret says, decoded. */
export interface BootstrapToken {
  id: string;
  secret: string;
  /** ms since the epoch; undefined: never expires. */
  expiration?: number;
  /** The expiration value could not be read (the token is then treated as expired). */
  badExpiration?: boolean;
  usages: string[];
  extraGroups: string[];
  description?: string;
}

function decoded(data: Record<string, unknown>, key: string): string | undefined {
  const v = data[key];
  return typeof v === "string" ? Buffer.from(v, "base64").toString("utf8") : undefined;
}

/**
 * A bootstrap-token Secret's `expiration`, read as kube's bootstrap helpers read it: none when
 * absent or empty, `badExpiration` when it is not RFC 3339 (then it counts as expired).
 */
export function secretExpiration(secret: StoredObject): Pick<BootstrapToken, "expiration" | "badExpiration"> {
  const text = decoded(isObject(secret.data) ? secret.data : {}, "expiration");
  if (!text) return {};
  const at = parseRfc3339(text);
  return at === undefined ? { badExpiration: true } : { expiration: at };
}

/** Reads a bootstrap-token Secret; undefined when it is not one (wrong type or name). */
export function readBootstrapToken(secret: StoredObject): BootstrapToken | undefined {
  if (secret.type !== BOOTSTRAP_TOKEN_TYPE) return undefined;
  const data = isObject(secret.data) ? secret.data : {};
  const id = decoded(data, "token-id");
  const tokenSecret = decoded(data, "token-secret");
  if (!id || !tokenSecret || secret.metadata.name !== bootstrapSecretName(id)) return undefined;
  const token: BootstrapToken = {
    id,
    secret: tokenSecret,
    usages: BOOTSTRAP_USAGES.filter((u) => decoded(data, `usage-bootstrap-${u}`) === "true"),
    // Split as kube-apiserver does, untrimmed: a stray space or an empty entry makes the group invalid.
    extraGroups: decoded(data, "auth-extra-groups") ? decoded(data, "auth-extra-groups")!.split(",") : [],
  };
  Object.assign(token, secretExpiration(secret));
  const description = decoded(data, "description");
  if (description) token.description = description;
  return token;
}

/** Whether a token has expired (an unreadable expiration counts as expired). */
export function bootstrapTokenExpired(
  token: Pick<BootstrapToken, "expiration" | "badExpiration">,
  now: number,
): boolean {
  return token.badExpiration === true || (token.expiration !== undefined && token.expiration <= now);
}
