/**
 * One workload: its policy, the scheduler's reasons per cluster, each member's manifest with
 * the fields overrides changed (and which policy and overrider changed them), eviction tasks
 * and events. Live.
 */
import { useState } from "preact/hooks";
import type { MemberView, ProvenanceChange, Tone, WorkloadDetail } from "../../wire.ts";
import { useStream } from "../api.ts";
import { href, type Route } from "../route.ts";
import { Badge, Card, Chip, Empty, Forbidden, LivePill, Loading, PageHead, Time, useNow } from "../ui.tsx";
import { HEALTH_TONE, placementTone } from "./workloads.tsx";

function Placement({ d }: { d: WorkloadDetail }) {
  const r = d.row;
  if (r.placements.length === 0) return <Empty title="Not placed on any cluster">{r.healthText}</Empty>;
  return (
    <table class="table compact">
      <thead>
        <tr>
          <th>Cluster</th>
          <th>Replicas</th>
          <th>Ready</th>
          <th>Applied</th>
          <th>Health</th>
        </tr>
      </thead>
      <tbody>
        {r.placements.map((p) => (
          <tr key={p.cluster} data-cluster={p.cluster}>
            <td>
              <strong>{p.cluster}</strong> {p.evicting && <Chip tone="warn">leaving</Chip>}
            </td>
            <td class="num">{p.replicas ?? <span class="muted">—</span>}</td>
            <td class="num">{p.ready ?? <span class="muted">—</span>}</td>
            <td>
              {p.applied === undefined ? (
                <span class="muted">not yet</span>
              ) : p.applied ? (
                <Badge tone="good">Applied</Badge>
              ) : (
                <Badge tone={p.appliedMessage ? "bad" : "warn"} title={p.appliedMessage}>
                  {p.appliedMessage ? "Failed" : "Pending"}
                </Badge>
              )}
              {p.appliedMessage && <div class="small bad-text">{p.appliedMessage}</div>}
            </td>
            <td>
              <Badge tone={placementTone(p)}>{p.health ?? "Not reported"}</Badge>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Scheduling({ d }: { d: WorkloadDetail }) {
  if (d.scheduling.length === 0) {
    return (
      <Empty title="No explanation recorded yet">
        The scheduler records why it chose each cluster when it schedules the binding.
      </Empty>
    );
  }
  return (
    <div class="attempts">
      {d.scheduling.map((a, i) => (
        <div class="attempt" key={a.title ?? i}>
          {a.title && <h3 class="attempt-title">{a.title}</h3>}
          {a.needs && <p class="muted">Needs {a.needs}.</p>}
          <table class="table compact scheduling">
            <thead>
              <tr>
                <th>Cluster</th>
                <th>Outcome</th>
                <th>Replicas</th>
                <th>Why</th>
              </tr>
            </thead>
            <tbody>
              {a.clusters.map((c) => (
                <tr key={c.name} data-cluster={c.name}>
                  <td>
                    <strong>{c.name}</strong>
                  </td>
                  <td>
                    <Badge tone={c.tone}>{c.outcome}</Badge>
                  </td>
                  <td class="num">{c.replicas ?? <span class="muted">—</span>}</td>
                  <td class="why">{c.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {(a.spread || a.replicas || a.error) && (
            <ul class="facts">
              {a.spread && <li>{a.spread}</li>}
              {a.replicas && <li>{a.replicas}</li>}
              {a.error && <li class="bad-text">{a.error}</li>}
            </ul>
          )}
        </div>
      ))}
    </div>
  );
}

const SOURCE_TONE: Record<ProvenanceChange["by"]["source"], Tone> = {
  ClusterOverridePolicy: "warn",
  OverridePolicy: "warn",
  Scheduler: "neutral",
  Failover: "bad",
};

function By({ by }: { by: ProvenanceChange["by"] }) {
  return (
    <span class="by">
      <Chip tone={SOURCE_TONE[by.source]}>{by.source}</Chip>
      {by.policy && <strong> {by.policy}</strong>}
      {by.overrider && <code class="overrider">{by.overrider}</code>}
      {by.note && <span class="muted small"> {by.note}</span>}
    </span>
  );
}

function Member({ m }: { m: MemberView }) {
  return (
    <div class="member" data-cluster={m.cluster}>
      <div class="member-facts">
        <span>
          Work{" "}
          <code>
            {m.workNamespace}/{m.workName}
          </code>
        </span>
        {m.suspended && <Badge tone="warn">Dispatching suspended</Badge>}
        {m.health && (
          <Badge tone={m.health === "Healthy" ? "good" : m.health === "Unhealthy" ? "bad" : "neutral"}>
            {m.health}
          </Badge>
        )}
      </div>
      <h3 class="section-title">Changed for this cluster</h3>
      {m.provenance.length === 0 ? (
        <p class="muted">
          No field differs from the resource template{m.provenanceNote ? "" : ": no override applies here"}.
        </p>
      ) : (
        <table class="table compact provenance">
          <thead>
            <tr>
              <th>Field</th>
              <th>Change</th>
              <th>Changed by</th>
            </tr>
          </thead>
          <tbody>
            {m.provenance.map((c, i) => (
              <tr key={`${c.path}/${i}`} data-path={c.path}>
                <td>
                  <code>{c.path}</code>
                </td>
                <td class="change">
                  {c.op === "added" ? (
                    <>
                      <span class="muted">added</span> <code class="after">{c.after}</code>
                    </>
                  ) : c.op === "removed" ? (
                    <>
                      <span class="muted">removed</span> <code class="before">{c.before}</code>
                    </>
                  ) : (
                    <>
                      <code class="before">{c.before}</code> → <code class="after">{c.after}</code>
                    </>
                  )}
                </td>
                <td>
                  <By by={c.by} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {m.provenanceNote && <p class="note tone-warn">{m.provenanceNote}</p>}
      <details class="manifest" open>
        <summary>Manifest the member gets (YAML)</summary>
        <pre class="yaml">{m.yaml}</pre>
      </details>
    </div>
  );
}

function Members({ d }: { d: WorkloadDetail }) {
  const [picked, setPicked] = useState<string | undefined>(undefined);
  if (d.members.length === 0) {
    return (
      <Empty title="No member manifests yet">
        {d.membersNote ?? "Works are written once the binding is scheduled."}
      </Empty>
    );
  }
  const current = d.members.find((m) => m.cluster === picked) ?? d.members[0]!;
  return (
    <div>
      <div class="tabs" role="tablist">
        {d.members.map((m) => (
          <button
            type="button"
            role="tab"
            key={m.cluster}
            aria-selected={m.cluster === current.cluster}
            class={m.cluster === current.cluster ? "tab active" : "tab"}
            onClick={() => setPicked(m.cluster)}
          >
            {m.cluster}
            {m.provenance.length > 0 && <span class="tab-count">{m.provenance.length}</span>}
          </button>
        ))}
      </div>
      <Member m={current} />
      {d.membersNote && <p class="note tone-warn">{d.membersNote}</p>}
    </div>
  );
}

export function WorkloadPage({ route, user }: { route: Route; user?: string }) {
  const key = route.query.get("key") ?? "";
  const stream = useStream<WorkloadDetail, { found: boolean }>("workload", { key });
  const now = useNow();
  const d = stream.rows.get("detail");
  if (!d) {
    return (
      <div class="page">
        <PageHead title="Workload" subtitle={key}>
          <LivePill connection={stream.connection} error={stream.error} />
        </PageHead>
        {!stream.synced && stream.problems.length === 0 ? (
          <Loading what="the workload" />
        ) : stream.problems.length > 0 ? (
          <Forbidden problems={stream.problems} {...(user ? { user } : {})} />
        ) : (
          <Empty title="No such workload">
            <p>
              It may have been deleted. <a href={href("workloads")}>Back to the workloads</a>
            </p>
          </Empty>
        )}
      </div>
    );
  }
  const r = d.row;
  return (
    <div class="page">
      <nav class="crumbs">
        <a href={href("workloads")}>Workloads</a> / {r.kind}
      </nav>
      <PageHead
        title={
          <>
            <span class="kind">{r.kind}</span> {r.namespace ? `${r.namespace}/` : ""}
            {r.name}
          </>
        }
        subtitle={r.healthText}
      >
        <Badge tone={HEALTH_TONE[r.health]}>{r.health}</Badge>
        <LivePill connection={stream.connection} error={stream.error} />
      </PageHead>
      <div class="facts-row">
        <span>
          {r.bindingKind} <code>{r.bindingName}</code>
        </span>
        <span>{r.replicas > 0 ? `${r.replicas} replicas` : "not a workload with replicas"}</span>
        <span>{r.apiVersion}</span>
      </div>
      <div class="grid-2">
        <Card title="Placement">
          <Placement d={d} />
          {d.evictionTasks.length > 0 && (
            <div class="tasks">
              <h3 class="section-title">Graceful eviction</h3>
              {d.evictionTasks.map((t) => (
                <div class="task" key={t.fromCluster} data-cluster={t.fromCluster}>
                  <Badge tone="warn">Leaving {t.fromCluster}</Badge>{" "}
                  <span>
                    {t.reason} by {t.producer}
                    {t.purgeMode ? `, purge mode ${t.purgeMode}` : ""}
                    {t.replicas !== undefined ? `, ${t.replicas} replicas` : ""}
                  </span>{" "}
                  <Time iso={t.created} now={now} />
                  {t.preservedLabelState && (
                    <div class="small">
                      State relayed:{" "}
                      {Object.entries(t.preservedLabelState).map(([k, v]) => (
                        <code key={k}>
                          {k}={v}
                        </code>
                      ))}
                    </div>
                  )}
                </div>
              ))}
            </div>
          )}
        </Card>
        <Card title="Policy">
          {d.policy ? (
            <div class="policy">
              <p>
                <Chip>{d.policy.kind}</Chip>{" "}
                <a href={href("policies", { q: d.policy.name })}>
                  <strong>
                    {d.policy.namespace ? `${d.policy.namespace}/` : ""}
                    {d.policy.name}
                  </strong>
                </a>
              </p>
              {d.policy.found ? (
                <ul class="facts">
                  {d.policy.summary.map((l) => (
                    <li key={l}>{l}</li>
                  ))}
                </ul>
              ) : (
                <p class="muted">The policy cannot be read (deleted, or not visible to you).</p>
              )}
            </div>
          ) : (
            <p class="muted">No policy claims it.</p>
          )}
          {d.conditions.length > 0 && (
            <table class="table compact conditions">
              <tbody>
                {d.conditions.map((c) => (
                  <tr key={c.type}>
                    <td>{c.type}</td>
                    <td>
                      <Badge tone={c.status === "True" ? "good" : c.status === "False" ? "bad" : "warn"}>
                        {c.status}
                      </Badge>
                    </td>
                    <td class="small">{c.reason}</td>
                    <td class="muted small">
                      <Time iso={c.lastTransitionTime} now={now} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
      </div>
      <Card title="Why these clusters: the scheduler's reasons" class="scheduling-card">
        <Scheduling d={d} />
      </Card>
      <Card title="What each member gets" class="members-card">
        <Members d={d} />
      </Card>
      <Card title="Events">
        {d.events.length === 0 ? (
          <p class="muted">No events recorded for this workload.</p>
        ) : (
          <ul class="events">
            {d.events.map((e) => (
              <li key={e.key} class={`event tone-${e.tone}`}>
                <span class="dot event-dot" aria-hidden="true" />
                <strong>{e.title}</strong>
                {e.count ? <span class="muted"> ×{e.count}</span> : null}{" "}
                <span class="muted small">{e.source}</span> <Time iso={e.time} now={now} />
                {e.detail && <div class="small">{e.detail}</div>}
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
