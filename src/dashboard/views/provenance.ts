/**
 * Provenance of a member's manifest: which override policy, and which overrider in it, changed
 * which field. The Work records the overriders it applied (the `policy.karmada.io/applied-
 * overrides` and `applied-cluster-overrides` annotations); we start from the resource template,
 * pruned as the binding controller prunes it, give it the replicas the scheduler assigned, then
 * re-apply the recorded overriders one kind at a time in upstream's order with the override
 * engine itself (src/overrides), diffing after each step. What still differs from the Work's
 * manifest afterwards is reported too (state relayed by failover, or a template changed since
 * the Work was written), apart from Karmada's own bookkeeping labels and annotations.
 */
import type { KubeObject } from "../../api/meta.ts";
import { prune } from "../../interpreter/native/prune.ts";
import type { Overriders, ResourceSelector } from "../../karmada/types.ts";
import { deepEqual } from "../../machinery/equality.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { applyOverriders } from "../../overrides/apply.ts";
import { implicitPriority } from "../../policy/resource-selector.ts";
import type { ProvenanceChange } from "../wire.ts";

export type JsonPath = Array<string | number>;

export interface JsonChange {
  path: JsonPath;
  op: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The leaf differences from `a` to `b`: objects key by key (a map that appears or goes is
 * reported key by key), arrays index by index, anything else as one value.
 */
export function diffJson(a: unknown, b: unknown, path: JsonPath = []): JsonChange[] {
  if (deepEqual(a, b)) return [];
  if (a === undefined && isPlainObject(b) && Object.keys(b).length > 0) return diffJson({}, b, path);
  if (b === undefined && isPlainObject(a) && Object.keys(a).length > 0) return diffJson(a, {}, path);
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.hasOwn(a, k))];
    return keys.flatMap((k) => diffJson(a[k], b[k], [...path, k]));
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const out: JsonChange[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) out.push(...diffJson(a[i], b[i], [...path, i]));
    return out;
  }
  if (a === undefined) return [{ path, op: "added", after: b }];
  if (b === undefined) return [{ path, op: "removed", before: a }];
  return [{ path, op: "changed", before: a, after: b }];
}

/** `spec.template.spec.containers[0].image`, `metadata.labels["app.kubernetes.io/name"]`. */
export function formatPath(path: JsonPath): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}

const MAX_VALUE = 160;

/** A value in a few characters: strings as they are, the rest as compact JSON, cut short when long. */
export function shortValue(v: unknown): string {
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/** One entry of an applied-overrides annotation. */
export interface AppliedRecord {
  policyName: string;
  overriders: Overriders;
}

/** The entries of an applied-overrides annotation; [] when absent or unreadable. */
export function parseApplied(annotation: string | undefined): AppliedRecord[] {
  if (!annotation) return [];
  try {
    const parsed = JSON.parse(annotation) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (e): e is AppliedRecord =>
        isPlainObject(e) && typeof e.policyName === "string" && isPlainObject(e.overriders),
    );
  } catch {
    return [];
  }
}

/** Override policies as far as ordering needs them. */
export interface OverridePolicyLike {
  metadata: { name?: string; namespace?: string };
  spec?: { resourceSelectors?: ResourceSelector[] };
}

/**
 * The records in the order they were applied: the annotation sorts them by policy name, the
 * override engine applies them by implicit priority, then name (entries of one policy keep
 * their order). A policy we cannot see counts as the lowest priority.
 */
export function applicationOrder(
  records: readonly AppliedRecord[],
  template: KubeObject,
  policies: readonly OverridePolicyLike[],
): AppliedRecord[] {
  const priority = (name: string): number => {
    const p = policies.find((x) => x.metadata.name === name);
    if (!p) return 0;
    const selectors = p.spec?.resourceSelectors ?? [];
    return selectors.length === 0 ? 1 : implicitPriority(template, selectors);
  };
  return records
    .map((r, i) => ({ r, i, p: priority(r.policyName) }))
    .sort(
      (x, y) =>
        x.p - y.p || (x.r.policyName < y.r.policyName ? -1 : x.r.policyName > y.r.policyName ? 1 : x.i - y.i),
    )
    .map((x) => x.r);
}

/** Upstream's order of overrider kinds within one rule (src/overrides/apply.ts applyOverriders). */
export const OVERRIDER_ORDER = [
  "imageOverrider",
  "commandOverrider",
  "argsOverrider",
  "labelsOverrider",
  "annotationsOverrider",
  "fieldOverrider",
  "plaintext",
] as const satisfies ReadonlyArray<keyof Overriders>;

