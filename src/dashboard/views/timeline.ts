/**
 * The failover timeline: what the failover machinery did and why, newest first, from Events
 * (the cluster controller's taints, the taint manager's and application failover's evictions,
 * the graceful eviction controller's ended tasks, shadow-mode decisions, reschedules of the
 * workloads involved) and from objects (a cluster's NoExecute taints with `timeAdded`, a
 * cluster that is not Ready, bindings' `gracefulEvictionTasks` and the state each relays to
 * the cluster that takes over). Event reasons and sources are those of
 * src/controllers/{cluster,taint-manager,graceful-eviction,application-failover,scheduler}.ts.
 */
import type { StoredObject } from "../../api/meta.ts";
import type { BindingSpec, ClusterObject, GracefulEvictionTask } from "../../karmada/types.ts";
import { newestFirst } from "../timeline-order.ts";
import type { EvictionTaskView, TimelineEntry, TimelineKind, Tone } from "../wire.ts";
import { workloadKey } from "./workloads.ts";

/** The fields of a core/v1 Event the timeline reads. */
export interface EventLike {
  metadata: { name: string; namespace?: string; uid?: string; creationTimestamp?: string | null };
  involvedObject?: { kind?: string; namespace?: string; name?: string };
  reason?: string;
  message?: string;
  type?: string;
  source?: { component?: string };
  reportingComponent?: string;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  count?: number;
}

/** Keeps what the timeline and the workload page read of an Event (informer transform). */
export function compactEvent(obj: StoredObject): StoredObject {
  const e = obj as unknown as EventLike & StoredObject;
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: {
      name: obj.metadata.name,
      ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      ...(obj.metadata.creationTimestamp ? { creationTimestamp: obj.metadata.creationTimestamp } : {}),
    },
    ...(e.involvedObject ? { involvedObject: e.involvedObject } : {}),
    ...(e.reason ? { reason: e.reason } : {}),
    ...(e.message ? { message: e.message } : {}),
    ...(e.type ? { type: e.type } : {}),
    ...(e.source ? { source: e.source } : {}),
    ...(e.reportingComponent ? { reportingComponent: e.reportingComponent } : {}),
    ...(e.firstTimestamp ? { firstTimestamp: e.firstTimestamp } : {}),
    ...(e.lastTimestamp ? { lastTimestamp: e.lastTimestamp } : {}),
    ...(e.eventTime ? { eventTime: e.eventTime } : {}),
    ...(e.count !== undefined ? { count: e.count } : {}),
  } as StoredObject;
}

const BINDING_KINDS = new Set(["ResourceBinding", "ClusterResourceBinding"]);

/** The workload key of the binding an event is about, if it is about one. */
export function eventWorkloadKey(e: EventLike): string | undefined {
  const o = e.involvedObject;
  if (!o?.name || !BINDING_KINDS.has(o.kind ?? "")) return undefined;
  return o.kind === "ResourceBinding" ? `rb/${o.namespace ?? ""}/${o.name}` : `crb/${o.name}`;
}

/** `Evict from cluster member2 succeed.` → member2. */
function clusterInMessage(message: string | undefined): string | undefined {
  return /cluster\(?\s*([a-z0-9.-]+)\)?/i.exec(message ?? "")?.[1];
}

/** `cluster now has taints([{Key:k,Value:v,Effect:e}])` → `k=v:e`; [] for `does not have taints`. */
export function taintsInMessage(message: string | undefined): string[] {
  return [...(message ?? "").matchAll(/\{Key:([^,}]+)(?:,Value:([^,}]*))?,Effect:([^}]+)\}/g)].map(
    (m) => `${m[1]}${m[2] ? `=${m[2]}` : ""}:${m[3]}`,
  );
}

/** `... Result: {member1:1, member2:2}` → `member1 ×1, member2 ×2`. */
function scheduleResult(message: string | undefined): string | undefined {
  const m = /Result: \{([^}]*)\}/.exec(message ?? "");
  if (!m) return undefined;
  const parts = m[1]!
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => p.replace(/:(\d+)$/, " ×$1"));
  return parts.length ? parts.join(", ") : "no cluster";
}

