/**
 * Each page's live view: which sources it reads (with the user's rights) and how its rows are
 * computed from them by the pure functions in views/. Rows of unchanged objects are memoised
 * by object identity (the informer replaces an object when it changes), so a change to one of
 * 1,000 bindings costs one row.
 */
import YAML from "yaml";
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES, type ResourceRef } from "../client/client.ts";
import { ANNOTATION, clusterOfExecutionSpace, LABEL } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { AggregatedStatusItem, BindingSpec, PropagationSpec } from "../karmada/types.ts";
import { withoutManagedFields } from "../runtime/informer.ts";
import type { LiveView, ViewState } from "./live.ts";
import { problemOf, type Source, type SourceSet, type SourceSpec } from "./sources.ts";
import { clustersMeta, clusterTile, workloadsPerCluster } from "./views/clusters.ts";
import { claimsByPolicy, overridePolicyRow, placementText, propagationPolicyRow } from "./views/policies.ts";
import {
  applicationOrder,
  manifestProvenance,
  type OverridePolicyLike,
  parseApplied,
} from "./views/provenance.ts";
import { schedulingOf } from "./views/scheduling.ts";
import {
  compactEvent,
  type EventLike,
  evictionTaskView,
  timeline,
  workloadEvents,
} from "./views/timeline.ts";
import { parseWorkloadKey, policyOfBinding, workloadRow, workloadsMeta } from "./views/workloads.ts";
import type {
  ClustersMeta,
  ClusterTile,
  ConditionView,
  MemberView,
  PoliciesMeta,
  PolicyRow,
  Problem,
  TimelineEntry,
  TimelineMeta,
  WorkloadDetail,
  WorkloadRow,
  WorkloadsMeta,
} from "./wire.ts";

/** What a page's view is given: the user's sources and client. */
export interface PageContext {
  sources: SourceSet;
  client: Client;
}

// ---- sources --------------------------------------------------------------------------------

const BIG_ANNOTATIONS = [
  "scheduler.karmada-ts.io/explanation",
  ANNOTATION.appliedPlacement,
  "kubectl.kubernetes.io/last-applied-configuration",
];

/**
 * A binding as lists need it: no managed fields, no explanation or applied placement (the
 * workload page reads those from its own copy), and of each cluster's reflected status only
 * the replica counts.
 */
export function compactBinding(obj: StoredObject): StoredObject {
  const metadata = { ...obj.metadata };
  delete metadata.managedFields;
  if (metadata.annotations && BIG_ANNOTATIONS.some((a) => a in metadata.annotations!)) {
    const annotations = { ...metadata.annotations };
    for (const a of BIG_ANNOTATIONS) delete annotations[a];
    metadata.annotations = annotations;
  }
  const status = obj.status as { aggregatedStatus?: AggregatedStatusItem[] } | undefined;
  const compactStatus = status?.aggregatedStatus
    ? {
        ...status,
        aggregatedStatus: status.aggregatedStatus.map((i) => {
          const s = i.status;
          const counts = s
            ? Object.fromEntries(
                ["replicas", "readyReplicas", "availableReplicas"]
                  .filter((k) => k in s)
                  .map((k) => [k, s[k]]),
              )
            : undefined;
          return { ...i, ...(counts ? { status: counts } : {}) };
        }),
      }
    : obj.status;
  return { ...obj, metadata, ...(compactStatus !== undefined ? { status: compactStatus } : {}) };
}

