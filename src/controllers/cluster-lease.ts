/**
 * The heartbeat of a Pull cluster: its agent renews Lease `karmada-cluster/<cluster>` every
 * `--cluster-lease-duration` × `--cluster-lease-renew-interval-fraction` (40 s × 0.25), as
 * upstream's component-helpers lease controller does; the control plane's cluster-monitor
 * reads it. The Lease is owned by its Cluster, so it goes when the Cluster goes.
 */
import { rfc3339Micro } from "../api/meta.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import type { Logger } from "../log.ts";
import { isNotFound } from "../machinery/errors.ts";
import { CLUSTER_LEASE_NAMESPACE } from "./cluster-monitor.ts";

export interface ClusterLeaseOptions {
  durationMs: number;
  renewFraction: number;
  now: () => number;
  log: Logger;
}

export interface ClusterLease {
  /** Renews once now (the loop also renews on its own). */
  renew(): Promise<void>;
  stop(): void;
}

export function startClusterLease(client: Client, cluster: string, opts: ClusterLeaseOptions): ClusterLease {
  const renewIntervalMs = Math.max(1, Math.round(opts.durationMs * opts.renewFraction));
  // A failed renewal is retried sooner, as upstream backs off from 200 ms up to the interval.
  let retryMs = 200;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function renew(): Promise<void> {
    const renewTime = rfc3339Micro(opts.now());
    const spec = {
      holderIdentity: cluster,
      leaseDurationSeconds: Math.round(opts.durationMs / 1000),
      renewTime,
    };
    try {
      const lease = await client.get(RESOURCES.leases, CLUSTER_LEASE_NAMESPACE, cluster);
      await client.update(RESOURCES.leases, { ...lease, spec: { ...(lease.spec as object), ...spec } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const owner = await client.get(RESOURCES.clusters, undefined, cluster);
      await client.create(RESOURCES.leases, {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: {
          name: cluster,
          namespace: CLUSTER_LEASE_NAMESPACE,
          ownerReferences: [
            {
              apiVersion: "cluster.karmada.io/v1alpha1",
              kind: "Cluster",
              name: cluster,
              uid: owner.metadata.uid,
            },
          ],
        },
        spec,
      });
    }
  }

  function loop(): void {
    if (stopped) return;
    renew().then(
      () => {
        retryMs = 200;
        schedule(renewIntervalMs);
      },
      (err) => {
        opts.log.warn("cluster lease not renewed", { cluster, err: (err as Error).message });
        schedule(Math.min(retryMs, renewIntervalMs));
        retryMs *= 2;
      },
    );
  }
  function schedule(ms: number): void {
    if (stopped) return;
    timer = setTimeout(loop, ms);
    timer.unref?.();
  }

  loop();
  return {
    renew,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
