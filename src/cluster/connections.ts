/**
 * Connections to member clusters, built from a Cluster's `apiEndpoint` and its credentials
 * secret (`token`, `caBundle`) — exactly what `karmadactl join` recorded — and cached until
 * the Cluster's connection settings or the secret change. Each member has its own client and
 * concurrency limit, so one slow member never stalls the others.
 */
import { isObject, type StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import { type ClusterConnection, type HttpClient, Reachability } from "../client/http.ts";
import { httpClientFor } from "../client/kubeconfig.ts";
import type { Registry } from "../metrics/registry.ts";
import { Informer } from "../runtime/informer.ts";

/** A connection to one member cluster's API server. */
export interface MemberConnection {
  client: Client;
  /**
   * GETs a non-resource path (`/readyz`, `/version`, discovery). Throws on transport errors,
   * and when no answer came within `timeoutMs` (default: the connection's own timeout).
   * `accept`: the Accept header (default JSON).
   */
  getRaw(path: string, timeoutMs?: number, accept?: string): Promise<{ status: number; body: string }>;
}

export interface MemberConnections {
  /** A connection built from the Cluster's endpoint and credentials secret (cached until they change). */
  connect(cluster: StoredObject): Promise<MemberConnection>;
  forget(clusterName: string): void;
  /**
   * Calls `listener` with a member's name each time it answers again after requests failed to
   * reach it. Returns the unsubscribe function.
   */
  onRecovered?(listener: (clusterName: string) => void): () => void;
}

/** A Secret's `data` value as text (undefined when absent or empty). */
export const unb64 = (s: unknown): string | undefined =>
  typeof s === "string" && s ? Buffer.from(s, "base64").toString("utf8") : undefined;

export interface MemberConnectionOptions {
  /** Reads credentials secrets in the control plane. */
  controlPlane: Client;
  /** Per member: requests in flight at once, and how long one may take. */
  maxConcurrent?: number;
  timeoutMs?: number;
  /** Where the member clients' `rest_client_*` metrics go. */
  metrics?: Registry;
  /**
   * Keep the credentials secrets' namespaces in a watch cache (the identity needs list and
   * watch on secrets there) instead of a GET per `connect`: the controllers connect for every
   * apply and probe, and at 30,000 Works that was 75,000 GETs of a handful of secrets.
   */
  watchSecrets?: boolean;
}

interface Cached {
  version: string;
  conn: MemberConnection;
  close(): void;
}

export interface MemberTuning {
  maxConcurrent: number;
  timeoutMs: number;
  userAgent: string;
  metrics?: Registry | undefined;
  /** Called when the member answers again after requests failed to reach it. */
  onRecovered?: () => void;
}

/** One member's connection; `close()` frees its sockets. */
export function openMemberConnection(
  settings: ClusterConnection,
  tuning: MemberTuning,
): MemberConnection & { close(): void } {
  const { maxConcurrent, userAgent } = tuning;
  const metrics = tuning.metrics ? { metrics: tuning.metrics } : {};
  // One member, several clients: a probe's answer ends the failures the main client met.
  const reachability = new Reachability();
  const unsubscribe = tuning.onRecovered ? reachability.onRecovered(tuning.onRecovered) : () => {};
  const open = (timeoutMs: number): HttpClient =>
    httpClientFor(settings, { maxConcurrent, timeoutMs, userAgent, reachability, ...metrics });
  const client = open(tuning.timeoutMs);
  // A request with its own time limit (health probes, discovery) goes through a client with
  // that timeout, so an unanswered request is abandoned, and its slot freed, on time.
  const limited = new Map<number, HttpClient>();
  const withTimeout = (timeoutMs: number): HttpClient => {
    let c = limited.get(timeoutMs);
    if (!c) {
      c = open(timeoutMs);
      limited.set(timeoutMs, c);
    }
    return c;
  };
  return {
    client,
    getRaw: (path, timeoutMs, accept) =>
      (timeoutMs === undefined ? client : withTimeout(timeoutMs)).getRaw(path, accept),
    close() {
      unsubscribe();
      client.close();
      for (const c of limited.values()) c.close();
    },
  };
}

/**
 * An agent's view: the one member it runs next to, reached through its own kubeconfig rather
 * than the credentials recorded in the control plane (upstream's agent uses its in-cluster config).
 */
export function ownMemberConnections(
  clusterName: string,
  open: (onRecovered: () => void) => MemberConnection & { close(): void },
): MemberConnections & { close(): void } {
  const listeners = new Set<(clusterName: string) => void>();
  const conn = open(() => {
    for (const l of [...listeners]) l(clusterName);
  });
  return {
    async connect(cluster) {
      if (cluster.metadata.name !== clusterName) {
        throw new Error(`this agent serves cluster ${clusterName}, not ${cluster.metadata.name}`);
      }
      return conn;
    },
    forget() {},
    onRecovered(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => conn.close(),
  };
}

export function memberConnections(opts: MemberConnectionOptions): MemberConnections & { close(): void } {
  const cache = new Map<string, Cached>();
  /** With `watchSecrets`: one watch cache per namespace holding credentials secrets. */
  const secretCaches = new Map<string, Informer>();
  const secretOf = async (namespace: string, name: string): Promise<StoredObject> => {
    if (opts.watchSecrets) {
      let informer = secretCaches.get(namespace);
      if (!informer) {
        informer = new Informer(opts.controlPlane, RESOURCES.secrets, { namespace });
        secretCaches.set(namespace, informer);
        informer.start();
      }
      // Until the first list is in (or should the secret be new to it), a GET answers.
      const cached = informer.hasSynced() ? informer.get(namespace, name) : undefined;
      if (cached) return cached;
    }
    return opts.controlPlane.get(RESOURCES.secrets, namespace, name);
  };
  const listeners = new Set<(clusterName: string) => void>();
  const tuning = {
    maxConcurrent: opts.maxConcurrent ?? 16,
    timeoutMs: opts.timeoutMs ?? 10_000,
    metrics: opts.metrics,
  };

  return {
    async connect(cluster: StoredObject): Promise<MemberConnection> {
      const name = cluster.metadata.name;
      const spec = isObject(cluster.spec) ? cluster.spec : {};
      const ref = isObject(spec.secretRef) ? spec.secretRef : undefined;
      if (!spec.apiEndpoint) throw new Error(`cluster ${name} has no apiEndpoint`);
      if (!ref?.name || !ref.namespace) throw new Error(`cluster ${name} has no secretRef`);
      const secret = await secretOf(String(ref.namespace), String(ref.name));
      // Only what the connection is made of: a taint or label change keeps the connection.
      const version = JSON.stringify([
        cluster.metadata.uid,
        spec.apiEndpoint,
        spec.insecureSkipTLSVerification === true,
        spec.proxyURL ?? "",
        secret.metadata.uid,
        secret.metadata.resourceVersion,
      ]);
      const cached = cache.get(name);
      if (cached?.version === version) return cached.conn;
      cached?.close();
      const data = isObject(secret.data) ? secret.data : {};
      const token = unb64(data.token);
      const caData = unb64(data.caBundle);
      const opened = openMemberConnection(
        {
          server: String(spec.apiEndpoint),
          ...(token ? { token } : {}),
          ...(caData ? { caData } : {}),
          ...(spec.insecureSkipTLSVerification === true ? { insecureSkipTLSVerify: true } : {}),
          ...(typeof spec.proxyURL === "string" && spec.proxyURL ? { proxyUrl: spec.proxyURL } : {}),
        },
        {
          ...tuning,
          userAgent: "karmada-controller-manager",
          onRecovered: () => {
            for (const l of [...listeners]) l(name);
          },
        },
      );
      const conn: MemberConnection = { client: opened.client, getRaw: opened.getRaw };
      cache.set(name, { version, conn, close: opened.close });
      return conn;
    },
    forget(name: string): void {
      cache.get(name)?.close();
      cache.delete(name);
    },
    onRecovered(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close(): void {
      for (const c of cache.values()) c.close();
      cache.clear();
      for (const i of secretCaches.values()) i.stop();
      secretCaches.clear();
    },
  };
}
