/**
 * `karmadactl taint clusters NAME... KEY_1=VAL_1:EFFECT_1 ... KEY_N-`: kubectl taint's syntax
 * for Clusters. `key=value:Effect` or `key:Effect` adds (replacing a taint with the same key and
 * effect only with `--overwrite`), `key:Effect-` removes that taint, `key-` every taint with the
 * key. Each cluster prints `cluster/<name> tainted|untainted|modified`, as upstream's. Upstream
 * neither stamps `timeAdded` here nor selects clusters by label (`-l`, `--all`): the Cluster
 * admission stamps NoExecute taints that come without one.
 */
import { isObject, type StoredObject } from "../../api/meta.ts";
import { isQualifiedName, isValidLabelValue } from "../../api/validation/names.ts";
import { RESOURCES } from "../../client/client.ts";
import type { Taint } from "../../karmada/types.ts";
import { type ClientFactory, CommandError, type CommandIO } from "../io.ts";

export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

/** A removal: by key and effect, or (effect `""`) every taint with the key. */
export interface TaintRemoval {
  key: string;
  effect: string;
}

export interface TaintChanges {
  toAdd: Taint[];
  toRemove: TaintRemoval[];
}

/** `Taint.ToString()`: `key=value:Effect`, `key:Effect`, `key=value` or `key`. */
export function taintString(t: { key: string; value?: string; effect: string }): string {
  const kv = t.value ? `${t.key}=${t.value}` : t.key;
  return t.effect ? `${kv}:${t.effect}` : kv;
}

/** Go's `%v` of a corev1.Taint value, as upstream's duplicate message prints it. */
function goTaintValue(t: Taint): string {
  return `{${t.key} ${t.value ?? ""} ${t.effect} <nil>}`;
}

/** One spec without a trailing `-`: `key=value:effect`, `key:effect` or `key` (effect `""`). */
export function parseTaint(spec: string): Taint {
  const parts = spec.split(":");
  let key: string;
  let value = "";
  let effect = "";
  if (parts.length === 1) {
    key = parts[0]!;
  } else if (parts.length === 2) {
    effect = parts[1]!;
    if (!(TAINT_EFFECTS as readonly string[]).includes(effect)) {
      throw new CommandError(`invalid taint effect: ${effect}, unsupported taint effect`);
    }
    const kv = parts[0]!.split("=");
    if (kv.length > 2) throw new CommandError(`invalid taint spec: ${spec}`);
    key = kv[0]!;
    if (kv.length === 2) {
      value = kv[1]!;
      const msgs = isValidLabelValue(value);
      if (msgs.length > 0) throw new CommandError(`invalid taint spec: ${spec}, ${msgs.join("; ")}`);
    }
  } else {
    throw new CommandError(`invalid taint spec: ${spec}`);
  }
  const msgs = isQualifiedName(key);
  if (msgs.length > 0) throw new CommandError(`invalid taint spec: ${spec}, ${msgs.join("; ")}`);
  return value ? { key, value, effect } : { key, effect };
}

/**
 * The taint arguments as additions and removals. A taint to add needs an effect and may
 * appear once per key and effect.
 */
export function parseTaints(specs: readonly string[]): TaintChanges {
  const toAdd: Taint[] = [];
  const toRemove: TaintRemoval[] = [];
  const seen = new Set<string>();
  for (const spec of specs) {
    if (spec.endsWith("-")) {
      const t = parseTaint(spec.slice(0, -1));
      toRemove.push({ key: t.key, effect: t.effect });
      continue;
    }
    const t = parseTaint(spec);
    if (!t.effect) throw new CommandError(`invalid taint spec: ${spec}`);
    const id = `${t.effect}\u0000${t.key}`;
    if (seen.has(id)) {
      throw new CommandError(`duplicated taints with the same key and effect: ${goTaintValue(t)}`);
    }
    seen.add(id);
    toAdd.push(t);
  }
  return { toAdd, toRemove };
}

/**
 * The positional arguments split into resources (`clusters`, names) and taint arguments: the
 * first argument with `=`, `:` or a trailing `-` starts the taints, and every later one must be one.
 */
export function splitTaintArgs(args: readonly string[]): { resources: string[]; taintArgs: string[] } {
  const resources: string[] = [];
  const taintArgs: string[] = [];
  for (const arg of args) {
    const isTaint = arg.includes("=") || arg.includes(":") || arg.endsWith("-");
    if (isTaint) taintArgs.push(arg);
    else if (taintArgs.length > 0) {
      throw new CommandError(`all resources must be specified before taint changes: ${arg}`);
    } else resources.push(arg);
  }
  return { resources, taintArgs };
}

export interface TaintRequest extends TaintChanges {
  clusters: string[];
}

