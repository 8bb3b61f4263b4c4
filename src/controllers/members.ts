/**
 * Connections to member clusters, built from a Cluster's `apiEndpoint` and its credentials
 * secret (`token`, `caBundle`) — exactly what `karmadactl join` recorded — and cached until
 * the Cluster or the secret changes. Each member has its own client and concurrency limit,
 * so one slow member never stalls the others.
 */
import { isObject, type StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import type { HttpClient } from "../client/http.ts";
import { httpClientFor } from "../client/kubeconfig.ts";
import type { MemberConnection, MemberConnections } from "./context.ts";

const unb64 = (s: unknown): string | undefined =>
  typeof s === "string" && s ? Buffer.from(s, "base64").toString("utf8") : undefined;

export interface MemberConnectionOptions {
  /** Reads credentials secrets in the control plane. */
  controlPlane: Client;
  /** Per member: requests in flight at once, and how long one may take. */
  maxConcurrent?: number;
  timeoutMs?: number;
}

export function memberConnections(opts: MemberConnectionOptions): MemberConnections & { close(): void } {
  const cache = new Map<string, { version: string; client: HttpClient; conn: MemberConnection }>();
  return {
    async connect(cluster: StoredObject): Promise<MemberConnection> {
      const name = cluster.metadata.name!;
      const spec = isObject(cluster.spec) ? cluster.spec : {};
      const ref = isObject(spec.secretRef) ? spec.secretRef : undefined;
      if (!spec.apiEndpoint) throw new Error(`cluster ${name} has no apiEndpoint`);
      if (!ref?.name || !ref.namespace) throw new Error(`cluster ${name} has no secretRef`);
      const secret = await opts.controlPlane.get(RESOURCES.secrets, String(ref.namespace), String(ref.name));
      const version = `${cluster.metadata.generation}/${cluster.metadata.uid}/${secret.metadata.resourceVersion}`;
      const cached = cache.get(name);
      if (cached?.version === version) return cached.conn;
      cached?.client.close();
      const data = isObject(secret.data) ? secret.data : {};
      const token = unb64(data.token);
      const caData = unb64(data.caBundle);
      const client = httpClientFor(
        {
          server: String(spec.apiEndpoint),
          ...(token ? { token } : {}),
          ...(caData ? { caData } : {}),
          ...(spec.insecureSkipTLSVerification === true ? { insecureSkipTLSVerify: true } : {}),
          ...(typeof spec.proxyURL === "string" && spec.proxyURL ? { proxyUrl: spec.proxyURL } : {}),
        },
        {
          maxConcurrent: opts.maxConcurrent ?? 16,
          timeoutMs: opts.timeoutMs ?? 10_000,
          userAgent: "karmada-controller-manager",
        },
      );
      const conn: MemberConnection = { client, getRaw: (path) => client.getRaw(path) };
      cache.set(name, { version, client, conn });
      return conn;
    },
    forget(name: string): void {
      cache.get(name)?.client.close();
      cache.delete(name);
    },
    close(): void {
      for (const c of cache.values()) c.client.close();
      cache.clear();
    },
  };
}
