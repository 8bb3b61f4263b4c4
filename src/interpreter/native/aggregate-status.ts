/**
 * AggregateStatus for the built-in kinds: the template's `.status` computed from what each
 * member reported (the ReflectStatus output stored in the binding's `aggregatedStatus`).
 * Items without a status (not applied, or not reported yet) add nothing to sums; the phase
 * aggregations count them as Pending.
 */
import type { KubeObject } from "../../api/meta.ts";
import type { AggregatedStatusItem } from "../../karmada/types.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { aggregateJobStatus } from "./aggregate-job-status.ts";
import { arrayAt, type JsonObject, numberAt, objectAt, putCount, stringAt, valueAt } from "./fields.ts";
import { GVK } from "./kinds.ts";
import { mergeIngressIngress, mergeServiceIngress } from "./load-balancer-ingress.ts";

export interface AggregateContext {
  now: () => Date;
}

type Aggregator = (
  template: KubeObject,
  items: readonly AggregatedStatusItem[],
  context: AggregateContext,
) => KubeObject;

function withStatus(template: KubeObject, status: JsonObject): KubeObject {
  return { ...structuredClone(template), status };
}

interface CounterAggregation {
  counters: readonly string[];
  /** Counters Go serializes even when zero. */
  always: readonly string[];
  /** Whether a member's status reflects the latest template spec. */
  caughtUp: (member: JsonObject, templateGeneration: number) => boolean;
}

/** Member observed its own latest spec, which was built from the latest template. */
const caughtUpWithTemplate = (member: JsonObject, templateGeneration: number): boolean =>
  numberAt(member, "observedGeneration") >= numberAt(member, "generation") &&
  numberAt(member, "resourceTemplateGeneration") >= templateGeneration;

/**
 * Sums the counters over the members. `observedGeneration` (what GitOps tools such as Argo CD
 * judge health by) becomes the template's generation only when every item, including those
 * without a status, is caught up; otherwise the previous value stays. Other status fields
 * (conditions, collisionCount) are kept.
 */
function sumCounters(spec: CounterAggregation): Aggregator {
  return (template, items) => {
    const previous = objectAt(template, "status") ?? {};
    const generation = template.metadata?.generation ?? 0;
    const sums = new Map(spec.counters.map((c) => [c, 0]));
    let caughtUp = 0;
    for (const item of items) {
      if (!item.status) continue;
      if (spec.caughtUp(item.status, generation)) caughtUp++;
      for (const c of spec.counters) sums.set(c, sums.get(c)! + numberAt(item.status, c));
    }
    const observedGeneration =
      caughtUp === items.length ? generation : numberAt(previous, "observedGeneration");
    const unchanged =
      numberAt(previous, "observedGeneration") === observedGeneration &&
      spec.counters.every((c) => numberAt(previous, c) === sums.get(c));
    if (unchanged) return cloneJson(template);
    const status = cloneJson(previous);
    putCount(status, "observedGeneration", observedGeneration);
    for (const c of spec.counters) putCount(status, c, sums.get(c)!, spec.always.includes(c));
    return withStatus(template, status);
  };
}

const aggregateDeploymentStatus = sumCounters({
  counters: ["replicas", "readyReplicas", "updatedReplicas", "availableReplicas", "unavailableReplicas"],
  always: [],
  caughtUp: caughtUpWithTemplate,
});

const aggregateReplicaSetStatus = sumCounters({
  counters: ["replicas", "readyReplicas", "availableReplicas"],
  always: ["replicas"],
  caughtUp: caughtUpWithTemplate,
});

const aggregateDaemonSetStatus = sumCounters({
  counters: [
    "currentNumberScheduled",
    "desiredNumberScheduled",
    "numberAvailable",
    "numberMisscheduled",
    "numberReady",
    "updatedNumberScheduled",
    "numberUnavailable",
  ],
  always: ["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"],
  caughtUp: caughtUpWithTemplate,
});

