/**
 * The what-if's changes to the fleet (pure): parsing the command line's spelling of them
 * (`C=key[=value]:Effect`, `C=key:Effect-`, `C=key-`, `C=k=v`, `C=k-`) and applying them to a
 * copy of the Clusters, the way the real commands would change them: `karmadactl cordon`
 * adds `cluster.karmada.io/unschedulable:NoSchedule`, `karmadactl taint` sets taints (the
 * Cluster admission stamps `timeAdded` on a NoExecute one), `kubectl label` sets labels and
 * removing a cluster (`karmadactl unjoin`) marks it deleting, which is how the scheduler
 * sees it until its Works are gone.
 */
import { rfc3339 } from "../api/meta.ts";
import { isQualifiedName, isValidLabelValue } from "../api/validation/names.ts";
import type { ClusterObject, Taint } from "../karmada/types.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { taintToString } from "../machinery/tolerations.ts";
import type { FleetChanges, LabelChange, TaintChange } from "./types.ts";

/** The taint `karmadactl cordon` sets (src/cli/commands/cordon.ts; a test keeps them equal). */
export const CORDON_TAINT: Taint = { key: "cluster.karmada.io/unschedulable", effect: "NoSchedule" };

const EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/** Input the user must fix: the message says what and how. */
export class SimulationInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SimulationInputError";
  }
}

/** `C=rest`: the cluster name before the first `=`. */
function splitCluster(flag: string, spec: string, form: string): { cluster: string; rest: string } {
  const eq = spec.indexOf("=");
  if (eq <= 0 || eq === spec.length - 1) {
    throw new SimulationInputError(`${flag} ${JSON.stringify(spec)}: expected ${form}`);
  }
  return { cluster: spec.slice(0, eq), rest: spec.slice(eq + 1) };
}

const TAINT_FORM = "CLUSTER=KEY[=VALUE]:EFFECT, CLUSTER=KEY:EFFECT- or CLUSTER=KEY-";

/** `--taint C=key[=value]:Effect`, `C=key:Effect-` (remove that taint) or `C=key-` (every taint with the key). */
export function parseTaintFlag(spec: string): TaintChange {
  const { cluster, rest } = splitCluster("--taint", spec, TAINT_FORM);
  const remove = rest.endsWith("-");
  const body = remove ? rest.slice(0, -1) : rest;
  const bad = (why: string) =>
    new SimulationInputError(`--taint ${JSON.stringify(spec)}: ${why} (expected ${TAINT_FORM})`);
  const colon = body.split(":");
  if (colon.length > 2) throw bad("more than one ':'");
  const effect = colon[1] ?? "";
  if (colon.length === 2 && !EFFECTS.includes(effect)) {
    throw bad(`effect ${JSON.stringify(effect)} is not one of ${EFFECTS.join(", ")}`);
  }
  if (!remove && effect === "") throw bad("an effect is required");
  const kv = colon[0]!.split("=");
  if (kv.length > 2) throw bad("more than one '=' after the cluster name");
  const key = kv[0]!;
  const value = kv[1];
  const keyErrors = isQualifiedName(key);
  if (keyErrors.length > 0) throw bad(`key ${JSON.stringify(key)}: ${keyErrors.join("; ")}`);
  if (value !== undefined) {
    if (remove) throw bad("a removal names no value");
    const valueErrors = isValidLabelValue(value);
    if (valueErrors.length > 0) throw bad(`value ${JSON.stringify(value)}: ${valueErrors.join("; ")}`);
  }
  return {
    cluster,
    key,
    ...(value ? { value } : {}),
    effect,
    ...(remove ? { remove: true } : {}),
  };
}

const LABEL_FORM = "CLUSTER=KEY=VALUE or CLUSTER=KEY-";

/** `--label C=key=value` or `C=key-` (remove). */
export function parseLabelFlag(spec: string): LabelChange {
  const { cluster, rest } = splitCluster("--label", spec, LABEL_FORM);
  const bad = (why: string) =>
    new SimulationInputError(`--label ${JSON.stringify(spec)}: ${why} (expected ${LABEL_FORM})`);
  let key: string;
  let value: string | null;
  if (rest.endsWith("-") && !rest.includes("=")) {
    key = rest.slice(0, -1);
    value = null;
  } else {
    const eq = rest.indexOf("=");
    if (eq < 0) throw bad("no value");
    key = rest.slice(0, eq);
    value = rest.slice(eq + 1);
    const valueErrors = isValidLabelValue(value);
    if (valueErrors.length > 0) throw bad(`value ${JSON.stringify(value)}: ${valueErrors.join("; ")}`);
  }
  const keyErrors = isQualifiedName(key);
  if (keyErrors.length > 0) throw bad(`key ${JSON.stringify(key)}: ${keyErrors.join("; ")}`);
  return { cluster, key, value };
}

