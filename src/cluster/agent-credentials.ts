/**
 * Where a Pull cluster's agent finds its control-plane credentials when no
 * `--karmada-kubeconfig` is given: the Secret `karmadactl register` wrote into the member
 * (`<--karmada-kubeconfig-namespace>/karmada-kubeconfig`, key `karmada-kubeconfig`), the
 * same file its container mounts. And a connection whose client certificate can be replaced
 * while the agent runs, for certificate rotation.
 */
import { isObject } from "../api/meta.ts";
import { type Client, RESOURCES } from "./../client/client.ts";
import type { ClusterConnection } from "../client/http.ts";
import { isNotFound } from "../machinery/errors.ts";

export const KARMADA_KUBECONFIG_SECRET = "karmada-kubeconfig";

/** The kubeconfig text in the member's Secret; an Error saying what is missing otherwise. */
export async function agentKubeconfigFromSecret(member: Client, namespace: string): Promise<string> {
  let secret: Awaited<ReturnType<Client["get"]>>;
  try {
    secret = await member.get(RESOURCES.secrets, namespace, KARMADA_KUBECONFIG_SECRET);
  } catch (err) {
    if (isNotFound(err)) {
      throw new Error(
        `no Secret ${namespace}/${KARMADA_KUBECONFIG_SECRET} in the member cluster: register it first (karmadactl register), or pass --karmada-kubeconfig`,
      );
    }
    throw err;
  }
  const data = isObject(secret.data) ? secret.data : {};
  const value = data[KARMADA_KUBECONFIG_SECRET];
  if (typeof value !== "string" || value === "") {
    throw new Error(
      `Secret ${namespace}/${KARMADA_KUBECONFIG_SECRET} has no ${KARMADA_KUBECONFIG_SECRET} key`,
    );
  }
  return Buffer.from(value, "base64").toString("utf8");
}

/**
 * A connection presenting the kubeconfig's client certificate until `rotate` hands it a new
 * one; requests after that use the new certificate (new connections, same client).
 */
export function rotatableConnection(conn: ClusterConnection): {
  conn: ClusterConnection;
  rotate(cert: { certPem: string; keyPem: string }): void;
} {
  let current = { certData: conn.certData, keyData: conn.keyData };
  const { certData: _c, keyData: _k, ...rest } = conn;
  return {
    conn: {
      ...rest,
      credentials: {
        async get() {
          const base = conn.credentials ? await conn.credentials.get() : {};
          return {
            ...base,
            ...(current.certData ? { certData: current.certData } : {}),
            ...(current.keyData ? { keyData: current.keyData } : {}),
          };
        },
      },
    },
    rotate(cert) {
      current = { certData: cert.certPem, keyData: cert.keyPem };
    },
  };
}
