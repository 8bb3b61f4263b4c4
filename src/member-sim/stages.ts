/**
 * Stages, kwok style: the simulated cluster's behaviour as data. A stage says when it
 * applies to an object (`when`), what happens then (`next`: a status to merge in, or a
 * delete), and how long after it started to apply that happens (`delayMs`). The runner
 * applies the first stage whose `when` holds; the write changes the object, which brings
 * the next stage. Stages are pure, so they are tested as input/output pairs.
 */
import type { StoredObject } from "../api/meta.ts";
import type { Client, ResourceRef } from "../client/client.ts";
import { isConflict, isNotFound } from "../machinery/errors.ts";
import type { Controller } from "../runtime/controller.ts";
import type { Informer } from "../runtime/informer.ts";

export type StageAction =
  /** Merged into `.status` (JSON merge patch: objects merge, arrays and scalars replace, null removes). */
  | { status: Record<string, unknown> }
  /** Deletes the object (gracePeriodSeconds as given, else the object's default). */
  | { delete: true; gracePeriodSeconds?: number };

export interface Stage<Env> {
  name: string;
  when(obj: StoredObject, env: Env): boolean;
  next(obj: StoredObject, env: Env): StageAction;
  /** Real milliseconds from the stage starting to apply to its action (default 0). */
  delayMs?: number | ((obj: StoredObject, env: Env) => number);
}

export interface StageRunnerOptions<Env> {
  name: string;
  informer: Informer;
  resource: ResourceRef;
  stages: ReadonlyArray<Stage<Env>>;
  /** The environment stages see, fresh for every reconcile. */
  env(): Env;
  client: Pick<Client, "patch" | "delete">;
  /** Monotonic real milliseconds (delays). */
  monotonic(): number;
  /** Write status through `/status` (true for built-ins and CRDs with the status subresource). */
  statusSubresource: boolean | (() => boolean);
  watches?: Controller["watches"];
  fieldManager?: string;
  /** Called after a stage's action was written. */
  onApplied?(stage: string, obj: StoredObject): void;
}

/** The first stage that applies, or undefined. */
export function matchStage<Env>(
  stages: ReadonlyArray<Stage<Env>>,
  obj: StoredObject,
  env: Env,
): Stage<Env> | undefined {
  return stages.find((s) => s.when(obj, env));
}

/** A controller applying stages to the objects of one informer. */
export function stageController<Env>(opts: StageRunnerOptions<Env>): Controller {
  /** When the stage that currently applies to each object is due (by key). */
  const pending = new Map<string, { stage: string; uid: string | undefined; due: number }>();
  return {
    name: opts.name,
    for: opts.informer,
    ...(opts.watches ? { watches: opts.watches } : {}),
    async reconcile(_ctx, key) {
      const obj = opts.informer.getByKey(key);
      const env = obj ? opts.env() : undefined;
      const stage = obj && env !== undefined ? matchStage(opts.stages, obj, env) : undefined;
      if (!obj || !stage || env === undefined) {
        pending.delete(key);
        return undefined;
      }
      const now = opts.monotonic();
      let p = pending.get(key);
      if (!p || p.stage !== stage.name || p.uid !== obj.metadata.uid) {
        const delay = typeof stage.delayMs === "function" ? stage.delayMs(obj, env) : (stage.delayMs ?? 0);
        p = { stage: stage.name, uid: obj.metadata.uid, due: now + Math.max(0, delay) };
        pending.set(key, p);
      }
      if (now < p.due) return { requeueAfterMs: Math.ceil(p.due - now) };
      // Kept until the action succeeded: a retry after a conflict is due at once.
      await apply(opts, obj, stage.next(obj, env));
      pending.delete(key);
      opts.onApplied?.(stage.name, obj);
      return undefined;
    },
  };
}

async function apply<Env>(
  opts: StageRunnerOptions<Env>,
  obj: StoredObject,
  action: StageAction,
): Promise<void> {
  const { namespace, name, uid, resourceVersion } = obj.metadata;
  try {
    if ("delete" in action) {
      await opts.client.delete(opts.resource, namespace, name!, {
        ...(action.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: action.gracePeriodSeconds } : {}),
        ...(uid ? { preconditions: { uid } } : {}),
      });
      return;
    }
    const sub =
      typeof opts.statusSubresource === "function" ? opts.statusSubresource() : opts.statusSubresource;
    await opts.client.patch(
      opts.resource,
      namespace,
      name!,
      "merge",
      { metadata: { resourceVersion }, status: action.status },
      { ...(sub ? { subresource: "status" } : {}), fieldManager: opts.fieldManager ?? "member-sim" },
    );
  } catch (err) {
    // Gone: nothing to do. Changed meanwhile: the informer brings the new state (and a reconcile).
    if (isNotFound(err)) return;
    if (isConflict(err) && "delete" in action) return;
    throw err;
  }
}
