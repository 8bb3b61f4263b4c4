/**
 * kube-controller-manager's bootstrap-token controllers, run next to the API server:
 * - bootstrapsigner: ConfigMap `kube-public/cluster-info` carries, for every valid token
 *   that may sign, `jws-kubeconfig-<token-id>`: the token's detached JWS over the
 *   ConfigMap's `kubeconfig`; entries of tokens gone, expired or no longer signing are
 *   removed. Without the ConfigMap (or its `kubeconfig`) it does nothing.
 * - tokencleaner: expired bootstrap-token Secrets are deleted.
 */
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_TYPE,
  bootstrapTokenExpired,
  CLUSTER_INFO_NAME,
  CLUSTER_INFO_NAMESPACE,
  JWS_KEY_PREFIX,
  readBootstrapToken,
  secretExpiration,
} from "../../api/bootstrap-token.ts";
import { isObject, type StoredObject } from "../../api/meta.ts";
import { deepEqual } from "../../machinery/equality.ts";
import { bootstrapSignature } from "../../pki/jws.ts";
import type { ReconcileContext, ReconcileResult } from "../../runtime/controller.ts";
import { requestContext, type ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { storageKey, storagePrefix } from "../resource-type.ts";
import { deleteObject } from "../verbs/delete.ts";
import { runStoreController, unlessGoneOrChanged } from "./follow.ts";
import { systemWriter } from "./writer.ts";

/** The `jws-kubeconfig-*` entries `cluster-info` should have, and when the earliest signing token expires. */
export function clusterInfoSignatures(
  kubeconfig: string,
  secrets: readonly StoredObject[],
  now: number,
): { signatures: Record<string, string>; nextExpiry?: number } {
  const signatures: Record<string, string> = {};
  let nextExpiry: number | undefined;
  for (const secret of secrets) {
    if (secret.metadata.deletionTimestamp) continue;
    const token = readBootstrapToken(secret);
    if (!token?.usages.includes("signing") || bootstrapTokenExpired(token, now)) continue;
    const key = `${JWS_KEY_PREFIX}${token.id}`;
    if (key in signatures) continue;
    signatures[key] = bootstrapSignature(kubeconfig, token.id, token.secret);
    if (token.expiration !== undefined) nextExpiry = Math.min(nextExpiry ?? Infinity, token.expiration);
  }
  return nextExpiry === undefined ? { signatures } : { signatures, nextExpiry };
}

export function startBootstrapTokenControllers(server: ServerContext): () => void {
  const secrets = server.registry.get("", "v1", "secrets")!;
  const configMaps = server.registry.get("", "v1", "configmaps")!;
  const writer = systemWriter(server, "bootstrap-signer");
  const secretPrefix = storagePrefix(secrets, BOOTSTRAP_TOKEN_NAMESPACE);
  const clusterInfoKey = storageKey(configMaps, CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME);

  const sign = async (): Promise<ReconcileResult> => {
    const { kv } = await server.store.get(clusterInfoKey);
    if (!kv) return undefined;
    const cm = decodeStored(configMaps, kv);
    const data = isObject(cm.data) ? (cm.data as Record<string, string>) : {};
    if (typeof data.kubeconfig !== "string" || data.kubeconfig === "") return undefined;
    const { kvs } = await server.store.list(secretPrefix);
    // Only token Secrets are decoded; readBootstrapToken checks the type for certain.
    const tokens = kvs
      .filter((s) => s.value.includes(BOOTSTRAP_TOKEN_TYPE))
      .map((s) => decodeStored(secrets, s));
    const now = server.clock.now();
    const { signatures, nextExpiry } = clusterInfoSignatures(data.kubeconfig, tokens, now);
    const current = Object.fromEntries(Object.entries(data).filter(([k]) => k.startsWith(JWS_KEY_PREFIX)));
    if (!deepEqual(current, signatures)) {
      await writer
        .change(configMaps, cm, (cur) => {
          const curData = isObject(cur.data) ? (cur.data as Record<string, string>) : {};
          const kept = Object.fromEntries(
            Object.entries(curData).filter(([k]) => !k.startsWith(JWS_KEY_PREFIX)),
          );
          return { ...cur, data: { ...kept, ...signatures } };
        })
        .catch(unlessGoneOrChanged);
    }
    return nextExpiry === undefined ? undefined : { requeueAfterMs: Math.max(0, nextExpiry - now) + 1000 };
  };

  const clean = async (_ctx: ReconcileContext, name: string): Promise<ReconcileResult> => {
    const { kv } = await server.store.get(`${secretPrefix}${name}`);
    if (!kv) return undefined;
    const secret = decodeStored(secrets, kv);
    // Any expired Secret of the token type goes, whether or not it holds a usable token.
    if (secret.type !== BOOTSTRAP_TOKEN_TYPE || secret.metadata.deletionTimestamp) return undefined;
    const expiration = secretExpiration(secret);
    const now = server.clock.now();
    if (!bootstrapTokenExpired(expiration, now)) {
      return expiration.expiration === undefined
        ? undefined
        : { requeueAfterMs: expiration.expiration - now + 1000 };
    }
    await deleteObject(server, requestContext(), secrets, BOOTSTRAP_TOKEN_NAMESPACE, name, {
      preconditions: { uid: secret.metadata.uid },
    }).catch(unlessGoneOrChanged);
    return undefined;
  };

  const tokenSecret = (value: string | undefined) =>
    value === undefined || value.includes(BOOTSTRAP_TOKEN_TYPE);
  // One key: every token signs the one cluster-info ConfigMap.
  const stopSigner = runStoreController(server, {
    name: "bootstrapsigner",
    sources: [
      { prefix: secretPrefix, keys: (_name, value) => (tokenSecret(value) ? [CLUSTER_INFO_NAME] : []) },
      {
        prefix: storagePrefix(configMaps, CLUSTER_INFO_NAMESPACE),
        keys: (name) => (name === CLUSTER_INFO_NAME ? [CLUSTER_INFO_NAME] : []),
      },
    ],
    reconcile: () => sign(),
  });
  const stopCleaner = runStoreController(server, {
    name: "tokencleaner",
    sources: [
      {
        prefix: secretPrefix,
        keys: (name, value) => (value !== undefined && tokenSecret(value) ? [name] : []),
      },
    ],
    reconcile: clean,
  });
  return () => {
    stopSigner();
    stopCleaner();
  };
}
