/**
 * The policies page: each (Cluster)PropagationPolicy with its resource selectors, a short
 * reading of its placement, and the workloads it claims (the bindings carrying its claim
 * annotations, as the detector writes them); each (Cluster)OverridePolicy with its selectors,
 * its rules, and the workloads its selectors name.
 */
import type { StoredObject } from "../../api/meta.ts";
import type {
  BindingSpec,
  ClusterAffinity,
  OverrideSpec,
  Placement,
  PropagationSpec,
  ResourceSelector,
} from "../../karmada/types.ts";
import { fromLabelSelector, selectorToString } from "../../machinery/labels.ts";
import type { PolicyKind, PolicyRow } from "../wire.ts";
import { policyOfBinding, workloadKey } from "./workloads.ts";

export function selectorText(s: ResourceSelector): string {
  const where = s.namespace ? `${s.namespace}/` : "";
  let which = s.name ? `${where}${s.name}` : where ? `${where}*` : "";
  if (!s.name && s.labelSelector) {
    let labels: string;
    try {
      labels = selectorToString(fromLabelSelector(s.labelSelector));
    } catch {
      labels = "an invalid label selector";
    }
    which = `${which ? `${which} ` : ""}with labels ${labels || "(any)"}`;
  }
  return `${s.apiVersion} ${s.kind}${which ? ` ${which}` : " (all)"}`;
}

export function affinityText(a: ClusterAffinity | undefined): string {
  if (!a) return "all clusters";
  const parts: string[] = [];
  if (a.clusterNames?.length) parts.push(a.clusterNames.join(", "));
  if (a.labelSelector) {
    try {
      parts.push(`labels ${selectorToString(fromLabelSelector(a.labelSelector))}`);
    } catch {
      parts.push("an invalid label selector");
    }
  }
  for (const r of a.fieldSelector?.matchExpressions ?? []) {
    parts.push(`${r.key} ${r.operator}${r.values?.length ? ` (${r.values.join(", ")})` : ""}`);
  }
  if (a.exclude?.length) parts.push(`except ${a.exclude.join(", ")}`);
  return parts.length ? parts.join("; ") : "all clusters";
}

function replicaText(p: Placement): string | undefined {
  const rs = p.replicaScheduling;
  if (!rs) return undefined;
  if (rs.replicaSchedulingType === "Duplicated") return "Replicas: duplicated (every cluster runs all)";
  if (rs.replicaSchedulingType !== "Divided") return undefined;
  if (rs.replicaDivisionPreference === "Aggregated")
    return "Replicas: divided, aggregated on as few clusters as fit";
  const w = rs.weightPreference;
  if (w?.dynamicWeight) return "Replicas: divided by available replicas (dynamic weight)";
  if (w?.staticWeightList?.length) {
    return `Replicas: divided by static weight ${w.staticWeightList
      .map((s) => `${affinityText(s.targetCluster)}=${s.weight}`)
      .join(", ")}`;
  }
  return "Replicas: divided";
}

function failoverText(failover: Record<string, unknown> | undefined): string[] {
  if (!failover) return [];
  const out: string[] = [];
  const app = failover.application as
    | { decisionConditions?: { tolerationSeconds?: number }; purgeMode?: string; statePreservation?: unknown }
    | undefined;
  if (app) {
    const seconds = app.decisionConditions?.tolerationSeconds ?? 300;
    out.push(
      `Application failover after ${seconds}s unhealthy${app.purgeMode ? `, purge ${app.purgeMode}` : ""}${app.statePreservation ? ", keeps state" : ""}`,
    );
  }
  const cluster = failover.cluster as { purgeMode?: string; statePreservation?: unknown } | undefined;
  if (cluster) {
    out.push(
      `Cluster failover${cluster.purgeMode ? `, purge ${cluster.purgeMode}` : ""}${cluster.statePreservation ? ", keeps state" : ""}`,
    );
  }
  return out;
}

/** A propagation policy's placement in a few short lines. */
export function placementText(spec: PropagationSpec): string[] {
  const p = spec.placement ?? {};
  const lines: string[] = [];
  if (p.clusterAffinities?.length) {
    lines.push(
      `Clusters, first that fits: ${p.clusterAffinities.map((t) => `${t.affinityName} (${affinityText(t)})`).join(" → ")}`,
    );
  } else {
    lines.push(`Clusters: ${affinityText(p.clusterAffinity)}`);
  }
  for (const s of p.spreadConstraints ?? []) {
    const by = s.spreadByField ?? (s.spreadByLabel ? `label ${s.spreadByLabel}` : "cluster");
    lines.push(`Spread by ${by}: ${s.minGroups ?? 1} to ${s.maxGroups ?? "any"}`);
  }
  const replicas = replicaText(p);
  if (replicas) lines.push(replicas);
  lines.push(...failoverText(spec.failover));
  if (spec.propagateDeps) lines.push("Propagates dependencies (ConfigMaps, Secrets ... it uses)");
  if (spec.activationPreference === "Lazy") lines.push("Lazy: changes apply when templates change");
  return lines;
}