export const SOURCES = {
  clusters: (): SourceSpec => ({
    resource: RESOURCES.clusters,
    transform: withoutManagedFields,
    shape: "lean",
  }),
  bindings: (namespace?: string): SourceSpec => ({
    resource: KARMADA.resourceBindings,
    ...(namespace ? { namespace } : {}),
    transform: compactBinding,
    shape: "compact",
  }),
  clusterBindings: (): SourceSpec => ({
    resource: KARMADA.clusterResourceBindings,
    transform: compactBinding,
    shape: "compact",
  }),
  propagationPolicies: (namespace?: string): SourceSpec => ({
    resource: KARMADA.propagationPolicies,
    ...(namespace ? { namespace } : {}),
    transform: withoutManagedFields,
    shape: "lean",
  }),
  clusterPropagationPolicies: (): SourceSpec => ({
    resource: KARMADA.clusterPropagationPolicies,
    transform: withoutManagedFields,
    shape: "lean",
  }),
  overridePolicies: (namespace?: string): SourceSpec => ({
    resource: KARMADA.overridePolicies,
    ...(namespace ? { namespace } : {}),
    transform: withoutManagedFields,
    shape: "lean",
  }),
  clusterOverridePolicies: (): SourceSpec => ({
    resource: KARMADA.clusterOverridePolicies,
    transform: withoutManagedFields,
    shape: "lean",
  }),
  events: (namespace?: string): SourceSpec => ({
    resource: RESOURCES.events,
    ...(namespace ? { namespace } : {}),
    transform: compactEvent,
    shape: "compact",
  }),
};

/** Sources a view holds: acquired at start, released at stop, each change reported. */
class Held {
  #ctx: PageContext;
  #held: Array<{ source: Source; unsubscribe: () => void }> = [];
  #changed: () => void = () => {};

  constructor(ctx: PageContext) {
    this.#ctx = ctx;
  }

  onChange(changed: () => void): void {
    this.#changed = changed;
  }

  add(spec: SourceSpec): Source {
    const source = this.#ctx.sources.acquire(spec);
    this.#held.push({ source, unsubscribe: source.subscribe(() => this.#changed()) });
    return source;
  }

  drop(source: Source): void {
    const i = this.#held.findIndex((h) => h.source === source);
    if (i < 0) return;
    this.#held[i]!.unsubscribe();
    this.#held.splice(i, 1);
    this.#ctx.sources.release(source);
  }

  stop(): void {
    for (const h of this.#held) {
      h.unsubscribe();
      this.#ctx.sources.release(h.source);
    }
    this.#held = [];
  }
}

function problemsOf(...sources: Array<Source | undefined>): Problem[] {
  return sources.flatMap((s) => (s?.problem ? [s.problem] : []));
}

function settled(...sources: Array<Source | undefined>): boolean {
  return sources.every((s) => !s || s.settled);
}

/** Memoises a function of an object by the object's identity. */
function memo<R>(fn: (obj: StoredObject) => R): (obj: StoredObject) => R {
  const cache = new WeakMap<StoredObject, R>();
  return (obj) => {
    let r = cache.get(obj);
    if (r === undefined) {
      r = fn(obj);
      cache.set(obj, r);
    }
    return r;
  };
}

// ---- Clusters -------------------------------------------------------------------------------

export function clustersView(
  ctx: PageContext,
): LiveView<ClusterTile, ClustersMeta & { workloadsKnown: boolean }> {
  const held = new Held(ctx);
  let clusters: Source;
  let rbs: Source;
  let crbs: Source;
  return {
    start(changed) {
      held.onChange(changed);
      clusters = held.add(SOURCES.clusters());
      rbs = held.add(SOURCES.bindings());
      crbs = held.add(SOURCES.clusterBindings());
    },
    compute() {
      const known = rbs.synced && crbs.synced;
      const counts = workloadsPerCluster(known ? [...rbs.list(), ...crbs.list()] : []);
      const rows = clusters
        .list()
        .map((c) => clusterTile(c, counts))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      // Binding counts are extra: only the clusters themselves are a problem worth a banner.
      return {
        rows,
        meta: { ...clustersMeta(rows), workloadsKnown: known },
        problems: problemsOf(clusters),
        synced: clusters.settled,
      };
    },
    stop: () => held.stop(),
  };
}

// ---- Workloads ------------------------------------------------------------------------------

const rowOf = memo(workloadRow);

