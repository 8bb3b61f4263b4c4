/**
 * The DaemonSet controller: one pod on every node its template may run on (nodeSelector,
 * required node affinity, NoSchedule/NoExecute taints against the template's tolerations
 * plus the ones the controller adds), pinned there by a `metadata.name` node affinity and
 * placed by the scheduler; pods on nodes they should not run on are removed; rolling updates
 * replace old-revision pods within maxUnavailable. Status as kube-controller-manager writes
 * it: desired/current/ready/available/updatedNumberScheduled, numberMisscheduled,
 * numberUnavailable, observedGeneration.
 *
 * Simplified: maxSurge is treated as 0; failed pods are replaced without backoff.
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import type { Controller } from "../runtime/controller.ts";
import { commitStatus, createPods, deletePods } from "./commit.ts";
import type { Sim } from "./context.ts";
import { currentRevision, pruneRevisions } from "./revisions.ts";
import { matchesNodeSelectorAndAffinity, untoleratedTaint } from "./scheduling.ts";
import type { IntOrString, PodSpec, PodTemplateSpec, Toleration } from "./types.ts";
import {
  BY_CONTROLLER,
  controllerKey,
  isAvailable,
  isReady,
  isTerminal,
  omitZero,
  podFromTemplate,
  podSpec,
  scaledValue,
} from "./workload.ts";

interface DaemonSetSpec {
  template?: PodTemplateSpec;
  updateStrategy?: { type?: "RollingUpdate" | "OnDelete"; rollingUpdate?: { maxUnavailable?: IntOrString } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
}

const HASH_LABEL = "controller-revision-hash";

/** The tolerations the DaemonSet controller adds to its pods (util.AddOrUpdateDaemonPodTolerations). */
export const DAEMON_TOLERATIONS: Toleration[] = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
];

function withDaemonTolerations(spec: PodSpec): Toleration[] {
  const have = spec.tolerations ?? [];
  const extra = [...DAEMON_TOLERATIONS];
  if (spec.hostNetwork)
    extra.push({ key: "node.kubernetes.io/network-unavailable", operator: "Exists", effect: "NoSchedule" });
  return [...have, ...extra.filter((t) => !have.some((h) => h.key === t.key && h.effect === t.effect))];
}

/** Whether a daemon pod belongs on the node (NodeShouldRunDaemonPod). */
export function shouldRunOn(template: PodTemplateSpec | undefined, node: StoredObject): boolean {
  const spec: PodSpec = { ...(template?.spec ?? {}) };
  spec.tolerations = withDaemonTolerations(spec);
  return matchesNodeSelectorAndAffinity(spec, node) && untoleratedTaint(spec, node) === undefined;
}

function pinnedTo(spec: PodSpec, node: string): void {
  spec.tolerations = withDaemonTolerations(spec);
  spec.affinity = {
    ...spec.affinity,
    nodeAffinity: {
      ...spec.affinity?.nodeAffinity,
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] }],
      },
    },
  };
}

/** The node a daemon pod is meant for: where it is bound, else what its affinity pins. */
function targetNode(pod: StoredObject): string | undefined {
  const spec = podSpec(pod);
  if (spec.nodeName) return spec.nodeName;
  const terms =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return terms[0]?.matchFields?.find((f) => f.key === "metadata.name")?.values?.[0];
}

const byAge = (a: StoredObject, b: StoredObject): number =>
  (a.metadata.creationTimestamp ?? "") < (b.metadata.creationTimestamp ?? "") ? -1 : 1;

/** The DaemonSet's pods (not terminating) by the node they are meant for. */
function podsByNode(sim: Sim, ds: StoredObject): Map<string, StoredObject[]> {
  const byNode = new Map<string, StoredObject[]>();
  for (const pod of sim.informers.pods.byIndex(BY_CONTROLLER, ds.metadata.uid)) {
    if (pod.metadata.deletionTimestamp) continue;
    const node = targetNode(pod) ?? "";
    byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  }
  return byNode;
}

/** One running pod on every wanted node: failed ones replaced, duplicates (all but the oldest) removed. */
async function placePods(sim: Sim, ds: StoredObject, wanted: StoredObject[], hash: string): Promise<void> {
  const spec = (ds.spec ?? {}) as DaemonSetSpec;
  const byNode = podsByNode(sim, ds);
  const missing: KubeObject[] = [];
  for (const node of wanted) {
    const name = node.metadata.name;
    const here = (byNode.get(name) ?? []).sort(byAge);
    const running = here.filter((p) => !isTerminal(p));
    await deletePods(sim, [...here.filter(isTerminal), ...running.slice(1)]);
    if (running.length > 0) continue;
    missing.push(
      podFromTemplate(spec.template, ds, {
        labels: { [HASH_LABEL]: hash, "pod-template-generation": String(ds.metadata.generation ?? 1) },
        spec: (s) => pinnedTo(s, name),
      }),
    );
  }
  await createPods(sim, ds, missing, (p) => ["SuccessfulCreate", `Created pod: ${p.metadata.name}`]);
}

