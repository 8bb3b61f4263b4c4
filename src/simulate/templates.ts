/**
 * Where resource templates would go (pure, once their replicas are read): for each template,
 * the steps the resource detector and the scheduler would take if it were applied.
 *
 * 1. The detector's filters: reserved and `kube-*` namespaces, templates claimed by another
 *    controller, are not propagated.
 * 2. Its policy, by the detector's own decisions (src/controllers/detector/match.ts and
 *    preemption.ts): a template that exists already keeps the claim its binding records while
 *    that policy still selects it (a preempting policy may take it, gate
 *    PropagationPolicyPreemption); otherwise the best PropagationPolicy of its namespace,
 *    else the best ClusterPropagationPolicy, over the live policies and the given ones
 *    together. A policy waits for its `dependentOverrides`.
 * 3. The binding spec the detector writes (src/controllers/detector/binding.ts), over the
 *    existing binding when there is one (its `spec.clusters` and scheduling status stay).
 * 4. The taint manager's evictions of an existing binding (gate Failover), `needsScheduling`,
 *    and `schedule` against the changed fleet, as the replay does.
 */
import type { StoredObject } from "../api/meta.ts";
import { desiredBindingSpec } from "../controllers/detector/binding.ts";
import { CLAIM_ANNOTATIONS, CLAIM_LABELS, claimOf } from "../controllers/detector/claim.ts";
import {
  bestMatch,
  type Candidate,
  heldClaim,
  missingOverrides,
  type PolicyLookup,
} from "../controllers/detector/match.ts";
import { preemptor } from "../controllers/detector/preemption.ts";
import { SCHEDULER_NAME, schedulable } from "../controllers/scheduler.ts";
import type { Binding } from "../karmada/bindings.ts";
import { bindingName, isReservedNamespace, LABEL } from "../karmada/names.ts";
import type { BindingSpec, ClusterObject, ReplicaRequirements } from "../karmada/types.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { isWorkload } from "../scheduler/core/binding.ts";
import type { BindingSchedulingStatus, ScheduleOptions } from "../scheduler/core/types.ts";
import type { ChangedCluster } from "./changes.ts";
import { reschedule, taintEvictions, withEvictions } from "./replay.ts";
import type { Fleet, Policy, TemplateResult, TemplatesReport } from "./types.ts";

/** A template ready to place: as stored, with what the interpreter read, or why it cannot be. */
export interface PreparedTemplate {
  source: string;
  object: StoredObject;
  /** The interpreter's InterpretReplica; undefined for kinds without replicas. */
  replicas?: { replicas: number; requirements?: ReplicaRequirements };
  /** Why no binding would be written at all (a kind the control plane does not serve, the interpreter fails). */
  failure?: string;
  warnings?: string[];
}

export interface PlacementFleet {
  /** Live and given policies together (a given one replaces the live one of its name). */
  propagationPolicies: readonly Policy[];
  clusterPropagationPolicies: readonly Policy[];
  overridePolicies: readonly StoredObject[];
  clusterOverridePolicies: readonly StoredObject[];
  /** The given policies (to say where the winner came from). */
  fromFiles: ReadonlySet<StoredObject>;
  resourceBindings: Fleet["resourceBindings"];
  clusterResourceBindings: Fleet["clusterResourceBindings"];
  /** After the changes. */
  clusters: readonly ClusterObject[];
  changed: readonly ChangedCluster[];
}

export interface PlacementOptions {
  now: number;
  failover: boolean;
  preemption: boolean;
  schedule?: ScheduleOptions;
}

/** `--skipped-propagating-namespaces` default, as the detector's. */
const SKIPPED_NAMESPACES = /^kube-.*$/;

export function policyLookup(fleet: PlacementFleet): PolicyLookup {
  return {
    propagationPolicy: (ns, name) =>
      fleet.propagationPolicies.find((p) => p.metadata.namespace === ns && p.metadata.name === name),
    clusterPropagationPolicy: (name) =>
      fleet.clusterPropagationPolicies.find((p) => p.metadata.name === name),
    propagationPolicies: (ns) => fleet.propagationPolicies.filter((p) => p.metadata.namespace === ns),
    clusterPropagationPolicies: () => [...fleet.clusterPropagationPolicies],
    overridePolicyExists: (ns, name) =>
      fleet.overridePolicies.some((p) => p.metadata.namespace === ns && p.metadata.name === name),
    clusterOverridePolicyExists: (name) =>
      fleet.clusterOverridePolicies.some((p) => p.metadata.name === name),
  };
}