function overriderText(o: NonNullable<OverrideSpec["overriders"]>): string {
  return Object.entries(o)
    .filter(([, v]) => Array.isArray(v) && v.length > 0)
    .map(([k, v]) => `${k}${(v as unknown[]).length > 1 ? ` ×${(v as unknown[]).length}` : ""}`)
    .join(", ");
}

/** An override policy's rules, one line each: where, and which overriders. */
export function rulesText(spec: OverrideSpec): string[] {
  const rules = spec.overrideRules?.length
    ? spec.overrideRules
    : spec.overriders
      ? [{ targetCluster: spec.targetCluster, overriders: spec.overriders }]
      : [];
  return rules.map(
    (r) =>
      `${r.targetCluster ? affinityText(r.targetCluster) : "all clusters"}: ${overriderText(r.overriders ?? {}) || "nothing"}`,
  );
}

function keyOf(kind: PolicyKind, obj: StoredObject): string {
  return obj.metadata.namespace
    ? `${kind}/${obj.metadata.namespace}/${obj.metadata.name}`
    : `${kind}/${obj.metadata.name}`;
}

function labelOf(binding: StoredObject): string {
  const r = (binding.spec as BindingSpec | undefined)?.resource;
  return r ? `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}` : binding.metadata.name;
}

/** Whether a selector names the template a binding is for (label selectors cannot be told from the binding). */
function namesBinding(
  s: ResourceSelector,
  binding: StoredObject,
  policyNamespace: string | undefined,
): boolean {
  const r = (binding.spec as BindingSpec | undefined)?.resource;
  if (!r || r.apiVersion !== s.apiVersion || r.kind !== s.kind) return false;
  const namespace = s.namespace ?? policyNamespace;
  if (namespace && namespace !== (r.namespace ?? "")) return false;
  if (s.name) return s.name === r.name;
  return !s.labelSelector;
}

export function propagationPolicyRow(
  kind: "PropagationPolicy" | "ClusterPropagationPolicy",
  obj: StoredObject,
  claimedBy: ReadonlyMap<string, StoredObject[]>,
): PolicyRow {
  const spec = (obj.spec ?? { resourceSelectors: [] }) as PropagationSpec;
  const key = keyOf(kind, obj);
  return {
    key,
    kind,
    ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
    name: obj.metadata.name,
    priority: spec.priority ?? 0,
    ...(spec.preemption ? { preemption: spec.preemption } : {}),
    selectors: (spec.resourceSelectors ?? []).map(selectorText),
    placement: placementText(spec),
    rules: [],
    claims: (claimedBy.get(key) ?? []).map((b) => ({ key: workloadKey(b), label: labelOf(b) })),
  };
}

export function overridePolicyRow(
  kind: "OverridePolicy" | "ClusterOverridePolicy",
  obj: StoredObject,
  bindings: readonly StoredObject[],
): PolicyRow {
  const spec = (obj.spec ?? {}) as OverrideSpec;
  const selectors = spec.resourceSelectors ?? [];
  const ns = obj.metadata.namespace;
  const matched = bindings.filter(
    (b) =>
      (!ns || b.metadata.namespace === ns) &&
      (selectors.length === 0 || selectors.some((s) => namesBinding(s, b, ns))),
  );
  return {
    key: keyOf(kind, obj),
    kind,
    ...(ns ? { namespace: ns } : {}),
    name: obj.metadata.name,
    selectors: selectors.length ? selectors.map(selectorText) : ["every resource"],
    placement: [],
    rules: rulesText(spec),
    claims: matched.map((b) => ({ key: workloadKey(b), label: labelOf(b) })),
  };
}

/** Bindings by the key of the propagation policy row that claims them. */
export function claimsByPolicy(bindings: readonly StoredObject[]): Map<string, StoredObject[]> {
  const out = new Map<string, StoredObject[]>();
  for (const b of bindings) {
    const p = policyOfBinding(b);
    if (!p) continue;
    const key = p.namespace ? `${p.kind}/${p.namespace}/${p.name}` : `${p.kind}/${p.name}`;
    const list = out.get(key) ?? [];
    list.push(b);
    out.set(key, list);
  }
  return out;
}
