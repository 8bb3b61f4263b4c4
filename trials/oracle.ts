/**
 * The crash trials' oracle: pure functions over what the trial wrote (its model) and what it
 * listed from the control plane and the members. Each returns violations, one line each
 * naming the object; none means the fleet has converged to exactly what was written.
 */
import { isObject, type StoredObject } from "../src/api/meta.ts";
import { ANNOTATION, LABEL } from "../src/karmada/names.ts";
import {
  DATA_OVERRIDE,
  type Kind,
  keyOf,
  LABEL_OVERRIDE,
  MEMBERS,
  NAMESPACE,
  OVERRIDE_KEY,
  OVERRIDE_LABEL,
  overrideValueOf,
  PLACEMENT,
  tierOf,
  type Written,
} from "./fixtures.ts";

/** What the trial knows it wrote: per object key, its last acknowledged content, or null when deleted. */
export type Model = Map<string, Written | null>;

export interface Observed {
  /** The control plane's Deployments, ConfigMaps, Services and OverridePolicies in the namespace. */
  templates: StoredObject[];
  /** ResourceBindings in the namespace. */
  bindings: StoredObject[];
  /** Works in every execution space. */
  works: StoredObject[];
  /** Each member's Deployments, ConfigMaps and Services in the namespace. */
  members: Record<string, StoredObject[]>;
}

const labelsOf = (o: StoredObject): Record<string, string> => o.metadata.labels ?? {};
const replicasOf = (o: StoredObject): number | undefined =>
  isObject(o.spec) && typeof o.spec.replicas === "number" ? o.spec.replicas : undefined;
const dataOf = (o: StoredObject): Record<string, string> => {
  const data = (o as unknown as { data?: unknown }).data;
  return isObject(data) ? (data as Record<string, string>) : {};
};
const objKey = (o: StoredObject): string => keyOf({ kind: o.kind, name: o.metadata.name });
const sameData = (a: Record<string, string>, b: Record<string, string>): boolean => {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
};

/** What in `stored` differs from the written content (empty when it matches). */
export function contentDiff(w: Written, stored: StoredObject): string[] {
  const out: string[] = [];
  if (w.kind === "OverridePolicy") {
    const value = overrideValueOf(stored);
    if (value !== w.data?.value)
      out.push(`override value ${JSON.stringify(value)}, wrote ${JSON.stringify(w.data?.value)}`);
    return out;
  }
  const labels = labelsOf(stored);
  for (const [k, v] of Object.entries(w.labels))
    if (labels[k] !== v) out.push(`label ${k}=${labels[k] ?? "<none>"}, wrote ${v}`);
  if (w.replicas !== undefined && replicasOf(stored) !== w.replicas)
    out.push(`replicas ${replicasOf(stored)}, wrote ${w.replicas}`);
  if (w.data !== undefined && !sameData(dataOf(stored), w.data))
    out.push(`data ${JSON.stringify(dataOf(stored))}, wrote ${JSON.stringify(w.data)}`);
  return out;
}

/**
 * Every acknowledged write readable: each object the model holds is stored with that content
 * (the trial is its only writer, so "or newer" is the same content); each acknowledged delete is gone.
 */
export function checkAcknowledged(model: Model, templates: readonly StoredObject[]): string[] {
  const stored = new Map(templates.map((t) => [objKey(t), t]));
  const out: string[] = [];
  for (const [key, w] of model) {
    const s = stored.get(key);
    if (w === null) {
      if (s && !s.metadata.deletionTimestamp)
        out.push(`acknowledged delete of ${key} lost: it is still there`);
      continue;
    }
    if (!s) {
      out.push(`acknowledged write of ${key} lost: not found`);
      continue;
    }
    const diff = contentDiff(w, s);
    if (diff.length > 0) out.push(`acknowledged write of ${key} lost: ${diff.join("; ")}`);
  }
  return out;
}

/** What one member copy must be. */
export interface ExpectedCopy {
  replicas?: number;
  labels: Record<string, string>;
  data?: Record<string, string>;
}