/** The command line's flags as changes. */
export function parseFleetChanges(flags: {
  withoutCluster?: readonly string[];
  cordon?: readonly string[];
  taint?: readonly string[];
  label?: readonly string[];
}): FleetChanges {
  const changes: FleetChanges = {};
  if (flags.withoutCluster?.length) changes.withoutClusters = [...flags.withoutCluster];
  if (flags.cordon?.length) changes.cordon = [...flags.cordon];
  if (flags.taint?.length) changes.taints = flags.taint.map(parseTaintFlag);
  if (flags.label?.length) changes.labels = flags.label.map(parseLabelFlag);
  return changes;
}

/** A cluster as it was and as the changes leave it. */
export interface ChangedCluster {
  before: ClusterObject;
  after: ClusterObject;
}

export interface ChangedFleet {
  /** Every cluster, changed ones replaced by their changed copies. */
  clusters: ClusterObject[];
  /** Only the clusters the changes altered. */
  changed: ChangedCluster[];
  /** The changes as sentences, in the order applied. */
  descriptions: string[];
}

const sameTaint = (a: Taint, b: { key: string; effect: string }): boolean =>
  a.key === b.key && a.effect === b.effect;

function taintsOf(c: ClusterObject): Taint[] {
  c.spec ??= {};
  c.spec.taints ??= [];
  return c.spec.taints;
}

/** Sets or removes one taint on `c` (a copy); returns the sentence saying so. */
function changeTaint(c: ClusterObject, change: TaintChange, now: number): string {
  const taints = taintsOf(c);
  if (change.remove) {
    const keep = taints.filter((t) => (change.effect ? !sameTaint(t, change) : t.key !== change.key));
    const shown = change.effect ? `${change.key}:${change.effect}` : change.key;
    if (keep.length === taints.length) {
      throw new SimulationInputError(
        `--taint ${change.cluster}=${shown}-: cluster ${change.cluster} has no taint ${shown}`,
      );
    }
    c.spec!.taints = keep;
    return `taint ${shown} removed from cluster ${change.cluster}`;
  }
  const taint: Taint = {
    key: change.key,
    ...(change.value ? { value: change.value } : {}),
    effect: change.effect,
    // The Cluster admission stamps NoExecute taints, and tolerationSeconds count from then.
    ...(change.effect === "NoExecute" ? { timeAdded: rfc3339(now) } : {}),
  };
  const at = taints.findIndex((t) => sameTaint(t, taint));
  if (at < 0) taints.push(taint);
  // The same key, effect and value is the taint that is there, with its own timeAdded.
  else if ((taints[at]!.value ?? "") !== (taint.value ?? "")) taints[at] = taint;
  return `cluster ${change.cluster} tainted ${taintToString(taint)}`;
}

/** Sets or removes one label on `c` (a copy); returns the sentence saying so. */
function changeLabel(c: ClusterObject, change: LabelChange): string {
  const labels = { ...c.metadata.labels };
  c.metadata.labels = labels;
  if (change.value === null) {
    delete labels[change.key];
    return `label ${change.key} removed from cluster ${change.cluster}`;
  }
  labels[change.key] = change.value;
  return `cluster ${change.cluster} labelled ${change.key}=${change.value}`;
}

/**
 * Applies the changes to copies of the clusters (the inputs are not touched). Throws
 * `SimulationInputError` for a cluster that does not exist or a taint removal that matches
 * nothing, as `karmadactl taint` refuses it.
 */
export function applyFleetChanges(
  clusters: readonly ClusterObject[],
  changes: FleetChanges,
  now: number,
): ChangedFleet {
  const byName = new Map(clusters.map((c) => [c.metadata.name, c]));
  const copies = new Map<string, ClusterObject>();
  const edit = (flag: string, name: string): ClusterObject => {
    const original = byName.get(name);
    if (!original) {
      const known = [...byName.keys()].sort().join(", ") || "none";
      throw new SimulationInputError(
        `${flag}: cluster ${JSON.stringify(name)} does not exist (clusters: ${known})`,
      );
    }
    const copy = copies.get(name) ?? cloneJson(original);
    copies.set(name, copy);
    return copy;
  };
  const descriptions: string[] = [];
  for (const name of changes.withoutClusters ?? []) {
    edit("--without-cluster", name).metadata.deletionTimestamp ??= rfc3339(now);
    descriptions.push(`cluster ${name} removed`);
  }
  for (const name of changes.cordon ?? []) {
    const taints = taintsOf(edit("--cordon", name));
    if (!taints.some((t) => sameTaint(t, CORDON_TAINT))) taints.push({ ...CORDON_TAINT });
    descriptions.push(`cluster ${name} cordoned`);
  }
  for (const change of changes.taints ?? [])
    descriptions.push(changeTaint(edit("--taint", change.cluster), change, now));
  for (const change of changes.labels ?? [])
    descriptions.push(changeLabel(edit("--label", change.cluster), change));

  // A taint list emptied reads as none, as Go's omitempty writes it.
  for (const c of copies.values()) if (c.spec?.taints?.length === 0) delete c.spec.taints;
  const changed: ChangedCluster[] = [];
  for (const [name, after] of copies) {
    const before = byName.get(name)!;
    if (JSON.stringify(before) !== JSON.stringify(after)) changed.push({ before, after });
  }
  return {
    clusters: clusters.map((c) => copies.get(c.metadata.name) ?? c),
    changed,
    descriptions,
  };
}
