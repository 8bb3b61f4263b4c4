/**
 * The what-if page runs `karmadactl simulate`'s engine (src/simulate) with the signed-in
 * user's client: the fleet is read with the user's rights, changed in memory, and nothing is
 * written anywhere. This turns the engine's report into what the page shows.
 */
import type { Client } from "../../client/client.ts";
import { parseFleetChanges, SimulationInputError } from "../../simulate/changes.ts";
import { loadFleet } from "../../simulate/fleet.ts";
import { parseManifests } from "../../simulate/manifests.ts";
import { simulate } from "../../simulate/simulate.ts";
import type { BindingChange, SimulationReport, TemplateResult } from "../../simulate/types.ts";
import type { Tone, WhatIfMove, WhatIfRequest, WhatIfResult, WhatIfTemplate } from "../wire.ts";

function strings(v: unknown, field: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) {
    throw new SimulationInputError(`${field} must be a list of strings`);
  }
  return (v as string[]).map((s) => s.trim()).filter((s) => s !== "");
}

/** The request body, checked: a message saying what to fix otherwise. */
export function readWhatIfRequest(body: unknown): WhatIfRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new SimulationInputError("the request must be a JSON object");
  }
  const b = body as Record<string, unknown>;
  if (b.manifests !== undefined && typeof b.manifests !== "string") {
    throw new SimulationInputError("manifests must be YAML or JSON text");
  }
  if (b.failover !== undefined && typeof b.failover !== "boolean") {
    throw new SimulationInputError("failover must be true or false");
  }
  const manifests = typeof b.manifests === "string" && b.manifests.trim() !== "" ? b.manifests : undefined;
  return {
    withoutClusters: strings(b.withoutClusters, "withoutClusters"),
    cordon: strings(b.cordon, "cordon"),
    taints: strings(b.taints, "taints"),
    labels: strings(b.labels, "labels"),
    ...(manifests ? { manifests } : {}),
    ...(b.failover !== undefined ? { failover: b.failover as boolean } : {}),
  };
}

function moveOf(c: BindingChange): WhatIfMove {
  const r = c.resource;
  const key = c.kind === "ResourceBinding" ? `rb/${c.namespace ?? ""}/${c.name}` : `crb/${c.name}`;
  return {
    key,
    label: `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}`,
    workload: c.workload,
    ...(c.replicas !== undefined ? { replicas: c.replicas } : {}),
    shifts: c.shifts.map((s) => ({
      cluster: s.cluster,
      before: s.before,
      after: s.after,
      ...(s.why ? { why: s.why } : {}),
    })),
    evictions: (c.evictions ?? []).map(
      (e) => `${e.cluster}: ${e.why}${e.afterSeconds ? ` (after ${e.afterSeconds}s)` : ""}`,
    ),
    ...(c.failure ? { failure: `${c.failure.reason}: ${c.failure.message}` } : {}),
    ...(c.follows?.length ? { follows: c.follows } : {}),
  };
}

const TEMPLATE_TONE: Record<TemplateResult["outcome"], Tone> = {
  Scheduled: "good",
  Unchanged: "neutral",
  Unschedulable: "bad",
  NotPropagated: "warn",
};

function templateOf(t: TemplateResult): WhatIfTemplate {
  const p = t.policy;
  return {
    label: `${t.kind} ${t.namespace ? `${t.namespace}/` : ""}${t.name}`,
    outcome: t.outcome,
    tone: TEMPLATE_TONE[t.outcome],
    ...(t.message ? { message: t.message } : {}),
    ...(p
      ? {
          policy: `${p.kind} ${p.namespace ? `${p.namespace}/` : ""}${p.name}${p.fromFile ? " (given)" : ""}`,
        }
      : {}),
    placement: t.placement.map((c) => ({
      cluster: c.name,
      ...(t.workload ? { replicas: c.replicas ?? 0 } : {}),
    })),
    filtered: t.clusters
      .filter((c) => c.filteredBy)
      .map((c) => ({ cluster: c.name, reason: `${c.filteredBy}: ${c.reason ?? ""}`.trim() })),
  };
}

export function whatIfResult(report: SimulationReport): WhatIfResult {
  return {
    changes: report.changes,
    warnings: report.warnings,
    ...(report.bindings
      ? { replay: { ...report.bindings.summary, moves: report.bindings.changes.map(moveOf) } }
      : {}),
    ...(report.templates ? { templates: report.templates.results.map(templateOf) } : {}),
  };
}

/** Runs the what-if as the user: reads the fleet with `client`, writes nothing. */
export async function runWhatIf(client: Client, request: WhatIfRequest): Promise<WhatIfResult> {
  const changes = parseFleetChanges({
    withoutCluster: request.withoutClusters,
    cordon: request.cordon,
    taint: request.taints,
    label: request.labels,
  });
  const manifests = request.manifests ? parseManifests(request.manifests, "the given manifests") : undefined;
  const fleet = await loadFleet(client);
  const report = await simulate(fleet, changes, {
    ...(manifests ? { manifests } : {}),
    ...(request.failover !== undefined ? { features: { Failover: request.failover } } : {}),
    scopeOf: (apiVersion, kind) =>
      client.resourceFor(apiVersion, kind).then(
        (r) => r.namespaced,
        () => undefined,
      ),
  });
  return whatIfResult(report);
}
