/**
 * `karmadactl cordon CLUSTER` / `karmadactl uncordon CLUSTER`: add or remove the
 * `cluster.karmada.io/unschedulable:NoSchedule` taint, so that the scheduler's TaintToleration
 * filter keeps new workloads off the cluster (what it already runs stays). Output as upstream's:
 * `<name> cluster cordoned`, `<name> cluster already cordoned` (and the uncordon forms).
 */
import { RESOURCES } from "../../client/client.ts";
import type { Taint } from "../../karmada/types.ts";
import { type ClientFactory, CommandError, type CommandIO } from "../io.ts";
import { clusterTaints, taintsPatch } from "./taint.ts";

export const TAINT_UNSCHEDULABLE = "cluster.karmada.io/unschedulable";

const isUnschedulable = (t: Taint): boolean => t.key === TAINT_UNSCHEDULABLE && t.effect === "NoSchedule";

export interface CordonOptions {
  /** The positional arguments: exactly one cluster name. */
  args: string[];
  dryRun: boolean;
}

/** Upstream's Complete: one cluster name. */
export function cordonTarget(args: readonly string[]): string {
  if (args.length === 0) throw new CommandError("cluster name is required");
  if (args.length > 1) throw new CommandError("more than one cluster name is not supported");
  return args[0]!;
}

/** The taints with (cordon) or without (uncordon) the unschedulable taint; undefined when nothing changes. */
export function cordonTaints(taints: readonly Taint[], cordon: boolean): Taint[] | undefined {
  const at = taints.findIndex(isUnschedulable);
  if (cordon) return at >= 0 ? undefined : [...taints, { key: TAINT_UNSCHEDULABLE, effect: "NoSchedule" }];
  if (at < 0) return undefined;
  // As upstream: only the first match goes, and the last taint takes its place.
  const out = taints.slice(0, -1);
  if (at < out.length) out[at] = taints[taints.length - 1]!;
  return out;
}

export async function runCordon(
  cordon: boolean,
  opts: CordonOptions,
  io: CommandIO,
  clients: ClientFactory,
): Promise<void> {
  const name = cordonTarget(opts.args);
  const verb = cordon ? "cordon" : "uncordon";
  const karmada = await clients.controlPlane();
  const cluster = await karmada.get(RESOURCES.clusters, undefined, name);
  const taints = cordonTaints(clusterTaints(cluster), cordon);
  if (!taints) {
    io.stdout.write(`${name} cluster already ${verb}ed\n`);
    return;
  }
  if (!opts.dryRun) await karmada.patch(RESOURCES.clusters, undefined, name, "merge", taintsPatch(taints));
  io.stdout.write(`${name} cluster ${verb}ed\n`);
}
