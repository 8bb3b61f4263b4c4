/**
 * Watches of the objects Karmada applied in members (label `karmada.io/managed=true`), one
 * informer per cluster and kind, started on first use and shared by the controllers of one
 * manager: work status reads member state from them, execution corrects drift with them.
 * A cluster whose endpoint changes gets fresh watches; a deleted cluster's are stopped.
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import type { ResourceRef } from "../client/client.ts";
import { ANNOTATION, clusterOfExecutionSpace, LABEL } from "../karmada/names.ts";
import type { ClusterObject } from "../karmada/types.ts";
import type { Logger } from "../log.ts";
import { Informer, withoutManagedFields } from "../runtime/informer.ts";
import type { MemberConnections } from "./connections.ts";

export interface MemberWatch {
  informer: Informer;
  ref: ResourceRef;
}

/** A member object changed: the Work it came from (`namespace/name`), and how. */
export type MemberObjectHandler = (
  workKey: string,
  change: { type: "add" | "update" | "delete"; old?: StoredObject; obj: StoredObject },
) => void;

export class MemberWatches {
  #members: MemberConnections;
  #log: Logger;
  #watches = new Map<string, { endpoint: string; byKind: Map<string, Promise<MemberWatch>> }>();
  #handlers = new Set<MemberObjectHandler>();

  constructor(members: MemberConnections, log: Logger) {
    this.#members = members;
    this.#log = log;
  }

  /** Handlers hear about every watched member object that names its Work; returns a remover. */
  subscribe(handler: MemberObjectHandler): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /** The watch of a manifest's kind in a cluster, started on first use. */
  watch(cluster: ClusterObject, manifest: KubeObject): Promise<MemberWatch> {
    const name = cluster.metadata.name;
    const endpoint = String(cluster.spec?.apiEndpoint ?? "");
    let w = this.#watches.get(name);
    if (w && w.endpoint !== endpoint) {
      this.stopCluster(name);
      w = undefined;
    }
    if (!w) {
      w = { endpoint, byKind: new Map() };
      this.#watches.set(name, w);
    }
    const byKind = w.byKind;
    const kindKey = `${manifest.apiVersion}|${manifest.kind}`;
    let p = byKind.get(kindKey);
    if (!p) {
      p = this.#start(cluster, name, manifest);
      p.catch(() => byKind.delete(kindKey));
      byKind.set(kindKey, p);
    }
    return p;
  }

  async #start(cluster: ClusterObject, name: string, manifest: KubeObject): Promise<MemberWatch> {
    const conn = await this.#members.connect(cluster);
    const ref = await conn.client.resourceFor(String(manifest.apiVersion), String(manifest.kind));
    const informer = new Informer(conn.client, ref, {
      labelSelector: `${LABEL.managed}=true`,
      transform: withoutManagedFields,
      log: this.#log,
    });
    const tell = (type: "add" | "update" | "delete", obj: StoredObject, old?: StoredObject) => {
      const a = obj.metadata.annotations ?? {};
      const wns = a[ANNOTATION.workNamespace];
      const wname = a[ANNOTATION.workName];
      if (!wns || !wname || clusterOfExecutionSpace(wns) !== name) return;
      for (const h of this.#handlers) h(`${wns}/${wname}`, { type, obj, ...(old ? { old } : {}) });
    };
    informer.addHandler({
      onAdd: (o) => tell("add", o),
      onUpdate: (old, o) => tell("update", o, old),
      onDelete: (o) => tell("delete", o),
    });
    informer.start();
    return { informer, ref };
  }

  stopCluster(name: string): void {
    const w = this.#watches.get(name);
    if (!w) return;
    for (const p of w.byKind.values()) p.then((m) => m.informer.stop()).catch(() => {});
    this.#watches.delete(name);
  }

  stop(): void {
    for (const name of [...this.#watches.keys()]) this.stopCluster(name);
    this.#handlers.clear();
  }
}
