/**
 * The service-account token controller (kube-controller-manager's `serviceaccount-token`):
 * a Secret of type `kubernetes.io/service-account-token` naming a ServiceAccount gets the
 * account's uid annotation and `token`, `namespace` and `ca.crt` data. `karmadactl join`
 * creates such secrets and waits for them to be filled.
 *
 * With a service-account signing key the token is a legacy service-account JWT the server
 * authenticates for as long as the Secret holds it; without one (a server started without
 * authentication) it is an opaque random string.
 */
import { randomBytes } from "node:crypto";
import { isObject, type StoredObject } from "../../api/meta.ts";
import { type ReconcileContext, type ReconcileResult, requeueAfter } from "../../runtime/controller.ts";
import { issueLegacyToken } from "../authn/service-account.ts";
import type { ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { storageKey, storagePrefix } from "../resource-type.ts";
import { runStoreController, unlessGoneOrChanged } from "./follow.ts";
import { systemWriter } from "./writer.ts";

export const SA_TOKEN_TYPE = "kubernetes.io/service-account-token";
export const SA_NAME_ANNOTATION = "kubernetes.io/service-account.name";
export const SA_UID_ANNOTATION = "kubernetes.io/service-account.uid";

const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64");

export function startServiceAccountTokenController(
  server: ServerContext,
  opts: { caData?: string } = {},
): () => void {
  const secrets = server.registry.get("", "v1", "secrets")!;
  const accounts = server.registry.get("", "v1", "serviceaccounts")!;
  const writer = systemWriter(server, "serviceaccount-token-controller");
  const prefix = storagePrefix(secrets);

  const reconcile = async (_ctx: ReconcileContext, key: string): Promise<ReconcileResult> => {
    const { kv } = await server.store.get(`${prefix}${key}`);
    if (!kv) return undefined;
    const secret = decodeStored(secrets, kv);
    const account = secret.metadata.annotations?.[SA_NAME_ANNOTATION];
    const data = isObject(secret.data) ? secret.data : {};
    if (secret.type !== SA_TOKEN_TYPE || !account || data.token) return undefined;
    const sa = await server.store.get(storageKey(accounts, secret.metadata.namespace, account));
    // The account may be created right after its secret: try again shortly.
    if (!sa.kv) return requeueAfter(500);
    const uid = decodeStored(accounts, sa.kv).metadata.uid;
    const signer = server.serviceAccountTokens?.signer;
    const namespace = secret.metadata.namespace ?? "";
    const token = signer
      ? issueLegacyToken(signer, { namespace, name: secret.metadata.name }, { name: account, uid })
      : randomBytes(32).toString("base64url");
    await writer
      .change(secrets, secret, (cur: StoredObject) => ({
        ...cur,
        metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, [SA_UID_ANNOTATION]: uid } },
        data: {
          ...(isObject(cur.data) ? cur.data : {}),
          token: b64(token),
          namespace: b64(cur.metadata.namespace ?? ""),
          "ca.crt": b64(opts.caData ?? ""),
        },
      }))
      .catch(unlessGoneOrChanged);
    return undefined;
  };

  return runStoreController(server, {
    name: "serviceaccount-token",
    sources: [{ prefix, keys: (key, value) => (value?.includes(SA_TOKEN_TYPE) ? [key] : []) }],
    reconcile,
  });
}
