/**
 * `kube-public/cluster-info`: the control plane's address and CA in a one-cluster kubeconfig,
 * which the bootstrap signer signs for each bootstrap token and `karmadactl register` reads
 * anonymously (as `karmadactl init` sets it up upstream).
 */

import YAML from "yaml";
import { CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE } from "../api/bootstrap-token.ts";
import { isObject } from "../api/meta.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import { isAlreadyExists } from "../machinery/errors.ts";

/** The kubeconfig `karmadactl init` writes into cluster-info: one cluster, nameless, nothing else. */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return YAML.stringify({
    apiVersion: "v1",
    clusters: [
      { cluster: { "certificate-authority-data": Buffer.from(caPem).toString("base64"), server }, name: "" },
    ],
    contexts: null,
    "current-context": "",
    kind: "Config",
    preferences: {},
    users: null,
  });
}

/** Creates cluster-info, or points it at `server` and `caPem` when it says otherwise. */
export async function publishClusterInfo(admin: Client, server: string, caPem: string): Promise<void> {
  const kubeconfig = clusterInfoKubeconfig(server, caPem);
  try {
    await admin.create(RESOURCES.configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: CLUSTER_INFO_NAME, namespace: CLUSTER_INFO_NAMESPACE },
      data: { kubeconfig },
    });
    return;
  } catch (err) {
    // Already there: made by an earlier start, or at this moment by another API server replica.
    if (!isAlreadyExists(err)) throw err;
  }
  const current = await admin.get(RESOURCES.configmaps, CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME);
  const data = isObject(current.data) ? current.data : {};
  if (data.kubeconfig !== kubeconfig) {
    await admin.patch(RESOURCES.configmaps, CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME, "merge", {
      data: { kubeconfig },
    });
  }
}