interface Classified {
  kind: TimelineKind;
  tone: Tone;
  title: string;
}

/** What an event is about, for the readers below. */
interface EventFacts {
  e: EventLike;
  source: string;
  /** The cluster its message names, or a placeholder. */
  cluster: string;
  bindingInvolved: boolean;
}

function taintChange({ e }: EventFacts): Classified {
  const taints = taintsInMessage(e.message);
  const name = e.involvedObject?.name ?? "the cluster";
  if (taints.length === 0) return { kind: "taint", tone: "good", title: `${name}: taints cleared` };
  const tone = taints.some((t) => t.endsWith(":NoExecute")) ? "bad" : "warn";
  return { kind: "taint", tone, title: `${name}: tainted ${taints.join(", ")}` };
}

/** Who reported a successful eviction says what it was: its start, an application failure, or the task's end. */
function evicted({ source, cluster }: EventFacts): Classified {
  if (source.includes("graceful-eviction")) {
    return { kind: "task-ended", tone: "good", title: `Old copy on ${cluster} removed: eviction finished` };
  }
  if (source.includes("application-failover")) {
    return {
      kind: "application-failover",
      tone: "bad",
      title: `Application failover: moving off ${cluster}`,
    };
  }
  return { kind: "eviction", tone: "warn", title: `Evicted from ${cluster} (taint not tolerated)` };
}

function scheduled({ e, bindingInvolved }: EventFacts): Classified | undefined {
  if (!bindingInvolved) return undefined;
  const result = scheduleResult(e.message);
  return { kind: "rescheduled", tone: "good", title: result ? `Scheduled: ${result}` : "Scheduled" };
}

/** The failover reasons, each with the kind of object it must be about and how it reads. */
const READERS: Record<
  string,
  { on: "cluster" | "binding"; read: (f: EventFacts) => Classified | undefined }
> = {
  TaintClusterSucceed: { on: "cluster", read: taintChange },
  TaintClusterFailed: {
    on: "cluster",
    read: ({ e }) => ({ kind: "taint", tone: "bad", title: `Tainting ${e.involvedObject?.name} failed` }),
  },
  EvictWorkloadFromClusterSucceed: { on: "binding", read: evicted },
  EvictWorkloadFromClusterFailed: {
    on: "binding",
    read: ({ cluster }) => ({ kind: "eviction", tone: "bad", title: `Eviction from ${cluster} failed` }),
  },
  GracefulEvictionTaskDropped: {
    on: "binding",
    read: ({ cluster }) => ({
      kind: "task-ended",
      tone: "neutral",
      title: `Eviction task for ${cluster} dropped`,
    }),
  },
  EvictionShadowed: {
    on: "binding",
    read: ({ cluster }) => ({
      kind: "shadow",
      tone: "neutral",
      title: `Shadow mode: would evict from ${cluster}`,
    }),
  },
  ScheduleBindingSucceed: { on: "binding", read: scheduled },
  ScheduleBindingFailed: {
    on: "binding",
    read: ({ bindingInvolved }) =>
      bindingInvolved ? { kind: "rescheduled", tone: "bad", title: "Scheduling failed" } : undefined,
  },
};

/**
 * What an event means on the timeline, by reason and reporting component; undefined for events
 * that are not about failover. `bindingInvolved`: the workload already has failover entries,
 * so its reschedules count too.
 */
export function classifyEvent(e: EventLike, bindingInvolved: boolean): Classified | undefined {
  const reader = READERS[e.reason ?? ""];
  if (!reader) return undefined;
  const kind = e.involvedObject?.kind ?? "";
  if (reader.on === "cluster" ? kind !== "Cluster" : !BINDING_KINDS.has(kind)) return undefined;
  return reader.read({
    e,
    source: e.source?.component ?? e.reportingComponent ?? "",
    cluster: clusterInMessage(e.message) ?? (reader.on === "cluster" ? "the cluster" : "a cluster"),
    bindingInvolved,
  });
}

function eventTime(e: EventLike): string {
  return e.lastTimestamp || e.eventTime || e.firstTimestamp || e.metadata.creationTimestamp || "";
}

