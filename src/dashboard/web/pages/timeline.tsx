/** The failover timeline: taints, evictions, graceful eviction tasks and relayed state, newest first. */
import { useMemo } from "preact/hooks";
import { newestFirst } from "../../timeline-order.ts";
import type { TimelineEntry, TimelineKind, TimelineMeta } from "../../wire.ts";
import { useStream } from "../api.ts";
import { type Route, setQuery, workloadHref } from "../route.ts";
import {
  Badge,
  Chip,
  Empty,
  Forbidden,
  LivePill,
  Loading,
  PageHead,
  ProblemBanner,
  Time,
  useNow,
} from "../ui.tsx";

const KIND_LABEL: Record<TimelineKind, string> = {
  taint: "Taint",
  cluster: "Cluster",
  eviction: "Eviction",
  "eviction-task": "Eviction task",
  "task-ended": "Task ended",
  "application-failover": "Application failover",
  "state-relayed": "State relayed",
  rescheduled: "Scheduling",
  shadow: "Shadow mode",
};

function day(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, {
    weekday: "short",
    year: "numeric",
    month: "short",
    day: "numeric",
  });
}

function clock(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}

export function TimelinePage({
  route,
  namespace,
  user,
}: {
  route: Route;
  namespace?: string;
  user?: string;
}) {
  const stream = useStream<TimelineEntry, TimelineMeta>("timeline", { ns: namespace });
  const now = useNow();
  const cluster = route.query.get("cluster") ?? "";
  const kind = route.query.get("kind") ?? "";
  const all = useMemo(() => [...stream.rows.values()].sort(newestFirst), [stream.version]);
  const shown = all.filter((e) => (!cluster || e.cluster === cluster) && (!kind || e.kind === kind));
  const days: Array<{ day: string; entries: TimelineEntry[] }> = [];
  for (const e of shown) {
    const d = day(e.time);
    const last = days.at(-1);
    if (last?.day === d) last.entries.push(e);
    else days.push({ day: d, entries: [e] });
  }
  const meta = stream.meta;
  return (
    <div class="page">
      <PageHead
        title="Failover timeline"
        subtitle="What the failover machinery did and why: cluster taints, evictions, graceful eviction tasks and the state relayed to the cluster taking over."
      >
        <LivePill connection={stream.connection} error={stream.error} />
      </PageHead>
      <div class="summary">
        <span class="summary-item">
          <strong>{shown.length.toLocaleString("en-US")}</strong> entries
          {meta && meta.total > all.length
            ? ` (the newest ${all.length.toLocaleString("en-US")} of ${meta.total.toLocaleString("en-US")})`
            : ""}
        </span>
        <span class="spacer" />
        <label>
          Cluster{" "}
          <select
            value={cluster}
            onChange={(e) => setQuery(route, { cluster: (e.target as HTMLSelectElement).value })}
          >
            <option value="">all</option>
            {(meta?.clusters ?? []).map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label>
          Kind{" "}
          <select
            value={kind}
            onChange={(e) => setQuery(route, { kind: (e.target as HTMLSelectElement).value })}
          >
            <option value="">all</option>
            {Object.entries(KIND_LABEL).map(([k, l]) => (
              <option key={k} value={k}>
                {l}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!stream.synced && stream.problems.length === 0 ? (
        <Loading what="the timeline" />
      ) : all.length === 0 &&
        stream.problems.length > 0 &&
        stream.problems.every((p) => p.resource === "events") ? (
        <Forbidden problems={stream.problems} {...(user ? { user } : {})} />
      ) : (
        <>
          <ProblemBanner problems={stream.problems} />
          {shown.length === 0 ? (
            <Empty title={all.length === 0 ? "No failover activity" : "Nothing matches the filter"}>
              {all.length === 0 && (
                <p>
                  When a cluster is tainted (not ready, unreachable, or by hand with{" "}
                  <code>karmadactl taint</code>) or a workload fails over, each step shows here. Quiet is
                  good.
                </p>
              )}
            </Empty>
          ) : (
            <div class="timeline">
              {days.map((d) => (
                <section key={d.day}>
                  <h2 class="day">{d.day}</h2>
                  <ol>
                    {d.entries.map((e) => (
                      <li
                        key={e.key}
                        class={`entry tone-${e.tone}`}
                        data-kind={e.kind}
                        data-cluster={e.cluster ?? ""}
                      >
                        <div class="when">
                          <span class="clock">{clock(e.time)}</span>
                          <Time iso={e.time} now={now} />
                        </div>
                        <div class="rail" aria-hidden="true">
                          <span class="dot rail-dot" />
                        </div>
                        <div class="what">
                          <div class="what-head">
                            <Badge tone={e.tone}>{KIND_LABEL[e.kind]}</Badge>
                            <strong class="title">{e.title}</strong>
                            {e.count ? <span class="muted">×{e.count}</span> : null}
                          </div>
                          {e.detail && <p class="detail">{e.detail}</p>}
                          <div class="tags">
                            {e.cluster && <Chip>{e.cluster}</Chip>}
                            {e.workload && (
                              <a class="chip chip-link" href={workloadHref(e.workload.key)}>
                                {e.workload.label}
                              </a>
                            )}
                            {e.source && <span class="muted small">{e.source}</span>}
                          </div>
                        </div>
                      </li>
                    ))}
                  </ol>
                </section>
              ))}
            </div>
          )}
        </>
      )}
    </div>
  );
}