function bindingSources(held: Held, namespace: string | undefined): Source[] {
  return namespace
    ? [held.add(SOURCES.bindings(namespace))]
    : [held.add(SOURCES.bindings()), held.add(SOURCES.clusterBindings())];
}

export function workloadsView(
  ctx: PageContext,
  namespace: string | undefined,
): LiveView<WorkloadRow, WorkloadsMeta> {
  const held = new Held(ctx);
  let sources: Source[] = [];
  return {
    start(changed) {
      held.onChange(changed);
      sources = bindingSources(held, namespace);
    },
    compute() {
      const rows = sources.flatMap((s) => s.list().map(rowOf));
      return {
        rows,
        meta: workloadsMeta(rows),
        problems: problemsOf(...sources),
        synced: settled(...sources),
      };
    },
    stop: () => held.stop(),
  };
}

// ---- Policies -------------------------------------------------------------------------------

export function policiesView(
  ctx: PageContext,
  namespace: string | undefined,
): LiveView<PolicyRow, PoliciesMeta> {
  const held = new Held(ctx);
  let pps: Source;
  let ops: Source;
  let cpps: Source | undefined;
  let cops: Source | undefined;
  let bindings: Source[] = [];
  return {
    start(changed) {
      held.onChange(changed);
      pps = held.add(SOURCES.propagationPolicies(namespace));
      ops = held.add(SOURCES.overridePolicies(namespace));
      if (!namespace) {
        cpps = held.add(SOURCES.clusterPropagationPolicies());
        cops = held.add(SOURCES.clusterOverridePolicies());
      }
      bindings = bindingSources(held, namespace);
    },
    compute() {
      const all = bindings.flatMap((s) => s.list());
      const claims = claimsByPolicy(all);
      const byName = (a: PolicyRow, b: PolicyRow): number =>
        `${a.namespace ?? ""}/${a.name}` < `${b.namespace ?? ""}/${b.name}` ? -1 : 1;
      const propagation = [
        ...(cpps?.list() ?? []).map((p) => propagationPolicyRow("ClusterPropagationPolicy", p, claims)),
        ...pps.list().map((p) => propagationPolicyRow("PropagationPolicy", p, claims)),
      ].sort(byName);
      const override = [
        ...(cops?.list() ?? []).map((p) => overridePolicyRow("ClusterOverridePolicy", p, all)),
        ...ops.list().map((p) => overridePolicyRow("OverridePolicy", p, all)),
      ].sort(byName);
      return {
        rows: [...propagation, ...override],
        meta: { propagation: propagation.length, override: override.length },
        problems: problemsOf(pps, ops, cpps, cops, ...bindings),
        synced: settled(pps, ops, cpps, cops, ...bindings),
      };
    },
    stop: () => held.stop(),
  };
}

// ---- Failover timeline ----------------------------------------------------------------------

export function timelineView(
  ctx: PageContext,
  namespace: string | undefined,
): LiveView<TimelineEntry, TimelineMeta> {
  const held = new Held(ctx);
  let events: Source;
  let clusters: Source;
  let bindings: Source[] = [];
  return {
    start(changed) {
      held.onChange(changed);
      events = held.add(SOURCES.events(namespace));
      clusters = held.add(SOURCES.clusters());
      bindings = bindingSources(held, namespace);
    },
    compute() {
      const { entries, total } = timeline({
        events: events.list() as unknown as EventLike[],
        clusters: clusters.list(),
        bindings: bindings.flatMap((s) => s.list()),
      });
      const names = new Set<string>();
      for (const c of clusters.list()) names.add(c.metadata.name);
      for (const e of entries) if (e.cluster) names.add(e.cluster);
      return {
        rows: entries,
        meta: { total, clusters: [...names].sort() },
        problems: problemsOf(events, clusters, ...bindings),
        synced: settled(events, clusters, ...bindings),
      };
    },
    stop: () => held.stop(),
  };
}

// ---- One workload ---------------------------------------------------------------------------

