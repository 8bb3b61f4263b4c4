/**
 * FederatedResourceQuota enforcement, the ResourceBinding webhook's part behind the
 * `FederatedQuotaEnforcement` gate (Alpha, off): a scheduled binding's resource usage
 * (per-replica requests times scheduled replicas, or per-component requests times clusters)
 * is charged to every quota of its namespace. A change that would push a quota's overall
 * usage above its overall limit is refused; otherwise the new usage is what the quotas'
 * status must record. Listing the quotas and writing their status is the caller's job.
 */

import {
  compareQuantities,
  formatQuantity,
  parseQuantity,
  type Quantity,
  sumQuantities,
} from "../../../machinery/quantity.ts";
import type { Operation } from "../../admission.ts";
import type { StoredObject } from "../../meta.ts";
import { type Obj, obj, objs, str } from "../../validation/json.ts";
import { isHugePageResourceName, isScalarResourceName } from "./resource-names.ts";

export interface QuotaStatusUpdate {
  namespace: string;
  name: string;
  /** The quota's new `status.overallUsed`. */
  overallUsed: Record<string, string>;
}

export interface QuotaDecision {
  /** Set when the binding must be refused (reason QuotaExceeded, code 403). */
  denial?: string;
  /** Quotas whose `status.overallUsed` must change, when the binding is admitted. */
  updates: QuotaStatusUpdate[];
}

type ResourceAmounts = Map<string, Quantity>;

function times(q: Quantity, factor: number): Quantity {
  return { ...q, n: q.n * BigInt(factor) };
}

function readList(list: unknown): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  for (const [name, value] of Object.entries(obj(list) ?? {})) {
    const q = parseQuantity(value);
    if (q) out.set(name, q);
  }
  return out;
}

function replicasOf(o: Obj): number {
  return typeof o.replicas === "number" ? o.replicas : 0;
}

/** What a binding charges to quotas across every cluster it is scheduled to. */
export function bindingResourceUsage(rb: StoredObject): ResourceAmounts {
  const spec = obj(rb.spec) ?? {};
  const clusters = objs(spec.clusters);
  const components = objs(spec.components);
  const usage: ResourceAmounts = new Map();
  if (components.length > 0) {
    if (clusters.length === 0) return usage;
    const perSet: ResourceAmounts = new Map();
    for (const c of components) {
      const replicas = replicasOf(c);
      if (replicas === 0) continue;
      for (const [name, q] of readList(obj(c.replicaRequirements)?.resourceRequest)) {
        if (q.n === 0n) continue;
        const prev = perSet.get(name);
        perSet.set(name, prev ? sumQuantities([prev, times(q, replicas)]) : times(q, replicas));
      }
    }
    for (const [name, q] of perSet) if (q.n !== 0n) usage.set(name, times(q, clusters.length));
    return usage;
  }
  const requests = readList(obj(spec.replicaRequirements)?.resourceRequest);
  const total = clusters.reduce((sum, c) => sum + replicasOf(c), 0);
  if (requests.size === 0 || total === 0) return usage;
  for (const [name, q] of requests) if (q.n !== 0n) usage.set(name, times(q, total));
  return usage;
}

function sameLists(a: ResourceAmounts, b: ResourceAmounts): boolean {
  if (a.size !== b.size) return false;
  for (const [name, q] of a) {
    const other = b.get(name);
    if (!other || compareQuantities(q, other) !== 0) return false;
  }
  return true;
}

function scheduledReplicas(rb: StoredObject): number {
  return objs(obj(rb.spec)?.clusters).reduce((sum, c) => sum + replicasOf(c), 0);
}

function clusterNamesChanged(old: StoredObject, rb: StoredObject): boolean {
  const before = objs(obj(old.spec)?.clusters);
  const after = objs(obj(rb.spec)?.clusters);
  if (before.length !== after.length) return true;
  const names = new Set(before.map((c) => str(c.name) ?? ""));
  return after.some((c) => !names.has(str(c.name) ?? ""));
}

function componentsChanged(old: StoredObject, rb: StoredObject): boolean {
  const before = objs(obj(old.spec)?.components);
  const after = objs(obj(rb.spec)?.components);
  if (before.length !== after.length) return true;
  return before.some((b, i) => {
    const a = after[i]!;
    if (replicasOf(a) !== replicasOf(b)) return true;
    const ra = obj(a.replicaRequirements);
    const rbq = obj(b.replicaRequirements);
    if (!ra !== !rbq) return true;
    return !!ra && !!rbq && !sameLists(readList(ra.resourceRequest), readList(rbq.resourceRequest));
  });
}