/**
 * Upstream compares the member's template generation with the member's own generation here, and
 * StatefulSet reflection carries no observedGeneration, so in practice the template's
 * observedGeneration only moves when there are no items at all.
 */
const aggregateStatefulSetStatus = sumCounters({
  counters: ["availableReplicas", "currentReplicas", "readyReplicas", "replicas", "updatedReplicas"],
  always: ["replicas", "availableReplicas"],
  caughtUp: (member) =>
    numberAt(member, "observedGeneration") >= numberAt(member, "generation") &&
    numberAt(member, "resourceTemplateGeneration") >= numberAt(member, "generation"),
});

function reportedIngress(items: readonly AggregatedStatusItem[]): unknown[] {
  return items.flatMap((item) => (item.status ? arrayAt(item.status, "loadBalancer", "ingress") : []));
}

function loadBalancerStatus(ingress: JsonObject[]): JsonObject {
  return { loadBalancer: ingress.length > 0 ? { ingress } : {} };
}

/** Only a LoadBalancer Service has a status to aggregate: every member's ingress points. */
const aggregateServiceStatus: Aggregator = (template, items) => {
  if (stringAt(template, "spec", "type") !== "LoadBalancer") return cloneJson(template);
  return withStatus(template, loadBalancerStatus(mergeServiceIngress(reportedIngress(items))));
};

const aggregateIngressStatus: Aggregator = (template, items) =>
  withStatus(template, loadBalancerStatus(mergeIngressIngress(reportedIngress(items))));

/** The later of two optional timestamps. */
function later(a: string | undefined, b: unknown): string | undefined {
  if (typeof b !== "string" || b === "") return a;
  if (a === undefined) return b;
  return Date.parse(a) < Date.parse(b) ? b : a;
}

/** Every member's active Jobs, and the latest schedule and success. */
const aggregateCronJobStatus: Aggregator = (template, items) => {
  const active: unknown[] = [];
  let lastScheduleTime: string | undefined;
  let lastSuccessfulTime: string | undefined;
  for (const item of items) {
    if (!item.status) continue;
    active.push(...structuredClone(arrayAt(item.status, "active")));
    lastScheduleTime = later(lastScheduleTime, valueAt(item.status, "lastScheduleTime"));
    lastSuccessfulTime = later(lastSuccessfulTime, valueAt(item.status, "lastSuccessfulTime"));
  }
  const status = cloneJson(objectAt(template, "status") ?? {});
  for (const [field, value] of [
    ["active", active.length > 0 ? active : undefined],
    ["lastScheduleTime", lastScheduleTime],
    ["lastSuccessfulTime", lastSuccessfulTime],
  ] as const) {
    if (value === undefined) delete status[field];
    else status[field] = value;
  }
  return withStatus(template, status);
};

/** The first phase of `precedence` some member is in; undefined when none is. */
function pickPhase(phases: ReadonlySet<string>, precedence: readonly string[]): string | undefined {
  return precedence.find((phase) => phases.has(phase));
}

/** What is kept of a container status: readiness and state. */
function reducedContainerStatuses(status: JsonObject, field: string): JsonObject[] {
  return arrayAt(status, field).map((cs) => ({
    ready: valueAt(cs, "ready") === true,
    state: cloneJson(objectAt(cs, "state") ?? {}),
  }));
}

/**
 * A Pod's phase is the worst one across members (Failed, then Pending, Running, Succeeded; a
 * member that has not reported counts as Pending); container statuses are concatenated.
 */