/** Labels and annotations Karmada writes for its own bookkeeping: not what a user asked for. */
export function isBookkeeping(path: JsonPath): boolean {
  if (path[0] !== "metadata" || (path[1] !== "labels" && path[1] !== "annotations")) return false;
  const key = path[2];
  return typeof key === "string" && (key === "karmada.io/managed" || /(^|\.)karmada\.io\//.test(key));
}

/** Fields the scheduler's replica assignment sets (the interpreter's ReviseReplica). */
const REPLICA_FIELDS = new Set(["replicas", "parallelism", "completions"]);

function setAt(obj: Record<string, unknown>, path: JsonPath, value: unknown): void {
  let node: Record<string | number, unknown> = obj;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const next = node[key];
    if (typeof next !== "object" || next === null) node[key] = typeof path[i + 1] === "number" ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
}

export interface ProvenanceInput {
  /** The resource template as the control plane holds it now. */
  template: KubeObject;
  /** The manifest in the member's Work. */
  manifest: KubeObject;
  /** From `policy.karmada.io/applied-cluster-overrides`, in application order. */
  clusterOverrides: readonly AppliedRecord[];
  /** From `policy.karmada.io/applied-overrides`, in application order. */
  overrides: readonly AppliedRecord[];
  /** The replicas the binding assigns this cluster, when it is a workload. */
  assignedReplicas?: number;
  /** Labels stateful failover injects into this cluster's copy (an eviction task's preserved state). */
  injectedLabels?: Record<string, string>;
}

export interface Provenance {
  changes: ProvenanceChange[];
  note?: string;
}

type By = ProvenanceChange["by"];

function asChanges(diff: readonly JsonChange[], by: By): ProvenanceChange[] {
  return diff.map((d) => ({
    path: formatPath(d.path),
    op: d.op,
    ...(d.before !== undefined ? { before: shortValue(d.before) } : {}),
    ...(d.after !== undefined ? { after: shortValue(d.after) } : {}),
    by,
  }));
}

interface Step {
  source: "ClusterOverridePolicy" | "OverridePolicy";
  policy: string;
  kind: (typeof OVERRIDER_ORDER)[number];
  overriders: Overriders;
}

/** The recorded overriders as steps of one kind each: cluster-wide policies first, upstream's kind order within a rule. */
function overrideSteps(input: ProvenanceInput): Step[] {
  const namespace = input.template.metadata?.namespace;
  const records = [
    ...input.clusterOverrides.map((record) => ({ source: "ClusterOverridePolicy" as const, record })),
    ...input.overrides.map((record) => ({ source: "OverridePolicy" as const, record })),
  ];
  const steps: Step[] = [];
  for (const { source, record } of records) {
    const policy =
      source === "OverridePolicy" && namespace ? `${namespace}/${record.policyName}` : record.policyName;
    for (const kind of OVERRIDER_ORDER) {
      const list = record.overriders[kind];
      if (list && list.length > 0) steps.push({ source, policy, kind, overriders: { [kind]: list } });
    }
  }
  return steps;
}

/** Applies the steps to `start`, recording what each changed; stops at the first that fails. */
function replay(
  start: KubeObject,
  steps: readonly Step[],
): { result: KubeObject; changes: ProvenanceChange[]; failed?: string } {
  let current = start;
  const changes: ProvenanceChange[] = [];
  for (const step of steps) {
    let next: KubeObject;
    try {
      next = applyOverriders(cloneJson(current), step.overriders);
    } catch (err) {
      return {
        result: current,
        changes,
        failed: `Re-applying ${step.kind} of ${step.source} ${step.policy} to the current template failed (${(err as Error).message}); the template may have changed since the Work was written.`,
      };
    }
    changes.push(
      ...asChanges(diffJson(current, next), {
        source: step.source,
        policy: step.policy,
        overrider: step.kind,
      }),
    );
    current = next;
  }
  return { result: current, changes };
}

/** Who changed which field of the manifest, step by step; see the file comment. */
export function manifestProvenance(input: ProvenanceInput): Provenance {
  const base = prune(input.template) as Record<string, unknown>;
  const manifest = prune(input.manifest);
  const steps = overrideSteps(input);

  // 1. The scheduler's share of the replicas, which the binding controller sets before the
  // overrides: replica fields the overrides do not explain.
  const naive = replay(base, steps).result;
  const revised = cloneJson(base);
  for (const d of diffJson(prune(naive), manifest)) {
    if (d.op === "changed" && typeof d.after === "number" && REPLICA_FIELDS.has(String(d.path.at(-1)))) {
      setAt(revised, d.path, d.after);
    }
  }
  const assigned = input.assignedReplicas;
  const changes = asChanges(diffJson(base, revised), {
    source: "Scheduler",
    note:
      assigned !== undefined
        ? `${assigned} replica${assigned === 1 ? "" : "s"} assigned to this cluster`
        : "replicas assigned to this cluster",
  });

  // 2. Each recorded overrider.
  const replayed = replay(revised, steps);
  changes.push(...replayed.changes);
  if (replayed.failed) return { changes, note: replayed.failed };

  // 3. What is left: failover's relayed state, else a template that moved on.
  const rest = diffJson(prune(replayed.result), manifest).filter((d) => !isBookkeeping(d.path));
  const injected = input.injectedLabels ?? {};
  const relayed = rest.filter(
    (d) =>
      d.path[0] === "metadata" &&
      d.path[1] === "labels" &&
      typeof d.path[2] === "string" &&
      d.path[2] in injected,
  );
  changes.push(
    ...asChanges(relayed, {
      source: "Failover",
      note: "state preserved from the cluster it failed over from",
    }),
  );
  const unexplained = rest.filter((d) => !relayed.includes(d));
  if (unexplained.length === 0) return { changes };
  const shown = unexplained.slice(0, 3).map((d) => formatPath(d.path));
  return {
    changes,
    note: `The member's manifest differs from the current template with these overrides in ${unexplained.length} field${unexplained.length === 1 ? "" : "s"} (${shown.join(", ")}${unexplained.length > 3 ? ", ..." : ""}): the template or a policy changed after the Work was written, and the Work follows shortly.`,
  };
}