/** Whether an update touched anything that changes what the binding charges. */
export function quotaRelevantFieldChanged(old: StoredObject, rb: StoredObject): boolean {
  const requests = (o: StoredObject) => readList(obj(obj(o.spec)?.replicaRequirements)?.resourceRequest);
  if (!sameLists(requests(old), requests(rb))) return true;
  if (scheduledReplicas(old) !== scheduledReplicas(rb)) return true;
  const hasComponents =
    objs(obj(old.spec)?.components).length > 0 || objs(obj(rb.spec)?.components).length > 0;
  if (hasComponents && clusterNamesChanged(old, rb)) return true;
  return componentsChanged(old, rb);
}

function subtract(a: Quantity | undefined, b: Quantity | undefined): Quantity {
  const zero: Quantity = { n: 0n, scale: 0, format: "DecimalSI" };
  const negB = b ? { ...b, n: -b.n } : zero;
  return sumQuantities([a ?? zero, negB]);
}

/** `Quantity.ScaledValue`: whole units at 10^scale, rounded away from zero. */
function scaledValue(q: Quantity, scale: number): bigint {
  const shift = q.scale - scale;
  if (shift >= 0) return q.n * 10n ** BigInt(shift);
  const d = 10n ** BigInt(-shift);
  const whole = q.n / d;
  if (q.n % d === 0n) return whole;
  return q.n > 0n ? whole + 1n : whole - 1n;
}

/**
 * Adds `delta` to a usage list the way the scheduler's resource arithmetic does: cpu in
 * milli-cores, the rest in whole units; only cpu, memory, pods, ephemeral storage and scalar
 * resources are kept, and only positive totals.
 */
function addUsage(used: ResourceAmounts, delta: ResourceAmounts): Record<string, string> {
  const totals = new Map<string, bigint>();
  for (const list of [used, delta]) {
    for (const [name, q] of list) {
      const tracked = name === "cpu" || name === "memory" || name === "pods" || name === "ephemeral-storage";
      if (!tracked && !isScalarResourceName(name)) continue;
      totals.set(name, (totals.get(name) ?? 0n) + scaledValue(q, name === "cpu" ? -3 : 0));
    }
  }
  const out: Record<string, string> = {};
  for (const [name, n] of totals) {
    if (n <= 0n) continue;
    const binary = name === "memory" || name === "ephemeral-storage" || isHugePageResourceName(name);
    const q: Quantity = { n, scale: name === "cpu" ? -3 : 0, format: binary ? "BinarySI" : "DecimalSI" };
    out[name] = formatQuantity(q);
  }
  return out;
}

/** The decision for one ResourceBinding write, given the quotas of its namespace in list order. */
export function evaluateFederatedQuota(
  rb: StoredObject,
  old: StoredObject | undefined,
  op: Operation,
  quotas: StoredObject[],
): QuotaDecision {
  if (op === "CREATE" && objs(obj(rb.spec)?.clusters).length === 0) return { updates: [] };
  if (op === "UPDATE" && old && !quotaRelevantFieldChanged(old, rb)) return { updates: [] };
  const after = bindingResourceUsage(rb);
  const before = old ? bindingResourceUsage(old) : new Map<string, Quantity>();
  const delta: ResourceAmounts = new Map();
  for (const name of new Set([...after.keys(), ...before.keys()])) {
    const d = subtract(after.get(name), before.get(name));
    if (d.n !== 0n) delta.set(name, d);
  }
  if (delta.size === 0) return { updates: [] };
  const updates: QuotaStatusUpdate[] = [];
  for (const quota of quotas) {
    const overall = obj(obj(quota.spec)?.overall);
    if (!overall) continue;
    const limits = readList(overall);
    const charged: ResourceAmounts = new Map([...delta].filter(([name]) => name in overall));
    if ([...charged.values()].every((q) => q.n === 0n)) continue;
    const overallUsed = addUsage(readList(obj(quota.status)?.overallUsed), charged);
    const namespace = quota.metadata.namespace ?? "";
    const name = quota.metadata.name ?? "";
    for (const [resource, text] of Object.entries(overallUsed)) {
      const requested = parseQuantity(text)!;
      const limit = limits.get(resource);
      if (!limit || requested.n === 0n || compareQuantities(requested, limit) <= 0) continue;
      return {
        denial: `FederatedResourceQuota(${namespace}/${name}) exceeded for resource ${resource}: requested sum ${text}, limit ${formatQuantity(limit)}.`,
        updates: [],
      };
    }
    updates.push({ namespace, name, overallUsed });
  }
  return { updates };
}
