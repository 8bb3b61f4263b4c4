/**
 * The nodes and pods of each member, cached by informers for the cluster status controller's
 * node and resource summaries, as upstream keeps them: listing every pod of every member at
 * each probe (every 10 s by default) made the summaries the control plane's largest read, and
 * the members' too, growing with their pods. Only the fields the summaries read are kept.
 * A member that is not healthy has its informers stopped (upstream stops them too); they
 * start again, with a fresh list, once it is.
 */
import { isObject, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import type { MemberConnection } from "../cluster/connections.ts";
import type { Logger } from "../log.ts";
import { Informer } from "../runtime/informer.ts";

const pick = <T extends object>(from: T, keys: readonly string[]): Partial<T> => {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = (from as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as Partial<T>;
};

const META = ["name", "namespace", "uid", "resourceVersion"] as const;

function requestsOnly(containers: unknown): unknown {
  if (!Array.isArray(containers)) return undefined;
  return containers.map((c) =>
    isObject(c) && isObject(c.resources) && c.resources.requests !== undefined
      ? { resources: { requests: c.resources.requests } }
      : {},
  );
}

/** A pod as the summaries read it: where it runs, what it requests, whether it finished. */
export function trimPod(pod: StoredObject): StoredObject {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const status = isObject(pod.status) ? pod.status : {};
  return {
    apiVersion: pod.apiVersion,
    kind: pod.kind,
    metadata: pick(pod.metadata, META) as StoredObject["metadata"],
    spec: {
      ...pick(spec, ["nodeName", "overhead"]),
      ...(spec.containers !== undefined ? { containers: requestsOnly(spec.containers) } : {}),
      ...(spec.initContainers !== undefined ? { initContainers: requestsOnly(spec.initContainers) } : {}),
    },
    status: pick(status, ["phase"]),
  };
}

/** A node as the summaries read it: its allocatable resources and its conditions. */
export function trimNode(node: StoredObject): StoredObject {
  const status = isObject(node.status) ? node.status : {};
  return {
    apiVersion: node.apiVersion,
    kind: node.kind,
    metadata: pick(node.metadata, [...META, "labels"]) as StoredObject["metadata"],
    status: pick(status, ["allocatable", "conditions"]),
  };
}

interface Inventory {
  conn: MemberConnection;
  nodes: Informer;
  pods: Informer;
}

export class MemberInventories {
  #byCluster = new Map<string, Inventory>();
  #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /**
   * The member's nodes and pods from its informers, started on first use (and again when its
   * connection changed); throws when the first lists do not arrive within `timeoutMs`.
   */
  async snapshot(
    cluster: string,
    conn: MemberConnection,
    timeoutMs: number,
  ): Promise<{ nodes: StoredObject[]; pods: StoredObject[] }> {
    let inv = this.#byCluster.get(cluster);
    if (inv && inv.conn !== conn) {
      this.stop(cluster);
      inv = undefined;
    }
    if (!inv) {
      const log = this.#log.child({ cluster });
      inv = {
        conn,
        nodes: new Informer(conn.client, RESOURCES.nodes, { transform: trimNode, log }),
        pods: new Informer(conn.client, RESOURCES.pods, { transform: trimPod, log }),
      };
      inv.nodes.start();
      inv.pods.start();
      this.#byCluster.set(cluster, inv);
    }
    if (!inv.nodes.hasSynced() || !inv.pods.hasSynced()) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const synced = await Promise.race([
        Promise.all([inv.nodes.waitForSync(), inv.pods.waitForSync()]).then(() => true),
        timedOut,
      ]);
      clearTimeout(timer);
      if (!synced) throw new Error(`the member's nodes and pods were not listed within ${timeoutMs} ms`);
    }
    return { nodes: inv.nodes.list(), pods: inv.pods.list() };
  }

  stop(cluster: string): void {
    const inv = this.#byCluster.get(cluster);
    if (!inv) return;
    inv.nodes.stop();
    inv.pods.stop();
    this.#byCluster.delete(cluster);
  }

  stopAll(): void {
    for (const name of [...this.#byCluster.keys()]) this.stop(name);
  }
}
