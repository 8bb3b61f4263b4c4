/**
 * Events users see in `kubectl describe`: one core/v1 Event per (object, reason, message),
 * counted up when it repeats, as client-go's recorder does (without its rate limiting).
 */
import { createHash } from "node:crypto";
import { type KubeObject, rfc3339 } from "../api/meta.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import type { Logger } from "../log.ts";
import { isAlreadyExists, isNotFound } from "../machinery/errors.ts";

export type EventType = "Normal" | "Warning";

export interface EventRecorder {
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

/** How many recent events a recorder remembers, so that a repeat is one PATCH (client-go keeps such a cache too). */
const REMEMBERED = 4096;

/**
 * Occurrences within this window are written together: a burst of the same event (a status
 * aggregated over and over while its Works report) is one write with the count summed, as
 * client-go's correlator folds repeats. Events are informational; the delay is never on a
 * controller's path.
 */
export const EVENT_FLUSH_MS = 250;
/** Repeats of an event already written only move its count: they wait longer, to fold more. */
export const EVENT_REPEAT_FLUSH_MS = 2_000;

interface Pending {
  obj: KubeObject;
  type: EventType;
  reason: string;
  message: string;
  first: number;
  last: number;
  times: number;
}

export function eventRecorder(
  client: Client,
  component: string,
  deps: { now: () => number; log: Logger },
): EventRecorder {
  /** `namespace/name` → the count last written. Map order is insertion order: the oldest go first. */
  const counts = new Map<string, number>();
  const remember = (key: string, count: number): void => {
    counts.delete(key);
    counts.set(key, count);
    if (counts.size > REMEMBERED) counts.delete(counts.keys().next().value!);
  };
  /** Occurrences waiting to be written, in two windows: new events and repeats. */
  const windows = [EVENT_FLUSH_MS, EVENT_REPEAT_FLUSH_MS].map((ms) => ({
    ms,
    pending: new Map<string, Pending>(),
    timer: undefined as NodeJS.Timeout | undefined,
  }));

  const namespaceOf = (obj: KubeObject): string => obj.metadata?.namespace || "default";

  /** Counts on top of an existing Event; creates it when it is not (or no longer) there. */
  async function record(key: string, name: string, p: Pending): Promise<void> {
    const namespace = namespaceOf(p.obj);
    let count = counts.get(key);
    if (count === undefined) {
      // Most events are new: create first, and read the old count only when it exists.
      if (await create(key, name, p)) return;
      count = ((await client.get(RESOURCES.events, namespace, name)).count as number | undefined) ?? 1;
    }
    try {
      await client.patch(RESOURCES.events, namespace, name, "merge", {
        count: count + p.times,
        lastTimestamp: rfc3339(p.last),
      });
      remember(key, count + p.times);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      counts.delete(key);
      if (!(await create(key, name, p))) await record(key, name, p);
    }
  }

  /** Whether the Event was created (false: it already exists). */
  async function create(key: string, name: string, p: Pending): Promise<boolean> {
    const meta = p.obj.metadata ?? {};
    try {
      await client.create(RESOURCES.events, {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name, namespace: namespaceOf(p.obj) },
        involvedObject: {
          apiVersion: p.obj.apiVersion,
          kind: p.obj.kind,
          name: meta.name,
          ...(meta.namespace ? { namespace: meta.namespace } : {}),
          uid: meta.uid,
          resourceVersion: meta.resourceVersion,
        },
        reason: p.reason,
        message: p.message,
        type: p.type,
        source: { component },
        firstTimestamp: rfc3339(p.first),
        lastTimestamp: rfc3339(p.last),
        count: p.times,
      });
      remember(key, p.times);
      return true;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      return false;
    }
  }

  function flush(w: (typeof windows)[number]): void {
    w.timer = undefined;
    const batch = w.pending;
    w.pending = new Map();
    for (const [key, p] of batch) {
      const name = key.slice(key.indexOf("/") + 1);
      record(key, name, p).catch((err) =>
        deps.log.warn("event not recorded", { reason: p.reason, err: (err as Error).message }),
      );
    }
  }

  return {
    event(obj, type, reason, message) {
      const meta = obj.metadata ?? {};
      const id = createHash("sha256")
        .update(`${meta.uid}/${type}/${reason}/${message}`)
        .digest("hex")
        .slice(0, 16);
      // Events of cluster-scoped objects go to "default", as client-go puts them.
      const key = `${namespaceOf(obj)}/${meta.name}.${id}`;
      const now = deps.now();
      const seen = windows[0]!.pending.get(key) ?? windows[1]!.pending.get(key);
      if (seen) {
        seen.times++;
        seen.last = now;
        return;
      }
      const w = windows[counts.has(key) ? 1 : 0]!;
      w.pending.set(key, { obj, type, reason, message, first: now, last: now, times: 1 });
      if (!w.timer) {
        w.timer = setTimeout(() => flush(w), w.ms);
        w.timer.unref();
      }
    },
  };
}