const bindingResource = (b: StoredObject): { kind?: string; name?: string; namespace?: string } =>
  (isObject(b.spec) && isObject(b.spec.resource) ? b.spec.resource : {}) as {
    kind?: string;
    name?: string;
    namespace?: string;
  };

const bindingClusters = (b: StoredObject): Array<{ name: string; replicas?: number }> =>
  isObject(b.spec) && Array.isArray(b.spec.clusters)
    ? (b.spec.clusters as Array<{ name: string; replicas?: number }>)
    : [];

/** The Divided split of one Deployment, from its binding, and what is wrong with that binding. */
function dividedCopies(
  w: Written,
  b: StoredObject | undefined,
  base: ExpectedCopy,
): [Map<string, ExpectedCopy>, string[]] {
  const perCluster = new Map<string, ExpectedCopy>();
  if (!b) return [perCluster, [`${keyOf(w)}: no ResourceBinding`]];
  const violations: string[] = [];
  const clusters = bindingClusters(b);
  const sum = clusters.reduce((n, c) => n + (c.replicas ?? 0), 0);
  if (sum !== w.replicas)
    violations.push(`${keyOf(w)}: binding places ${sum} replicas, the template has ${w.replicas}`);
  for (const c of clusters) {
    if (!PLACEMENT.div.includes(c.name as never))
      violations.push(`${keyOf(w)}: binding places it on ${c.name}, outside its policy`);
    perCluster.set(c.name, { ...base, labels: { ...base.labels }, replicas: c.replicas ?? 0 });
  }
  return [perCluster, violations];
}

/**
 * The copies each member must hold, per object key, and what is wrong with the bindings that
 * decide Divided placements (the scheduler's split is taken from the binding; only its sum,
 * its clusters and that it is current are checked).
 */
export function expectedCopies(
  model: Model,
  bindings: readonly StoredObject[],
): { copies: Map<string, Map<string, ExpectedCopy>>; violations: string[] } {
  const copies = new Map<string, Map<string, ExpectedCopy>>();
  const violations: string[] = [];
  const live = [...model.values()].filter((w): w is Written => w !== null);
  const op = (name: string) => model.get(keyOf({ kind: "OverridePolicy", name }))?.data?.value;
  const labelOverride = op(LABEL_OVERRIDE.name);
  const dataOverride = op(DATA_OVERRIDE.name);
  const bindingOf = new Map(
    bindings.map((b) => {
      const r = bindingResource(b);
      return [keyOf({ kind: r.kind ?? "", name: r.name ?? "" }), b] as const;
    }),
  );
  const mounted = new Set(live.filter((w) => tierOf(w) === "dup" && w.mounts).map((w) => w.mounts!));
  for (const w of live) {
    const tier = tierOf(w);
    if (!tier || w.kind === "OverridePolicy") continue;
    const base: ExpectedCopy = {
      labels: { ...w.labels },
      ...(w.data ? { data: { ...w.data } } : {}),
      ...(w.replicas !== undefined ? { replicas: w.replicas } : {}),
    };
    let perCluster = new Map<string, ExpectedCopy>();
    if (tier === "div") {
      const [split, wrong] = dividedCopies(w, bindingOf.get(keyOf(w)), base);
      perCluster = split;
      violations.push(...wrong);
    } else if (tier !== "dep" || mounted.has(w.name)) {
      for (const c of PLACEMENT[tier]) perCluster.set(c, { ...base, labels: { ...base.labels } });
    }
    const labelled = w.kind === "Deployment" && labelOverride !== undefined;
    const overridden = tier === "cm" && dataOverride !== undefined;
    const labelTarget = perCluster.get(LABEL_OVERRIDE.cluster);
    if (labelled && labelTarget) labelTarget.labels[OVERRIDE_LABEL] = labelOverride;
    const target = perCluster.get(DATA_OVERRIDE.cluster);
    if (overridden && target) target.data = { ...target.data, [OVERRIDE_KEY]: dataOverride };
    copies.set(keyOf(w), perCluster);
  }
  return { copies, violations };
}