/** The binding the detector keeps for the template, when it exists already. */
function existingBinding(template: StoredObject, fleet: PlacementFleet): Binding | undefined {
  const name = bindingName(template.kind, template.metadata.name);
  const ns = template.metadata.namespace;
  const list = ns ? fleet.resourceBindings : fleet.clusterResourceBindings;
  return list.find(
    (b) =>
      b.metadata.name === name &&
      (b.metadata.namespace ?? "") === (ns ?? "") &&
      b.spec.resource?.kind === template.kind &&
      b.spec.resource?.name === template.metadata.name,
  );
}

/** The template carrying the claim its binding records (a template's claim is mirrored on its binding). */
function withClaimOf(template: StoredObject, binding: Binding | undefined): StoredObject {
  if (!binding) return template;
  const out = cloneJson(template);
  const pick = (from: Record<string, string> | undefined, keys: readonly string[]) =>
    Object.fromEntries(keys.flatMap((k) => (from?.[k] !== undefined ? [[k, from[k]!]] : [])));
  out.metadata.labels = { ...out.metadata.labels, ...pick(binding.metadata.labels, CLAIM_LABELS) };
  out.metadata.annotations = {
    ...out.metadata.annotations,
    ...pick(binding.metadata.annotations, CLAIM_ANNOTATIONS),
  };
  return out;
}

/** The policy the detector would apply, or why none. */
function choosePolicy(
  template: StoredObject,
  policies: PolicyLookup,
  preemption: boolean,
): { winner: Candidate } | { reason: string } {
  const held = heldClaim(template, policies);
  if (held.state === "deleting") return { reason: `waiting: ${held.reason}` };
  if (held.state === "held") {
    const winner = preemption ? preemptor(template, held.claimer, policies) : undefined;
    return { winner: winner ?? held.claimer };
  }
  const winner = bestMatch(template, policies);
  return winner ? { winner } : { reason: "no PropagationPolicy or ClusterPropagationPolicy selects it" };
}

function policyOf(c: Candidate, fleet: PlacementFleet): NonNullable<TemplateResult["policy"]> {
  return {
    kind: c.clusterScoped ? "ClusterPropagationPolicy" : "PropagationPolicy",
    ...(c.policy.metadata.namespace ? { namespace: c.policy.metadata.namespace } : {}),
    name: c.policy.metadata.name,
    fromFile: fleet.fromFiles.has(c.policy),
  };
}

/** The binding spec the detector would write: its fields over the existing spec, as `updatedBinding`. */
function bindingSpec(
  template: StoredObject,
  policy: Policy,
  replicas: PreparedTemplate["replicas"],
  existing: Binding | undefined,
): BindingSpec {
  const desired = desiredBindingSpec(template, policy, replicas);
  const spec: Record<string, unknown> = { ...(existing?.spec ?? {}) };
  for (const [key, value] of Object.entries(desired)) {
    if (value === undefined) delete spec[key];
    else spec[key] = value;
  }
  return spec as unknown as BindingSpec;
}

/** Why the detector would write no binding for the template (the filters before policy matching), if so. */
function skipped(object: StoredObject): string | undefined {
  const ns = object.metadata.namespace;
  if (ns !== undefined && (isReservedNamespace(ns) || SKIPPED_NAMESPACES.test(ns))) {
    return `namespace ${ns} is not propagated by Karmada`;
  }
  const claimedBy = object.metadata.labels?.[LABEL.claimedBy];
  return claimedBy ? `claimed by ${claimedBy} (label ${LABEL.claimedBy})` : undefined;
}

/** The binding the detector would write for the template claimed by `winner` (over the existing one). */
function detectedBinding(
  t: PreparedTemplate,
  template: StoredObject,
  winner: Candidate,
  existing: Binding | undefined,
): Binding {
  const ns = template.metadata.namespace;
  const name = bindingName(template.kind, template.metadata.name);
  const claim = claimOf(winner);
  return {
    ...(existing ?? {}),
    apiVersion: "work.karmada.io/v1alpha2",
    kind: ns ? "ResourceBinding" : "ClusterResourceBinding",
    metadata: {
      ...(existing?.metadata ?? { name, uid: "", ...(ns ? { namespace: ns } : {}) }),
      labels: { ...existing?.metadata.labels, ...claim.labels },
      annotations: { ...existing?.metadata.annotations, ...claim.annotations },
    },
    spec: bindingSpec(template, winner.policy, t.replicas, existing),
  };
}

