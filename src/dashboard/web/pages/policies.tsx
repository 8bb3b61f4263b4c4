/** Policies: each propagation policy with what it selects, where it places, and what it claims; each override policy with its rules. */
import { useMemo, useState } from "preact/hooks";
import type { PoliciesMeta, PolicyRow } from "../../wire.ts";
import { useStream } from "../api.ts";
import { type Route, setQuery, workloadHref } from "../route.ts";
import { Card, Chip, Empty, Forbidden, LivePill, Loading, PageHead, ProblemBanner, plural } from "../ui.tsx";

const SHORT: Record<PolicyRow["kind"], string> = {
  PropagationPolicy: "PP",
  ClusterPropagationPolicy: "CPP",
  OverridePolicy: "OP",
  ClusterOverridePolicy: "COP",
};

function Claims({ row }: { row: PolicyRow }) {
  const [all, setAll] = useState(false);
  const shown = all ? row.claims : row.claims.slice(0, 5);
  if (row.claims.length === 0) return <span class="muted">none</span>;
  return (
    <div class="claims">
      <div class="muted small">{plural(row.claims.length, "workload")}</div>
      {shown.map((c) => (
        <a key={c.key} class="chip chip-link" href={workloadHref(c.key)}>
          {c.label}
        </a>
      ))}
      {row.claims.length > shown.length && (
        <button type="button" class="link" onClick={() => setAll(true)}>
          and {row.claims.length - shown.length} more
        </button>
      )}
    </div>
  );
}

function Name({ row }: { row: PolicyRow }) {
  return (
    <div class="policy-name">
      <Chip title={row.kind}>{SHORT[row.kind]}</Chip>{" "}
      <strong>
        {row.namespace ? `${row.namespace}/` : ""}
        {row.name}
      </strong>
      {row.priority ? <div class="muted small">priority {row.priority}</div> : null}
      {row.preemption === "Always" ? <div class="muted small">preempts lower priorities</div> : null}
    </div>
  );
}

function Lines({ lines }: { lines: string[] }) {
  return (
    <ul class="lines">
      {lines.map((l) => (
        <li key={l}>{l}</li>
      ))}
    </ul>
  );
}

export function PoliciesPage({
  route,
  namespace,
  user,
}: {
  route: Route;
  namespace?: string;
  user?: string;
}) {
  const stream = useStream<PolicyRow, PoliciesMeta>("policies", { ns: namespace });
  const q = (route.query.get("q") ?? "").trim().toLowerCase();
  const rows = useMemo(() => [...stream.rows.values()], [stream.version]);
  const match = (r: PolicyRow): boolean =>
    !q ||
    `${r.namespace ?? ""}/${r.name} ${r.selectors.join(" ")} ${r.claims.map((c) => c.label).join(" ")}`
      .toLowerCase()
      .includes(q);
  const propagation = rows.filter(
    (r) => (r.kind === "PropagationPolicy" || r.kind === "ClusterPropagationPolicy") && match(r),
  );
  const override = rows.filter(
    (r) => (r.kind === "OverridePolicy" || r.kind === "ClusterOverridePolicy") && match(r),
  );
  return (
    <div class="page">
      <PageHead
        title="Policies"
        subtitle="Propagation policies decide where templates go; override policies tailor each cluster's copy."
      >
        <LivePill connection={stream.connection} error={stream.error} />
      </PageHead>
      <div class="summary">
        {stream.meta && (
          <span class="summary-item">
            <strong>{stream.meta.propagation}</strong> propagation, <strong>{stream.meta.override}</strong>{" "}
            override
          </span>
        )}
        <span class="spacer" />
        <input
          class="filter"
          type="search"
          placeholder="Filter by name, selector, workload"
          aria-label="Filter policies"
          value={route.query.get("q") ?? ""}
          onInput={(e) => setQuery(route, { q: (e.target as HTMLInputElement).value })}
        />
      </div>
      {!stream.synced && stream.problems.length === 0 ? (
        <Loading what="policies" />
      ) : rows.length === 0 && stream.problems.length > 0 ? (
        <Forbidden problems={stream.problems} {...(user ? { user } : {})} />
      ) : (
        <>
          <ProblemBanner problems={stream.problems} />
          <Card title={`Propagation policies (${propagation.length})`}>
            {propagation.length === 0 ? (
              <Empty title={q ? "No propagation policy matches" : "No propagation policies"}>
                {!q && <p>A PropagationPolicy selects resource templates and places them on clusters.</p>}
              </Empty>
            ) : (
              <table class="table policies">
                <thead>
                  <tr>
                    <th>Policy</th>
                    <th>Selects</th>
                    <th>Placement</th>
                    <th>Claims</th>
                  </tr>
                </thead>
                <tbody>
                  {propagation.map((r) => (
                    <tr key={r.key} data-key={r.key}>
                      <td>
                        <Name row={r} />
                      </td>
                      <td>
                        <Lines lines={r.selectors} />
                      </td>
                      <td>
                        <Lines lines={r.placement} />
                      </td>
                      <td>
                        <Claims row={r} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Card>
          <Card title={`Override policies (${override.length})`}>
            {override.length === 0 ? (
              <Empty title={q ? "No override policy matches" : "No override policies"}>
                {!q && (
                  <p>
                    An OverridePolicy changes fields of a template for some clusters (image, labels, replicas
                    ...).
                  </p>
                )}
              </Empty>
            ) : (
              <table class="table policies">
                <thead>
                  <tr>
                    <th>Policy</th>
                    <th>Selects</th>
                    <th>Rules</th>
                    <th>Applies to</th>
                  </tr>
                </thead>
                <tbody>
                  {override.map((r) => (
                    <tr key={r.key} data-key={r.key}>
                      <td>
                        <Name row={r} />
                      </td>
                      <td>
                        <Lines lines={r.selectors} />
                      </td>
                      <td>
                        <Lines lines={r.rules} />
                      </td>
                      <td>
                        <Claims row={r} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Card>
        </>
      )}
    </div>
  );
}
