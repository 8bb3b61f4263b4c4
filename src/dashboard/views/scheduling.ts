/**
 * The scheduler's per-cluster reasons for one binding, from the explanation it records on the
 * binding (`scheduler.karmada-ts.io/explanation`), shaped for a table: per attempt, each
 * cluster's outcome with a colour and the reason in words. `explanationText` gives the same
 * as `karmadactl describe` prints it.
 */
import { explanationText, recordedExplanation } from "../../scheduler/core/explanation.ts";
import type { AttemptExplanation, ClusterExplanation } from "../../scheduler/core/types.ts";
import type { SchedulingAttempt, SchedulingCluster } from "../wire.ts";

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function clusterRow(c: ClusterExplanation, workload: boolean): SchedulingCluster {
  if (c.deleting) {
    return {
      name: c.name,
      outcome: "being deleted",
      tone: "neutral",
      detail: "The cluster is being deleted.",
    };
  }
  if (c.filteredBy) {
    return {
      name: c.name,
      outcome: "filtered out",
      tone: "bad",
      filteredBy: c.filteredBy,
      detail: `${c.filteredBy}: ${c.reason ?? ""}`.trim(),
    };
  }
  const facts = [`score ${c.score ?? 0}`];
  if (c.fits !== undefined) facts.push(`fits ${plural(c.fits, "more replica")}`);
  if (c.assigned !== undefined) facts.push(`runs ${c.assigned} now`);
  if (c.overflowOrder !== undefined && c.overflowOrder > 0) {
    facts.push(c.overflowOrder >= 1000 ? "outside the affinity term" : `overflow group ${c.overflowOrder}`);
  }
  const replicas = c.selected && workload ? (c.replicas ?? 0) : undefined;
  return {
    name: c.name,
    outcome: c.selected ? "selected" : "not selected",
    tone: c.selected ? (replicas === 0 ? "neutral" : "good") : "warn",
    ...(replicas !== undefined ? { replicas } : {}),
    detail: c.selected ? facts.join(", ") : `Passed every filter but was not chosen (${facts.join(", ")}).`,
  };
}

function attemptView(a: AttemptExplanation, text: readonly string[]): SchedulingAttempt {
  const workload = a.needs !== undefined;
  const needs = a.needs
    ? `${plural(a.needs.replicas, "replica")}${
        a.needs.request && Object.keys(a.needs.request).length > 0
          ? `, each ${Object.entries(a.needs.request)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")}`
          : ""
      }`
    : undefined;
  const find = (prefix: string): string | undefined => text.find((l) => l.trim().startsWith(prefix))?.trim();
  return {
    ...(a.affinityName !== undefined ? { title: `Affinity term "${a.affinityName}"` } : {}),
    ...(needs ? { needs } : {}),
    clusters: a.clusters.map((c) => clusterRow(c, workload)),
    ...(a.spread ? { spread: find("spread by") ?? find("all feasible") ?? a.spread.by } : {}),
    ...(a.replicas
      ? {
          replicas: a.replicas.strategy
            ? (find(`${plural(a.replicas.replicas, "replica")} by`) ?? a.replicas.strategy)
            : "Not a workload: every selected cluster gets it, without replicas.",
        }
      : {}),
    ...(a.error ? { error: `${a.error.reason}: ${a.error.message}` } : {}),
  };
}

/** The recorded explanation as tables and as text; empty when the binding has none (yet). */
export function schedulingOf(annotations: Record<string, string> | undefined): {
  attempts: SchedulingAttempt[];
  text: string[];
} {
  const explanation = recordedExplanation(annotations);
  if (!explanation) return { attempts: [], text: [] };
  const text = explanationText(explanation);
  return {
    attempts: explanation.attempts.map((a) => attemptView(a, explanationText({ attempts: [a] }))),
    text,
  };
}
