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
  return {
    event(obj, type, reason, message) {
      const meta = obj.metadata ?? {};
      // Events of cluster-scoped objects go to "default", as client-go puts them.
      const namespace = meta.namespace || "default";
      const id = createHash("sha256")
        .update(`${meta.uid}/${type}/${reason}/${message}`)
        .digest("hex")
        .slice(0, 16);
      const name = `${meta.name}.${id}`;
      const now = deps.now();
      const key = `${namespace}/${name}`;
      const write = async (): Promise<void> => {
        try {
          let count = counts.get(key);
          if (count === undefined) {
            const existing = await client.get(RESOURCES.events, namespace, name);
            count = (existing.count as number | undefined) ?? 1;
          }
          remember(key, count + 1);
          await client.patch(RESOURCES.events, namespace, name, "merge", {
            count: count + 1,
            lastTimestamp: rfc3339(now),
          });
        } catch (err) {
          if (!isNotFound(err)) throw err;
          remember(key, 1);
          await create();
        }
      };
      const create = async (): Promise<void> => {
        try {
          await client.create(RESOURCES.events, {
            apiVersion: "v1",
            kind: "Event",
            metadata: { name, namespace },
            involvedObject: {
              apiVersion: obj.apiVersion,
              kind: obj.kind,
              name: meta.name,
              ...(meta.namespace ? { namespace: meta.namespace } : {}),
              uid: meta.uid,
              resourceVersion: meta.resourceVersion,
            },
            reason,
            message,
            type,
            source: { component },
            firstTimestamp: rfc3339(now),
            lastTimestamp: rfc3339(now),
            count: 1,
          });
        } catch (err) {
          // The same event a moment earlier from another worker: count this one on top.
          if (!isAlreadyExists(err)) throw err;
          counts.delete(key);
          await write();
        }
      };
      write().catch((err) => deps.log.warn("event not recorded", { reason, err: (err as Error).message }));
    },
  };
}
