/**
 * Workloads: every binding with its policy, replicas per cluster and health, live. Filtering,
 * sorting and paging happen here over the compact rows the backend streams, so a page of 50
 * rows is rendered whatever the fleet's size.
 */
import { useMemo } from "preact/hooks";
import type { Placement, Tone, WorkloadHealth, WorkloadRow, WorkloadsMeta } from "../../wire.ts";
import { useStream } from "../api.ts";
import { href, type Route, setQuery, workloadHref } from "../route.ts";
import { Badge, Empty, Forbidden, LivePill, Loading, PageHead, ProblemBanner, Time, useNow } from "../ui.tsx";

export const HEALTH_TONE: Record<WorkloadHealth, Tone> = {
  Healthy: "good",
  Progressing: "warn",
  Pending: "warn",
  Unknown: "neutral",
  Unhealthy: "bad",
  Unschedulable: "bad",
};

const HEALTH_ORDER: WorkloadHealth[] = [
  "Unschedulable",
  "Unhealthy",
  "Progressing",
  "Pending",
  "Unknown",
  "Healthy",
];

const PAGE_SIZE = 50;

export function placementTone(p: Placement): Tone {
  if (p.evicting) return "neutral";
  if (p.applied === false && p.appliedMessage) return "bad";
  if (p.health === "Healthy") return "good";
  if (p.health === "Unhealthy") return "bad";
  if (p.health === undefined) return "warn";
  return "neutral";
}

export function PlacementChips({ placements }: { placements: Placement[] }) {
  if (placements.length === 0) return <span class="muted">not placed</span>;
  return (
    <span class="placements">
      {placements.map((p) => (
        <span
          key={p.cluster}
          class={`placement tone-${placementTone(p)}${p.evicting ? " evicting" : ""}`}
          title={`${p.cluster}: ${p.evicting ? "leaving (graceful eviction)" : (p.health ?? "not reported yet")}${p.appliedMessage ? ` — ${p.appliedMessage}` : ""}`}
        >
          <span class="dot" aria-hidden="true" />
          {p.cluster}
          {p.replicas !== undefined && <span class="placement-n">×{p.replicas}</span>}
          {p.ready && (
            <>
              <span class="sep" aria-hidden="true">
                ·
              </span>
              <span class="placement-ready" title="ready replicas">
                {p.ready}
              </span>
            </>
          )}
          {p.evicting && <span class="placement-n">leaving</span>}
        </span>
      ))}
    </span>
  );
}

type SortKey = "name" | "health" | "replicas" | "updated";