function conditionsOf(obj: StoredObject): ConditionView[] {
  const status = (obj.status ?? {}) as { conditions?: ConditionView[] };
  return (status.conditions ?? []).map((c) => ({
    type: c.type,
    status: c.status,
    ...(c.reason ? { reason: c.reason } : {}),
    ...(c.message ? { message: c.message } : {}),
    ...(c.lastTransitionTime ? { lastTransitionTime: c.lastTransitionTime } : {}),
  }));
}

/** The manifest of the Work that is the template (not a dependency riding along). */
function manifestOf(work: StoredObject, r: BindingSpec["resource"]): KubeObject | undefined {
  const manifests = ((work.spec as { workload?: { manifests?: KubeObject[] } } | undefined)?.workload
    ?.manifests ?? []) as KubeObject[];
  return manifests.find((m) => m.kind === r.kind && m.metadata?.name === r.name) ?? manifests[0];
}

/** The labels the last eviction task relays to the new copy (stateful failover). */
function relayedLabels(spec: BindingSpec): Record<string, string> {
  const tasks = spec.gracefulEvictionTasks ?? [];
  return tasks.at(-1)?.preservedLabelState ?? {};
}

export interface MemberInput {
  binding: StoredObject;
  work: StoredObject;
  template: StoredObject | undefined;
  /** Why the template is not there, when it is not. */
  templateProblem?: string;
  overridePolicies: readonly OverridePolicyLike[];
  clusterOverridePolicies: readonly OverridePolicyLike[];
}

/** One member's manifest, its status, and the provenance of each changed field. */
export function memberView(input: MemberInput): MemberView {
  const { binding, work } = input;
  const spec = binding.spec as BindingSpec;
  const cluster = clusterOfExecutionSpace(work.metadata.namespace) ?? work.metadata.namespace ?? "";
  const item = (
    (binding.status as { aggregatedStatus?: AggregatedStatusItem[] } | undefined)?.aggregatedStatus ?? []
  ).find((i) => i.clusterName === cluster);
  const manifest = manifestOf(work, spec.resource);
  const view: MemberView = {
    cluster,
    workNamespace: work.metadata.namespace ?? "",
    workName: work.metadata.name,
    yaml: manifest ? YAML.stringify(manifest, { lineWidth: 0 }) : "",
    provenance: [],
    suspended: (work.spec as { suspendDispatching?: boolean } | undefined)?.suspendDispatching === true,
    ...(item?.applied !== undefined ? { applied: item.applied } : {}),
    ...(item?.appliedMessage ? { appliedMessage: item.appliedMessage } : {}),
    ...(item?.health ? { health: item.health } : {}),
  };
  if (!manifest) return { ...view, provenanceNote: "The Work holds no manifest." };
  if (!input.template) {
    return {
      ...view,
      provenanceNote: `The resource template cannot be read${input.templateProblem ? ` (${input.templateProblem})` : ""}, so the changes cannot be traced.`,
    };
  }
  const annotations = work.metadata.annotations ?? {};
  const assigned = (spec.clusters ?? []).find((c) => c.name === cluster)?.replicas;
  const result = manifestProvenance({
    template: input.template,
    manifest,
    clusterOverrides: applicationOrder(
      parseApplied(annotations[ANNOTATION.appliedClusterOverrides]),
      input.template,
      input.clusterOverridePolicies,
    ),
    overrides: applicationOrder(
      parseApplied(annotations[ANNOTATION.appliedOverrides]),
      input.template,
      input.overridePolicies,
    ),
    ...(assigned !== undefined && (spec.replicas ?? 0) > 0 ? { assignedReplicas: assigned } : {}),
    injectedLabels: relayedLabels(spec),
  });
  return { ...view, provenance: result.changes, ...(result.note ? { provenanceNote: result.note } : {}) };
}

const ONE = (name: string): string => `metadata.name=${name}`;

