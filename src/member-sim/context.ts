/**
 * What every simulated controller is handed: the in-process client, shared informers, the
 * clock, the timings, the fault state, an event recorder, and a way to wait until an
 * informer has seen the controller's own writes.
 *
 * Two notions of time: `now()` (the injectable clock) is what timestamps, schedules and
 * deadlines read; delays (a pod starting, a terminating pod going away, heartbeats) are real
 * milliseconds from `timing`, so tests with a frozen clock still see pods start.
 */
import type { StoredObject } from "../api/meta.ts";
import type { Client, ResourceRef } from "../client/client.ts";
import type { Logger } from "../log.ts";
import type { EventRecorder } from "../runtime/events.ts";
import type { Informer } from "../runtime/informer.ts";
import type { Faults } from "./faults.ts";

export interface Timing {
  /** A bound pod becomes Running and Ready after this long. */
  podStartMs: number;
  /** A terminating pod is removed after min(its grace period, this). */
  podDeleteMs: number;
  /** A Job's pod (or one annotated with a run time) finishes after this long. */
  jobPodRunMs: number;
  /** A crash-looping pod restarts this often. */
  crashLoopMs: number;
  /** Node Leases are renewed this often. */
  leaseRenewMs: number;
  /** Node Ready conditions get a new lastHeartbeatTime this often. */
  nodeStatusMs: number;
  /** Time-driven controllers (CronJob schedules, progress deadlines) look at the clock at least this often. */
  syncPeriodMs: number;
  /** Caps NoExecute tolerationSeconds (default 300 s) before pods on a NotReady node are evicted. */
  evictionMs?: number;
}

export const DEFAULT_TIMING: Timing = {
  podStartMs: 300,
  podDeleteMs: 200,
  jobPodRunMs: 1000,
  crashLoopMs: 10_000,
  leaseRenewMs: 10_000,
  nodeStatusMs: 40_000,
  syncPeriodMs: 1000,
};

export const ENDPOINTSLICES: ResourceRef = {
  group: "discovery.k8s.io",
  version: "v1",
  resource: "endpointslices",
  namespaced: true,
  kind: "EndpointSlice",
};

export interface SimInformers {
  nodes: Informer;
  pods: Informer;
  replicasets: Informer;
  deployments: Informer;
  statefulsets: Informer;
  daemonsets: Informer;
  controllerrevisions: Informer;
  jobs: Informer;
  cronjobs: Informer;
  services: Informer;
  endpoints: Informer;
  endpointslices: Informer;
  crds: Informer;
}

export interface Sim {
  /** The cluster's name (node names, events). */
  cluster: string;
  client: Client;
  informers: SimInformers;
  now(): number;
  timing: Timing;
  log: Logger;
  events: EventRecorder;
  faults: Faults;
  /** Resolves once `informer` reflects `written` (a create or update result), or after a bound. */
  caughtUp(informer: Informer, written: StoredObject | undefined): Promise<void>;
  /** Resolves once `informer` no longer holds `key` with `uid` (a delete), or after a bound. */
  gone(informer: Informer, key: string, uid: string | undefined): Promise<void>;
}

const CATCH_UP_LIMIT_MS = 2000;

/**
 * Read-your-writes over informers: controllers that create pods and then reconcile again
 * must not count the pods as missing because the watch has not delivered them yet
 * (kube-controller-manager uses "expectations" for this). Revisions are global and
 * monotonic, so "the informer is at or past the revision of my write" is the test.
 */
export class InformerWaits {
  #waiters = new Map<Informer, Set<{ check(): boolean; resolve(): void }>>();

  track(informer: Informer): void {
    if (this.#waiters.has(informer)) return;
    const waiters = new Set<{ check(): boolean; resolve(): void }>();
    this.#waiters.set(informer, waiters);
    const wake = (): void => {
      for (const w of waiters) {
        if (w.check()) {
          waiters.delete(w);
          w.resolve();
        }
      }
    };
    informer.addHandler({ onAdd: wake, onUpdate: wake, onDelete: wake });
  }

  until(informer: Informer, check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    this.track(informer);
    const waiters = this.#waiters.get(informer)!;
    return new Promise((resolve) => {
      const w = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(w);
        resolve();
      }, CATCH_UP_LIMIT_MS);
      timer.unref();
      waiters.add(w);
    });
  }

  caughtUp(informer: Informer, written: StoredObject | undefined): Promise<void> {
    const rv = Number(written?.metadata.resourceVersion);
    if (!written || !Number.isFinite(rv)) return Promise.resolve();
    return this.until(informer, () => Number(informer.resourceVersion) >= rv);
  }

  gone(informer: Informer, key: string, uid: string | undefined): Promise<void> {
    return this.until(informer, () => {
      const cur = informer.getByKey(key);
      return cur === undefined || (uid !== undefined && cur.metadata.uid !== uid);
    });
  }
}