const aggregatePodStatus: Aggregator = (template, items) => {
  // Upstream leaves the Pod untouched when the binding has no aggregated status at all.
  if (items.length === 0) return cloneJson(template);
  const phases = new Set<string>();
  const containerStatuses: JsonObject[] = [];
  const initContainerStatuses: JsonObject[] = [];
  for (const item of items) {
    if (!item.status) {
      phases.add("Pending");
      continue;
    }
    phases.add(stringAt(item.status, "phase"));
    containerStatuses.push(...reducedContainerStatuses(item.status, "containerStatuses"));
    initContainerStatuses.push(...reducedContainerStatuses(item.status, "initContainerStatuses"));
  }
  const status: JsonObject = {};
  const phase = pickPhase(phases, ["Failed", "Pending", "Running", "Succeeded"]);
  if (phase) status.phase = phase;
  if (containerStatuses.length > 0) status.containerStatuses = containerStatuses;
  if (initContainerStatuses.length > 0) status.initContainerStatuses = initContainerStatuses;
  return withStatus(template, status);
};

/** Failed, then Pending (including members that have not reported), Available, Bound, Released. */
const aggregatePersistentVolumeStatus: Aggregator = (template, items) => {
  const phases = new Set(items.map((item) => (item.status ? stringAt(item.status, "phase") : "Pending")));
  const phase = pickPhase(phases, ["Failed", "Pending", "Available", "Bound", "Released"]);
  return withStatus(template, phase ? { phase } : {});
};

/** Bound unless some member says otherwise; Lost wins outright, else the last other phase seen. */
const aggregatePersistentVolumeClaimStatus: Aggregator = (template, items) => {
  let phase = "Bound";
  for (const item of items) {
    if (!item.status) continue;
    const memberPhase = stringAt(item.status, "phase");
    if (memberPhase === "Lost") {
      phase = "Lost";
      break;
    }
    if (memberPhase !== "Bound") phase = memberPhase;
  }
  return withStatus(template, phase !== "" ? { phase } : {});
};

/** Sums the budgets; disrupted pods are keyed `<cluster>/<pod>` so members cannot collide. */
const aggregatePodDisruptionBudgetStatus: Aggregator = (template, items) => {
  const status: JsonObject = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  const disruptedPods: JsonObject = {};
  for (const item of items) {
    if (!item.status) continue;
    for (const field of ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"]) {
      status[field] = (status[field] as number) + numberAt(item.status, field);
    }
    for (const [pod, time] of Object.entries(objectAt(item.status, "disruptedPods") ?? {})) {
      disruptedPods[`${item.clusterName}/${pod}`] = time;
    }
  }
  if (Object.keys(disruptedPods).length > 0) status.disruptedPods = disruptedPods;
  return withStatus(template, status);
};

const aggregateHorizontalPodAutoscalerStatus: Aggregator = (template, items) => {
  let currentReplicas = 0;
  let desiredReplicas = 0;
  for (const item of items) {
    if (!item.status) continue;
    currentReplicas += numberAt(item.status, "currentReplicas");
    desiredReplicas += numberAt(item.status, "desiredReplicas");
  }
  const status: JsonObject = {};
  putCount(status, "currentReplicas", currentReplicas);
  status.desiredReplicas = desiredReplicas;
  return withStatus(template, status);
};

export const AGGREGATORS: Record<string, Aggregator> = {
  [GVK.deployment]: aggregateDeploymentStatus,
  [GVK.replicaSet]: aggregateReplicaSetStatus,
  [GVK.service]: aggregateServiceStatus,
  [GVK.ingress]: aggregateIngressStatus,
  [GVK.job]: (template, items, context) => aggregateJobStatus(template, items, context.now),
  [GVK.cronJob]: aggregateCronJobStatus,
  [GVK.daemonSet]: aggregateDaemonSetStatus,
  [GVK.statefulSet]: aggregateStatefulSetStatus,
  [GVK.pod]: aggregatePodStatus,
  [GVK.persistentVolume]: aggregatePersistentVolumeStatus,
  [GVK.persistentVolumeClaim]: aggregatePersistentVolumeClaimStatus,
  [GVK.podDisruptionBudget]: aggregatePodDisruptionBudgetStatus,
  [GVK.horizontalPodAutoscaler]: aggregateHorizontalPodAutoscalerStatus,
};