/** What the workload page reads besides the shared sources: the template, its Works, its policy. */
export interface WorkloadInputs {
  binding: StoredObject;
  works: readonly StoredObject[];
  worksProblem?: string;
  template: StoredObject | undefined;
  templateProblem?: string;
  policy: StoredObject | undefined;
  events: readonly EventLike[];
  overridePolicies: readonly OverridePolicyLike[];
  clusterOverridePolicies: readonly OverridePolicyLike[];
}

/** The workload page's one row, from what was read. */
export function workloadDetail(input: WorkloadInputs): WorkloadDetail {
  const obj = input.binding;
  const spec = obj.spec as BindingSpec;
  const row = workloadRow(obj);
  const members = input.works
    .filter((w) => !w.metadata.deletionTimestamp)
    .map((work) =>
      memberView({
        binding: obj,
        work,
        template: input.template,
        ...(input.templateProblem ? { templateProblem: input.templateProblem } : {}),
        overridePolicies: input.overridePolicies,
        clusterOverridePolicies: input.clusterOverridePolicies,
      }),
    )
    .sort((a, b) => (a.cluster < b.cluster ? -1 : 1));
  const p = row.policy;
  const pol = input.policy;
  const scheduling = schedulingOf(obj.metadata.annotations);
  return {
    key: "detail",
    row,
    ...(p
      ? {
          policy: {
            ...p,
            found: !!pol,
            summary: pol ? placementText((pol.spec ?? { resourceSelectors: [] }) as PropagationSpec) : [],
          },
        }
      : {}),
    scheduling: scheduling.attempts,
    schedulingText: scheduling.text,
    conditions: conditionsOf(obj),
    members,
    ...(input.worksProblem ? { membersNote: `The Works cannot be read: ${input.worksProblem}` } : {}),
    evictionTasks: (spec.gracefulEvictionTasks ?? []).map(evictionTaskView),
    events: workloadEvents(input.events, obj),
  };
}

/**
 * One workload's sources: its binding (by name), the namespace's events and override policies
 * from the start; its Works (by the binding's permanent id), its template (found by discovery)
 * and its policy once the binding is known, followed when they change.
 */
class WorkloadSources {
  readonly held: Held;
  readonly #ctx: PageContext;
  readonly #clusterScoped: boolean;
  binding: Source | undefined;
  events: Source | undefined;
  ops: Source | undefined;
  cops: Source | undefined;
  works: Source | undefined;
  template: Source | undefined;
  templateProblem: string | undefined;
  policy: Source | undefined;
  #for = { works: "", template: "", policy: "" };
  #changed: () => void = () => {};

  constructor(ctx: PageContext, clusterScoped: boolean) {
    this.#ctx = ctx;
    this.held = new Held(ctx);
    this.#clusterScoped = clusterScoped;
  }

  start(ref: { namespace?: string; name: string }, changed: () => void): void {
    this.#changed = changed;
    this.held.onChange(changed);
    this.binding = this.held.add({
      resource: this.#clusterScoped ? KARMADA.clusterResourceBindings : KARMADA.resourceBindings,
      ...(ref.namespace ? { namespace: ref.namespace } : {}),
      fieldSelector: ONE(ref.name),
      transform: withoutManagedFields,
      shape: "lean",
    });
    this.events = this.held.add(SOURCES.events(ref.namespace ?? "default"));
    this.ops = ref.namespace ? this.held.add(SOURCES.overridePolicies(ref.namespace)) : undefined;
    this.cops = this.held.add(SOURCES.clusterOverridePolicies());
  }

  /** Follows what the binding names; a no-op when nothing changed. */
  follow(obj: StoredObject): void {
    this.#followWorks(obj);
    this.#followTemplate((obj.spec as BindingSpec).resource);
    this.#followPolicy(obj);
  }

  #followWorks(obj: StoredObject): void {
    const label = this.#clusterScoped ? LABEL.crbPermanentId : LABEL.rbPermanentId;
    const id = obj.metadata.labels?.[label] ?? "";
    if (!id || id === this.#for.works) return;
    this.#for.works = id;
    if (this.works) this.held.drop(this.works);
    this.works = this.held.add({ resource: KARMADA.works, labelSelector: `${label}=${id}` });
  }