/** Why the scheduler would not take the binding: another scheduler's, or suspended. */
function notScheduledBy(binding: Binding): string {
  const scheduler = binding.spec.schedulerName || SCHEDULER_NAME;
  return scheduler !== SCHEDULER_NAME
    ? `left to scheduler ${scheduler} (only ${SCHEDULER_NAME} is simulated)`
    : "scheduling is suspended (spec.suspension.scheduling)";
}

export function placeTemplate(
  t: PreparedTemplate,
  fleet: PlacementFleet,
  policies: PolicyLookup,
  options: PlacementOptions,
): TemplateResult {
  const { object } = t;
  const ns = object.metadata.namespace;
  const result: TemplateResult = {
    source: t.source,
    apiVersion: object.apiVersion,
    kind: object.kind,
    ...(ns ? { namespace: ns } : {}),
    name: object.metadata.name,
    outcome: "NotPropagated",
    placement: [],
    clusters: [],
    ...(t.warnings?.length ? { warnings: [...t.warnings] } : {}),
  };
  const notPropagated = (message: string): TemplateResult => ({ ...result, message });
  const skip = t.failure ?? skipped(object);
  if (skip) return notPropagated(skip);

  const existing = existingBinding(object, fleet);
  const template = withClaimOf(object, existing);
  const choice = choosePolicy(template, policies, options.preemption);
  if ("reason" in choice) return notPropagated(choice.reason);
  result.policy = policyOf(choice.winner, fleet);
  const missing = missingOverrides(choice.winner, policies);
  if (missing.length > 0) return notPropagated(`waiting for dependent overrides: ${missing.join(", ")}`);

  const binding = detectedBinding(t, template, choice.winner, existing);
  result.binding = {
    kind: ns ? "ResourceBinding" : "ClusterResourceBinding",
    ...(ns ? { namespace: ns } : {}),
    name: binding.metadata.name,
    exists: existing !== undefined,
  };
  result.workload = isWorkload(binding.spec);
  if (result.workload) result.replicas = binding.spec.replicas ?? 0;
  if (!schedulable(binding)) return notPropagated(notScheduledBy(binding));

  const evictions = existing && options.failover ? taintEvictions(binding, fleet.changed, options.now) : [];
  const spec = withEvictions(binding.spec, evictions);
  const status = (existing?.status ?? {}) as BindingSchedulingStatus;
  const next = reschedule({ metadata: binding.metadata, spec, status }, fleet.clusters, options.schedule);
  result.placement = next.clusters;
  if (!next.trigger) {
    return {
      ...result,
      outcome: "Unchanged",
      message: "exists and would not be rescheduled: neither its placement nor its replicas change",
    };
  }
  result.trigger = next.trigger;
  if (next.explanation) result.explanation = next.explanation;
  const attempts = next.explanation?.attempts ?? [];
  if (next.failure) {
    result.outcome = "Unschedulable";
    result.message = next.failure.message;
    result.failure = next.failure;
    // The error reported is the first term's.
    result.clusters = attempts[0]?.clusters ?? [];
  } else {
    result.outcome = "Scheduled";
    result.clusters = attempts.at(-1)?.clusters ?? [];
  }
  return result;
}

export function placeTemplates(
  templates: readonly PreparedTemplate[],
  fleet: PlacementFleet,
  options: PlacementOptions,
): TemplatesReport {
  const policies = policyLookup(fleet);
  const results = templates.map((t) => placeTemplate(t, fleet, policies, options));
  const count = (o: TemplateResult["outcome"]) => results.filter((r) => r.outcome === o).length;
  return {
    results,
    summary: {
      templates: results.length,
      scheduled: count("Scheduled"),
      unchanged: count("Unchanged"),
      unschedulable: count("Unschedulable"),
      notPropagated: count("NotPropagated"),
    },
  };
}
