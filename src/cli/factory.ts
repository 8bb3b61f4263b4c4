/**
 * Clients for CLI commands from kubeconfig flags, as kubectl resolves them: `--kubeconfig`,
 * else `$KUBECONFIG` (first file), else `~/.kube/config`; `--karmada-context` picks the context.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { HttpClient } from "../client/http.ts";
import { httpClientFor, loadKubeconfig } from "../client/kubeconfig.ts";
import { type ClientFactory, CommandError } from "./io.ts";

export interface KubeconfigFlags {
  kubeconfig?: string;
  karmadaContext?: string;
}

export function defaultKubeconfigPath(env: Record<string, string | undefined>): string {
  const fromEnv = env.KUBECONFIG?.split(":").find((p) => p !== "");
  return fromEnv ?? join(env.HOME ?? homedir(), ".kube", "config");
}

interface Connected {
  client: HttpClient;
  server: string;
  insecureSkipTLSVerify: boolean;
  caData?: string;
  cluster?: string;
}

/** The path under a control plane's server at which the cluster proxy serves a member. */
export function clusterProxyPath(cluster: string): string {
  return `/apis/cluster.karmada.io/v1alpha1/clusters/${encodeURIComponent(cluster)}/proxy`;
}

async function connect(path: string, context: string | undefined, member?: string): Promise<Connected> {
  let conn: Awaited<ReturnType<typeof loadKubeconfig>>;
  try {
    conn = await loadKubeconfig({ path, ...(context ? { context } : {}) });
  } catch (err) {
    throw new CommandError(
      `cannot load kubeconfig ${path}${context ? ` (context ${context})` : ""}: ${(err as Error).message}`,
    );
  }
  if (member) conn.server = conn.server.replace(/\/+$/, "") + clusterProxyPath(member);
  const out: Connected = {
    client: httpClientFor(conn, { userAgent: "karmadactl" }),
    server: conn.server,
    insecureSkipTLSVerify: conn.insecureSkipTLSVerify === true,
    cluster: conn.cluster,
  };
  if (conn.caData) out.caData = conn.caData;
  return out;
}

export function clientFactory(
  flags: KubeconfigFlags,
  env: Record<string, string | undefined>,
): ClientFactory & { close(): void } {
  const opened: HttpClient[] = [];
  const track = <T extends { client: HttpClient }>(c: T): T => {
    opened.push(c.client);
    return c;
  };
  return {
    async controlPlane() {
      return track(await connect(flags.kubeconfig ?? defaultKubeconfigPath(env), flags.karmadaContext))
        .client;
    },
    async memberCluster(name) {
      const path = flags.kubeconfig ?? defaultKubeconfigPath(env);
      return track(await connect(path, flags.karmadaContext, name)).client;
    },
    async cluster(kubeconfig, context) {
      return track(await connect(kubeconfig, context));
    },
    close() {
      for (const c of opened) c.close();
    },
  };
}
