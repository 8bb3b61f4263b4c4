/**
 * The explanation as lines for people (`kubectl describe`, `karmadactl`): per attempt, why each
 * cluster was kept or dropped, how spread constraints chose, and how replicas were divided.
 */
import type {
  AttemptExplanation,
  ClusterExplanation,
  ReplicaExplanation,
  ScheduleExplanation,
  SpreadExplanation,
} from "./types.ts";

/** The binding annotation holding the last decision's explanation, as JSON. */
export const EXPLANATION_ANNOTATION = "scheduler.karmada-ts.io/explanation";

/** The explanation recorded on a binding, or undefined when there is none or it is unreadable. */
export function recordedExplanation(
  annotations: Record<string, string> | undefined,
): ScheduleExplanation | undefined {
  const raw = annotations?.[EXPLANATION_ANNOTATION];
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as ScheduleExplanation;
  } catch {
    return undefined;
  }
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function request(r: Record<string, string> | undefined): string {
  if (!r) return "";
  const parts = Object.entries(r).map(([k, v]) => `${k}: ${v}`);
  return parts.length ? ` of {${parts.join(", ")}}` : "";
}

function clusterLine(c: ClusterExplanation, workload: boolean, perReplica: string): string {
  if (c.deleting) return `${c.name}: skipped, the cluster is being deleted`;
  if (c.filteredBy) return `${c.name}: filtered out by ${c.filteredBy}: ${c.reason}`;
  const facts = [`score ${c.score ?? 0}`];
  if (c.fits !== undefined) facts.push(`fits ${plural(c.fits, "more replica")}${perReplica}`);
  if (c.assigned !== undefined) facts.push(`runs ${c.assigned}`);
  if (c.overflowOrder !== undefined) {
    facts.push(c.overflowOrder >= 1000 ? "outside the affinity term" : `overflow group ${c.overflowOrder}`);
  }
  let outcome = c.selected ? "selected" : "passed, not selected";
  if (c.selected && c.replicas !== undefined) outcome = `selected, ${plural(c.replicas, "replica")}`;
  else if (c.selected && workload) outcome = "selected, no replicas";
  return `${c.name}: ${outcome} (${facts.join(", ")})`;
}

function spreadLine(s: SpreadExplanation): string {
  switch (s.by) {
    case "all":
      return s.ignored ? `all feasible clusters selected (${s.ignored})` : "all feasible clusters selected";
    case "cluster": {
      const need = s.needReplicas !== undefined ? `, together fitting ${s.needReplicas} replicas` : "";
      return `spread by cluster: between ${s.minGroups} and ${s.maxGroups} clusters${need}`;
    }
    case "region": {
      const regions = (s.regions ?? [])
        .map((r) => `${r.name} (score ${r.score}, ${r.clusters} clusters)`)
        .join(", ");
      const chosen = s.chosenRegions?.length ? `; chose ${s.chosenRegions.join(", ")}` : "";
      return `spread by region: regions ${regions}${chosen}; clusters between ${s.minGroups} and ${s.maxGroups}`;
    }
  }
}

function replicaLine(r: ReplicaExplanation): string {
  if (!r.strategy) return "not a workload: every selected cluster gets it, without replicas";
  let line = `${plural(r.replicas, "replica")} by ${r.strategy}`;
  if (r.mode) line += `, ${r.mode}`;
  if (r.previouslyAssigned !== undefined && r.mode !== "fresh") line += ` from ${r.previouslyAssigned}`;
  if (r.weights) {
    line += `, weights ${Object.entries(r.weights)
      .map(([n, w]) => `${n}=${w}`)
      .join(" ")}`;
  }
  if (r.tiers) {
    line += `, overflow tiers ${r.tiers.map((t) => `${t.overflowOrder}:${t.replicas}${t.mode ? ` (${t.mode})` : ""}`).join(" ")}`;
  }
  return line;
}

function attemptLines(a: AttemptExplanation): string[] {
  const lines: string[] = [];
  if (a.affinityName !== undefined)
    lines.push(`affinity term "${a.affinityName}" (index ${a.affinityIndex ?? 0}):`);
  const perReplica = a.needs ? request(a.needs.request) : "";
  if (a.needs) {
    const fits = a.clusters.filter((c) => c.selected && c.fits !== undefined).map((c) => c.fits!);
    const total = fits.length ? `; the selected clusters fit ${fits.reduce((x, y) => x + y, 0)} more` : "";
    lines.push(`  needs ${plural(a.needs.replicas, "replica")}${perReplica}${total}`);
  }
  for (const c of a.clusters) lines.push(`  ${clusterLine(c, a.needs !== undefined, perReplica)}`);
  if (a.spread) lines.push(`  ${spreadLine(a.spread)}`);
  if (a.replicas) lines.push(`  ${replicaLine(a.replicas)}`);
  if (a.error) lines.push(`  failed (${a.error.reason}): ${a.error.message}`);
  return lines;
}

export function explanationText(explanation: ScheduleExplanation): string[] {
  const lines = explanation.attempts.flatMap(attemptLines);
  if (explanation.affinityName !== undefined)
    lines.push(`scheduled with affinity term "${explanation.affinityName}"`);
  return lines;
}