  #followTemplate(r: BindingSpec["resource"]): void {
    const want = `${r.apiVersion}|${r.kind}|${r.namespace ?? ""}|${r.name}`;
    if (!r.kind || want === this.#for.template) return;
    this.#for.template = want;
    if (this.template) this.held.drop(this.template);
    this.template = undefined;
    this.templateProblem = undefined;
    this.#ctx.client.resourceFor(r.apiVersion, r.kind).then(
      (resource: ResourceRef) => {
        if (this.#for.template !== want) return;
        this.template = this.held.add({
          resource,
          ...(r.namespace ? { namespace: r.namespace } : {}),
          fieldSelector: ONE(r.name),
        });
        this.#changed();
      },
      (err: unknown) => {
        if (this.#for.template !== want) return;
        const kind = { group: "", version: "", resource: r.kind, namespaced: false };
        this.templateProblem = problemOf({ resource: kind }, err).message;
        this.#changed();
      },
    );
  }

  #followPolicy(obj: StoredObject): void {
    const p = policyOfBinding(obj);
    const key = p ? `${p.kind}|${p.namespace ?? ""}|${p.name}` : "";
    if (key === this.#for.policy) return;
    this.#for.policy = key;
    if (this.policy) this.held.drop(this.policy);
    this.policy = p
      ? this.held.add({
          resource:
            p.kind === "PropagationPolicy" ? KARMADA.propagationPolicies : KARMADA.clusterPropagationPolicies,
          ...(p.namespace ? { namespace: p.namespace } : {}),
          fieldSelector: ONE(p.name),
        })
      : undefined;
  }

  /** Why the template is not there, when it is not. */
  templateWhy(): string | undefined {
    if (this.templateProblem) return this.templateProblem;
    if (!this.template) return "still looking it up";
    if (this.template.problem) return this.template.problem.message;
    return this.template.synced && this.template.list().length === 0 ? "it is gone" : undefined;
  }

  inputs(obj: StoredObject): WorkloadInputs {
    const why = this.templateWhy();
    return {
      binding: obj,
      works: this.works?.list() ?? [],
      ...(this.works?.problem ? { worksProblem: this.works.problem.message } : {}),
      template: this.template?.list()[0],
      ...(why ? { templateProblem: why } : {}),
      policy: this.policy?.list()[0],
      events: (this.events?.list() ?? []) as unknown as EventLike[],
      overridePolicies: (this.ops?.list() ?? []) as OverridePolicyLike[],
      clusterOverridePolicies: (this.cops?.list() ?? []) as OverridePolicyLike[],
    };
  }
}

export function workloadView(ctx: PageContext, key: string): LiveView<WorkloadDetail, { found: boolean }> {
  const ref = parseWorkloadKey(key);
  const sources = new WorkloadSources(ctx, ref?.namespace === undefined);
  return {
    start(changed) {
      if (ref) sources.start(ref, changed);
    },
    compute(): ViewState<WorkloadDetail, { found: boolean }> {
      if (!ref) {
        const message = `"${key}" does not name a binding`;
        return {
          rows: [],
          meta: { found: false },
          problems: [{ resource: "workload", code: 400, reason: "BadRequest", message }],
          synced: true,
        };
      }
      const obj = sources.binding?.list()[0];
      if (!obj) {
        return {
          rows: [],
          meta: { found: false },
          problems: problemsOf(sources.binding),
          synced: settled(sources.binding),
        };
      }
      sources.follow(obj);
      return {
        rows: [workloadDetail(sources.inputs(obj))],
        meta: { found: true },
        problems: problemsOf(sources.binding),
        synced: settled(sources.binding, sources.works, sources.template, sources.policy),
      };
    },
    stop: () => sources.held.stop(),
  };
}