export interface TimelineInput {
  events: readonly EventLike[];
  clusters: readonly StoredObject[];
  bindings: readonly StoredObject[];
}

function workloadLabel(binding: StoredObject | undefined, fallback: string): string {
  const r = (binding?.spec as BindingSpec | undefined)?.resource;
  if (!r) return fallback;
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}`;
}

export function evictionTaskView(t: GracefulEvictionTask): EvictionTaskView {
  return {
    fromCluster: t.fromCluster,
    reason: t.reason,
    producer: t.producer,
    ...(t.purgeMode ? { purgeMode: t.purgeMode } : {}),
    ...(t.replicas !== undefined ? { replicas: t.replicas } : {}),
    ...(t.message ? { message: t.message } : {}),
    ...(t.creationTimestamp ? { created: t.creationTimestamp } : {}),
    ...(t.preservedLabelState ? { preservedLabelState: t.preservedLabelState } : {}),
    ...(t.clustersBeforeFailover ? { clustersBeforeFailover: t.clustersBeforeFailover } : {}),
  };
}

/** Entries from the bindings' eviction tasks and the state they relay. */
function taskEntries(binding: StoredObject): TimelineEntry[] {
  const spec = (binding.spec ?? {}) as BindingSpec;
  const key = workloadKey(binding);
  const workload = { key, label: workloadLabel(binding, binding.metadata.name) };
  const out: TimelineEntry[] = [];
  for (const t of spec.gracefulEvictionTasks ?? []) {
    if (!t.creationTimestamp) continue;
    const facts = [
      `${t.reason} by ${t.producer}`,
      t.purgeMode ? `purge mode ${t.purgeMode}` : "",
      t.replicas !== undefined ? `${t.replicas} replica${t.replicas === 1 ? "" : "s"}` : "",
    ].filter(Boolean);
    out.push({
      key: `task/${key}/${t.fromCluster}`,
      time: t.creationTimestamp,
      kind: "eviction-task",
      tone: "warn",
      title: `Leaving ${t.fromCluster}: graceful eviction in progress`,
      detail: `${facts.join(", ")}. ${
        t.suppressDeletion
          ? "The old copy stays until someone sets suppressDeletion to false on the task."
          : "The old copy stays until the new ones are healthy."
      }`,
      cluster: t.fromCluster,
      workload,
      source: "binding",
    });
    const state = Object.entries(t.preservedLabelState ?? {});
    if (state.length > 0) {
      const before = new Set(t.clustersBeforeFailover ?? [t.fromCluster]);
      const to = (spec.clusters ?? []).map((c) => c.name).filter((c) => !before.has(c));
      out.push({
        key: `relay/${key}/${t.fromCluster}`,
        time: t.creationTimestamp,
        kind: "state-relayed",
        tone: "neutral",
        title: `State relayed from ${t.fromCluster}${to.length ? ` to ${to.join(", ")}` : ""}`,
        detail: `Labels injected into the new copy: ${state.map(([k, v]) => `${k}=${v}`).join(", ")}`,
        cluster: t.fromCluster,
        workload,
        source: "binding",
      });
    }
  }
  return out;
}

/** Entries from clusters: NoExecute taints (with when they were added), and not being Ready. */
function clusterEntries(obj: StoredObject): TimelineEntry[] {
  const cluster = obj as ClusterObject;
  const name = cluster.metadata.name;
  const out: TimelineEntry[] = [];
  for (const t of cluster.spec?.taints ?? []) {
    if (!t.timeAdded) continue;
    const text = `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`;
    out.push({
      key: `taint/${name}/${t.key}:${t.effect}`,
      time: t.timeAdded,
      kind: "taint",
      tone: t.effect === "NoExecute" ? "bad" : "warn",
      title: `${name} tainted ${text}`,
      detail:
        t.effect === "NoExecute"
          ? "Workloads that do not tolerate it are evicted once their toleration runs out."
          : "New workloads that do not tolerate it are not scheduled here.",
      cluster: name,
      source: "cluster",
    });
  }
  const ready = cluster.status?.conditions?.find((c) => c.type === "Ready") as
    | { status: string; reason?: string; message?: string; lastTransitionTime?: string }
    | undefined;
  if (ready && ready.status !== "True" && ready.lastTransitionTime) {
    out.push({
      key: `ready/${name}`,
      time: ready.lastTransitionTime,
      kind: "cluster",
      tone: "bad",
      title: `${name} ${ready.status === "False" ? "not Ready" : "Ready state unknown"}${ready.reason ? ` (${ready.reason})` : ""}`,
      ...(ready.message ? { detail: ready.message } : {}),
      cluster: name,
      source: "cluster",
    });
  }
  return out;
}

/** The timeline, newest first, at most `limit` entries. */
export function timeline(input: TimelineInput, limit = 1000): { entries: TimelineEntry[]; total: number } {
  const bindings = new Map(input.bindings.map((b) => [workloadKey(b), b]));
  const entries: TimelineEntry[] = [];
  for (const c of input.clusters) entries.push(...clusterEntries(c));
  for (const b of input.bindings) entries.push(...taskEntries(b));

  // Workloads with failover activity: their (re)scheduling events belong on the timeline too.
  const involved = new Set(entries.flatMap((e) => (e.workload ? [e.workload.key] : [])));
  const classified = input.events.map((e) => ({ e, key: eventWorkloadKey(e) }));
  for (const { e, key } of classified) {
    const c = key ? classifyEvent(e, false) : undefined;
    if (c && key) involved.add(key);
  }
  for (const { e, key } of classified) {
    const c = classifyEvent(e, key !== undefined && involved.has(key));
    if (!c) continue;
    const time = eventTime(e);
    if (!time) continue;
    const cluster =
      e.involvedObject?.kind === "Cluster" ? e.involvedObject.name : clusterInMessage(e.message);
    entries.push({
      key: `event/${e.metadata.namespace ?? ""}/${e.metadata.name}`,
      time,
      kind: c.kind,
      tone: c.tone,
      title: c.title,
      ...(e.message ? { detail: e.message } : {}),
      ...(cluster ? { cluster } : {}),
      ...(key
        ? { workload: { key, label: workloadLabel(bindings.get(key), e.involvedObject?.name ?? key) } }
        : {}),
      source: e.source?.component ?? e.reportingComponent ?? "",
      ...(e.count && e.count > 1 ? { count: e.count } : {}),
    });
  }
  entries.sort(newestFirst);
  return { entries: entries.slice(0, limit), total: entries.length };
}

/** A workload's own events (any reason), newest first, for its page. */
export function workloadEvents(
  events: readonly EventLike[],
  binding: StoredObject,
  limit = 50,
): TimelineEntry[] {
  const key = workloadKey(binding);
  const r = (binding.spec as BindingSpec | undefined)?.resource;
  const mine = events.filter((e) => {
    const o = e.involvedObject;
    if (!o) return false;
    if (eventWorkloadKey(e) === key) return true;
    return !!r && o.kind === r.kind && o.name === r.name && (o.namespace ?? "") === (r.namespace ?? "");
  });
  // Evictions are recorded on the binding and on its template alike: keep one of each.
  const seen = new Set<string>();
  const unique = [...mine]
    .sort((a, b) => Number(eventWorkloadKey(b) === key) - Number(eventWorkloadKey(a) === key))
    .filter((e) => {
      const id = `${e.reason}|${e.message}|${e.source?.component ?? ""}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  return unique
    .map((e): TimelineEntry => {
      const c = classifyEvent(e, true);
      return {
        key: `event/${e.metadata.namespace ?? ""}/${e.metadata.name}`,
        time: eventTime(e),
        kind: c?.kind ?? "rescheduled",
        tone: c?.tone ?? (e.type === "Warning" ? "bad" : "neutral"),
        title: e.reason ?? "",
        ...(e.message ? { detail: e.message } : {}),
        source: `${e.source?.component ?? e.reportingComponent ?? ""}${e.involvedObject?.kind && !BINDING_KINDS.has(e.involvedObject.kind) ? ` (on the ${e.involvedObject.kind})` : ""}`,
        ...(e.count && e.count > 1 ? { count: e.count } : {}),
      };
    })
    .sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0))
    .slice(0, limit);
}