/** Upstream's Complete and Validate, in its order and with its messages. */
export function parseTaintCommand(args: readonly string[]): TaintRequest {
  const { resources, taintArgs } = splitTaintArgs(args);
  if (resources.length < 1) {
    throw new CommandError("one or more resources must be specified as <resource> <name>");
  }
  if (taintArgs.length < 1) throw new CommandError("at least one taint update is required");
  const changes = parseTaints(taintArgs);
  const type = resources[0]!.toLowerCase();
  if (type !== "cluster" && type !== "clusters") {
    throw new CommandError(`invalid resource type ${type}, only ["cluster" "clusters"] are supported`);
  }
  const conflicts: string[] = [];
  for (const add of changes.toAdd) {
    for (const rm of changes.toRemove) {
      if (add.key !== rm.key) continue;
      if (rm.effect === "" || rm.effect === add.effect) conflicts.push(`{"${rm.key}":"${rm.effect}"}`);
    }
  }
  if (conflicts.length > 0) {
    throw new CommandError(
      `can not both modify and remove the following taint(s) in the same command: ${conflicts.join(", ")}`,
    );
  }
  if (resources.length < 2) throw new CommandError("at least one resource name must be specified");
  return { clusters: resources.slice(1), ...changes };
}

export type TaintOperation = "tainted" | "untainted" | "modified";

const sameTaint = (a: { key: string; effect: string }, b: { key: string; effect: string }): boolean =>
  a.key === b.key && a.effect === b.effect;

/** Go's aggregate error text: the one message, or `[a, b]`. */
function aggregate(messages: string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(", ")}]`;
}

/**
 * A cluster's new taints and what to call the change. Added taints come first, then the old
 * ones they do not replace, then removals apply; a removal that matches nothing fails the
 * whole change, as does adding an existing key and effect without `overwrite`.
 */
export function changeTaints(
  clusterName: string,
  current: readonly Taint[],
  changes: TaintChanges,
  overwrite: boolean,
): { operation: TaintOperation; taints: Taint[] } {
  if (!overwrite) {
    const existing = changes.toAdd.flatMap((t) => current.filter((c) => sameTaint(c, t)).map(() => t.key));
    if (existing.length > 0) {
      throw new CommandError(
        `cluster ${clusterName} already has ${existing.join(",")} taint(s) with same effect(s) and --overwrite is false`,
      );
    }
  }
  let taints: Taint[] = [...changes.toAdd];
  for (const old of current) if (!taints.some((t) => sameTaint(t, old))) taints.push(old);
  const added = taints.length !== current.length;
  const errors: string[] = [];
  // Upstream decides between "untainted" and "modified" by the last removal only.
  let removed = false;
  for (const rm of changes.toRemove) {
    const before = taints.length;
    taints = taints.filter((t) => (rm.effect ? !sameTaint(t, rm) : t.key !== rm.key));
    removed = taints.length !== before;
    if (!removed) errors.push(`taint ${JSON.stringify(taintString(rm))} not found`);
  }
  if (errors.length > 0) throw new CommandError(aggregate(errors));
  const operation: TaintOperation =
    (added && removed) || overwrite ? "modified" : added ? "tainted" : "untainted";
  return { operation, taints };
}

export function clusterTaints(cluster: StoredObject): Taint[] {
  const spec = isObject(cluster.spec) ? cluster.spec : {};
  return Array.isArray(spec.taints) ? (spec.taints as Taint[]) : [];
}

/** A merge patch setting the Cluster's taints; an empty list is dropped, as Go's `omitempty` leaves it out. */
export function taintsPatch(taints: readonly Taint[]): { spec: { taints: Taint[] | null } } {
  return { spec: { taints: taints.length > 0 ? [...taints] : null } };
}

export interface TaintOptions {
  /** The positional arguments: `clusters NAME... TAINT...`. */
  args: string[];
  overwrite: boolean;
  dryRun: boolean;
}

export async function runTaint(opts: TaintOptions, io: CommandIO, clients: ClientFactory): Promise<void> {
  const request = parseTaintCommand(opts.args);
  const karmada = await clients.controlPlane();
  // As upstream (ContinueOnError): every cluster is tried, the failures are reported together.
  const errors: unknown[] = [];
  for (const name of request.clusters) {
    try {
      const cluster = await karmada.get(RESOURCES.clusters, undefined, name);
      const { operation, taints } = changeTaints(name, clusterTaints(cluster), request, opts.overwrite);
      if (!opts.dryRun)
        await karmada.patch(RESOURCES.clusters, undefined, name, "merge", taintsPatch(taints));
      io.stdout.write(`cluster/${name} ${operation}\n`);
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) {
    throw new CommandError(aggregate(errors.map((e) => (e instanceof Error ? e.message : String(e)))));
  }
}