function compare(sort: SortKey): (a: WorkloadRow, b: WorkloadRow) => number {
  const name = (r: WorkloadRow): string => `${r.namespace ?? ""}/${r.name}/${r.kind}`;
  switch (sort) {
    case "health":
      return (a, b) =>
        HEALTH_ORDER.indexOf(a.health) - HEALTH_ORDER.indexOf(b.health) || (name(a) < name(b) ? -1 : 1);
    case "replicas":
      return (a, b) => b.replicas - a.replicas || (name(a) < name(b) ? -1 : 1);
    case "updated":
      return (a, b) =>
        (a.updated ?? "") < (b.updated ?? "") ? 1 : (a.updated ?? "") > (b.updated ?? "") ? -1 : 0;
    default:
      return (a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
  }
}

function matches(r: WorkloadRow, q: string): boolean {
  if (!q) return true;
  const text = `${r.kind} ${r.namespace ?? ""}/${r.name} ${r.policy?.name ?? ""} ${r.placements.map((p) => p.cluster).join(" ")}`;
  return text.toLowerCase().includes(q);
}

export function WorkloadsPage({
  route,
  namespace,
  user,
}: {
  route: Route;
  namespace?: string;
  user?: string;
}) {
  const stream = useStream<WorkloadRow, WorkloadsMeta>("workloads", { ns: namespace });
  const now = useNow();
  const q = (route.query.get("q") ?? "").trim().toLowerCase();
  const health = route.query.get("health") as WorkloadHealth | null;
  const sort = (route.query.get("sort") as SortKey | null) ?? "name";
  const pageNo = Math.max(1, Number(route.query.get("page") ?? "1") || 1);

  const all = useMemo(() => [...stream.rows.values()], [stream.version]);
  const shown = useMemo(
    () => all.filter((r) => (!health || r.health === health) && matches(r, q)).sort(compare(sort)),
    [all, q, health, sort],
  );
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const page = Math.min(pageNo, pages);
  const rows = shown.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const meta = stream.meta;

  const header = (key: SortKey, label: string) => (
    <th
      class={`sortable${sort === key ? " sorted" : ""}`}
      onClick={() => setQuery(route, { sort: key === "name" ? undefined : key, page: undefined })}
    >
      {label}
    </th>
  );

  return (
    <div class="page">
      <PageHead
        title="Workloads"
        subtitle={`Resource templates that policies propagate${namespace ? ` in namespace ${namespace}` : ""}: where each runs, with how many replicas, and how healthy.`}
      >
        <LivePill connection={stream.connection} error={stream.error} />
      </PageHead>
      {meta && meta.total > 0 && (
        <div class="summary">
          <a
            class={`summary-item filter-chip${!health ? " active" : ""}`}
            href={href("workloads", { q: q || undefined })}
          >
            <strong data-testid="workload-total">{meta.total.toLocaleString("en-US")}</strong> workloads
          </a>
          {HEALTH_ORDER.filter((h) => meta.byHealth[h]).map((h) => (
            <a
              key={h}
              class={`filter-chip${health === h ? " active" : ""}`}
              href={href("workloads", { health: h, q: q || undefined })}
            >
              <Badge tone={HEALTH_TONE[h]}>
                {meta.byHealth[h]!.toLocaleString("en-US")} {h}
              </Badge>
            </a>
          ))}
          <span class="spacer" />
          <input
            class="filter"
            type="search"
            placeholder="Filter by name, kind, policy, cluster"
            aria-label="Filter workloads"
            value={route.query.get("q") ?? ""}
            onInput={(e) => setQuery(route, { q: (e.target as HTMLInputElement).value, page: undefined })}
          />
        </div>
      )}
      {!stream.synced && stream.problems.length === 0 ? (
        <Loading what="workloads" />
      ) : all.length === 0 && stream.problems.length > 0 ? (
        <Forbidden problems={stream.problems} {...(user ? { user } : {})} />
      ) : all.length === 0 ? (
        <Empty title={namespace ? `No workloads in namespace ${namespace}` : "No workloads yet"}>
          <p>
            A workload appears here once a PropagationPolicy selects a resource template. Try upstream's quick
            start:
          </p>
          <pre>kubectl apply -f samples/nginx/deployment.yaml -f samples/nginx/propagationpolicy.yaml</pre>
        </Empty>
      ) : (
        <>
          <ProblemBanner problems={stream.problems} />
          <div class="table-wrap">
            <table class="table workloads">
              <thead>
                <tr>
                  {header("health", "Health")}
                  {header("name", "Workload")}
                  <th>Policy</th>
                  {header("replicas", "Replicas")}
                  <th>Clusters</th>
                  {header("updated", "Changed")}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.key} data-key={r.key}>
                    <td>
                      <Badge tone={HEALTH_TONE[r.health]} title={r.healthText}>
                        {r.health}
                      </Badge>
                    </td>
                    <td>
                      <a class="workload-name" href={workloadHref(r.key)}>
                        <span class="kind">{r.kind}</span>
                        <span class="name">
                          {r.namespace ? `${r.namespace}/` : ""}
                          {r.name}
                        </span>
                      </a>
                      {r.health !== "Healthy" && <div class="why small">{r.healthText}</div>}
                    </td>
                    <td>
                      {r.policy ? (
                        <a href={href("policies", { q: r.policy.name })} title={r.policy.kind}>
                          {r.policy.name}
                        </a>
                      ) : (
                        <span class="muted">—</span>
                      )}
                    </td>
                    <td class="num">{r.replicas > 0 ? r.replicas : <span class="muted">—</span>}</td>
                    <td>
                      <PlacementChips placements={r.placements} />
                    </td>
                    <td class="muted">
                      <Time iso={r.updated} now={now} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {shown.length === 0 && <Empty title="No workload matches the filter" />}
          </div>
          <nav class="pager" aria-label="pages">
            <span data-testid="showing">
              {shown.length === 0
                ? "Nothing to show"
                : `Showing ${((page - 1) * PAGE_SIZE + 1).toLocaleString("en-US")}–${Math.min(page * PAGE_SIZE, shown.length).toLocaleString("en-US")} of ${shown.length.toLocaleString("en-US")}`}
            </span>
            <button
              type="button"
              disabled={page <= 1}
              onClick={() => setQuery(route, { page: String(page - 1) })}
            >
              ← Previous
            </button>
            <span>
              Page {page} of {pages}
            </span>
            <button
              type="button"
              disabled={page >= pages}
              onClick={() => setQuery(route, { page: String(page + 1) })}
            >
              Next →
            </button>
          </nav>
        </>
      )}
    </div>
  );
}