/** Removes pods from nodes they should not run on; returns how many existing nodes had such pods. */
async function removeMisscheduled(sim: Sim, ds: StoredObject, wanted: ReadonlySet<string>): Promise<number> {
  let misscheduled = 0;
  for (const [node, list] of podsByNode(sim, ds)) {
    if (wanted.has(node)) continue;
    if (sim.informers.nodes.getByKey(node)) misscheduled++;
    await deletePods(sim, list);
  }
  return misscheduled;
}

/** Replaces old-revision pods: unavailable ones at once, available ones within maxUnavailable. */
async function rollingUpdate(
  sim: Sim,
  ds: StoredObject,
  live: StoredObject[],
  desired: number,
  hash: string,
): Promise<void> {
  const spec = (ds.spec ?? {}) as DaemonSetSpec;
  if ((spec.updateStrategy?.type ?? "RollingUpdate") !== "RollingUpdate") return;
  const now = sim.now();
  const available = (p: StoredObject) => isAvailable(p, spec.minReadySeconds ?? 0, now);
  const maxUnavailable = Math.max(
    1,
    scaledValue(spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1, desired, true),
  );
  let budget = maxUnavailable - (desired - live.filter(available).length);
  const old = live.filter((p) => p.metadata.labels?.[HASH_LABEL] !== hash);
  const doomed = old.filter((p) => !available(p));
  for (const pod of old.filter(available)) {
    if (budget-- <= 0) break;
    doomed.push(pod);
  }
  await deletePods(sim, doomed);
}

export function daemonSetStatus(
  ds: StoredObject,
  live: StoredObject[],
  counts: { desired: number; misscheduled: number; hash: string },
  now: number,
): Record<string, unknown> {
  const minReady = ((ds.spec ?? {}) as DaemonSetSpec).minReadySeconds ?? 0;
  const available = live.filter((p) => isAvailable(p, minReady, now)).length;
  return omitZero<Record<string, unknown>>(
    {
      currentNumberScheduled: new Set(live.map(targetNode)).size,
      numberMisscheduled: counts.misscheduled,
      desiredNumberScheduled: counts.desired,
      numberReady: live.filter(isReady).length,
      observedGeneration: ds.metadata.generation,
      updatedNumberScheduled: live.filter((p) => p.metadata.labels?.[HASH_LABEL] === counts.hash).length,
      numberAvailable: available,
      numberUnavailable: counts.desired - available,
    },
    ["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"],
  );
}

export function daemonSetController(sim: Sim): Controller {
  const { daemonsets, pods, nodes } = sim.informers;
  return {
    name: "daemonset",
    for: daemonsets,
    watches: [
      { informer: pods, map: (pod) => controllerKey(pod, "DaemonSet") },
      { informer: nodes, map: () => daemonsets.keys() },
    ],
    async reconcile(_ctx, key) {
      const ds = daemonsets.getByKey(key);
      if (!ds || ds.metadata.deletionTimestamp) return undefined;
      const spec = (ds.spec ?? {}) as DaemonSetSpec;
      const { revision, hash } = await currentRevision(
        sim,
        ds,
        spec.template,
        spec.template?.metadata?.labels,
      );
      const wanted = nodes.list().filter((n) => shouldRunOn(spec.template, n));
      const wantedNames = new Set(wanted.map((n) => n.metadata.name));
      await placePods(sim, ds, wanted, hash);
      const misscheduled = await removeMisscheduled(sim, ds, wantedNames);
      const live = (): StoredObject[] =>
        pods
          .byIndex(BY_CONTROLLER, ds.metadata.uid)
          .filter(
            (p) => !p.metadata.deletionTimestamp && !isTerminal(p) && wantedNames.has(targetNode(p) ?? ""),
          );
      await rollingUpdate(sim, ds, live(), wanted.length, hash);
      const latest = daemonsets.getByKey(key) ?? ds;
      const status = daemonSetStatus(
        latest,
        live(),
        { desired: wanted.length, misscheduled, hash },
        sim.now(),
      );
      await commitStatus(sim, RESOURCES.daemonsets, daemonsets, latest, status);
      const inUse = new Set([
        revision.metadata.name,
        ...live().map((p) => `${ds.metadata.name}-${p.metadata.labels?.[HASH_LABEL]}`),
      ]);
      await pruneRevisions(sim, ds, spec.revisionHistoryLimit ?? 10, inUse);
      return undefined;
    },
  };
}