/** Each member holds exactly the expected copies with the expected content; nothing of ours beyond them. */
export function checkMembers(
  copies: Map<string, Map<string, ExpectedCopy>>,
  members: Record<string, readonly StoredObject[]>,
): string[] {
  const out: string[] = [];
  for (const member of MEMBERS) {
    const objects = members[member] ?? [];
    const byKey = new Map(objects.map((o) => [objKey(o), o]));
    for (const [key, perCluster] of copies) {
      const want = perCluster.get(member);
      const got = byKey.get(key);
      if (!want) continue;
      if (!got) {
        out.push(`${member}: ${key} missing`);
        continue;
      }
      const diff = contentDiff({ kind: got.kind as Kind, name: got.metadata.name, ...want }, got);
      if (diff.length > 0) out.push(`${member}: ${key}: ${diff.join("; ")}`);
    }
    for (const o of objects) {
      if (labelsOf(o)[LABEL.managed] !== "true") continue;
      if (!copies.get(objKey(o))?.has(member))
        out.push(`${member}: ${objKey(o)} orphaned (no template places it here)`);
    }
  }
  return out;
}

/** One binding per template, none for a template that is gone; every Work's binding exists. */
export function checkBindingsAndWorks(
  model: Model,
  bindings: readonly StoredObject[],
  works: readonly StoredObject[],
): string[] {
  const out: string[] = [];
  const seen = new Map<string, string>();
  const names = new Set<string>();
  for (const b of bindings) {
    names.add(b.metadata.name);
    const r = bindingResource(b);
    const key = keyOf({ kind: r.kind ?? "", name: r.name ?? "" });
    const other = seen.get(key);
    if (other) out.push(`duplicate bindings for ${key}: ${other} and ${b.metadata.name}`);
    seen.set(key, b.metadata.name);
    if (!model.get(key)) out.push(`binding ${b.metadata.name} orphaned: ${key} is gone`);
  }
  for (const w of works) {
    const annotations = w.metadata.annotations ?? {};
    if (annotations[ANNOTATION.rbNamespace] !== NAMESPACE) continue;
    const rb = annotations[ANNOTATION.rbName];
    if (rb && !names.has(rb))
      out.push(`Work ${w.metadata.namespace}/${w.metadata.name} orphaned: binding ${rb} is gone`);
  }
  return out;
}

/** Nothing is left terminating once the fleet has converged (a finalizer nobody removes). */
export function checkTerminating(observed: Observed): string[] {
  const out: string[] = [];
  const stuck = (where: string, o: StoredObject) => {
    if (o.metadata.deletionTimestamp)
      out.push(
        `${where}: ${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name} terminating since ${o.metadata.deletionTimestamp} with finalizers ${JSON.stringify(o.metadata.finalizers ?? [])}`,
      );
  };
  for (const o of [...observed.templates, ...observed.bindings, ...observed.works]) stuck("control plane", o);
  for (const [member, objects] of Object.entries(observed.members)) for (const o of objects) stuck(member, o);
  return out;
}

/** Every check; an empty list means converged. */
export function oracle(model: Model, observed: Observed): string[] {
  const { copies, violations } = expectedCopies(model, observed.bindings);
  return [
    ...checkAcknowledged(model, observed.templates),
    ...violations,
    ...checkBindingsAndWorks(model, observed.bindings, observed.works),
    ...checkMembers(copies, observed.members),
    ...checkTerminating(observed),
  ];
}

/**
 * After a crash, an object whose last write got no answer is in one of the states the trial
 * tried (`candidates`: the acknowledged one and the unanswered ones; null for deleted). Returns
 * the candidate the stored object matches, or undefined when it matches none (a lost write).
 */
export function resolveUncertain(
  candidates: ReadonlyArray<Written | null>,
  stored: StoredObject | undefined,
): { state: Written | null } | undefined {
  for (const c of [...candidates].reverse()) {
    if (
      c === null
        ? !stored || stored.metadata.deletionTimestamp
        : stored && contentDiff(c, stored).length === 0
    )
      return { state: c };
  }
  return undefined;
}
