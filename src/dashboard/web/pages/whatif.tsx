/**
 * What-if: change a copy of the fleet (remove, cordon, taint, label clusters) and see which
 * workloads would move where, or where given templates would go. The backend runs
 * `karmadactl simulate`'s engine with your rights; nothing is written to the control plane.
 */
import { useMemo, useState } from "preact/hooks";
import type { ClustersMeta, ClusterTile, WhatIfRequest, WhatIfResult, WhatIfShift } from "../../wire.ts";
import { ApiFailure, runWhatIf, useStream } from "../api.ts";
import { workloadHref } from "../route.ts";
import { Badge, Card, Chip, Empty, PageHead, plural } from "../ui.tsx";

function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

function Shift({ s }: { s: WhatIfShift }) {
  const show = (n: number | null): string => (n === null ? "—" : String(n));
  const tone =
    s.after === null
      ? "bad"
      : s.before === null
        ? "good"
        : (s.after ?? 0) > (s.before ?? 0)
          ? "good"
          : "warn";
  return (
    <span class={`shift chip chip-${tone}`} title={s.why}>
      <strong>{s.cluster}</strong> {show(s.before)} → {show(s.after)}
    </span>
  );
}

function Result({ r }: { r: WhatIfResult }) {
  return (
    <div class="whatif-result" data-testid="whatif-result">
      {r.changes.length > 0 && (
        <p class="changes">
          <strong>If</strong> {r.changes.join("; ")}:
        </p>
      )}
      {r.warnings.map((w) => (
        <div class="banner tone-warn" key={w}>
          {w}
        </div>
      ))}
      {r.replay && (
        <>
          <div class="summary">
            <span class="summary-item" data-testid="whatif-summary">
              {plural(r.replay.bindings, "binding")}, <strong>{r.replay.moved}</strong> would move,{" "}
              <strong>{r.replay.unschedulable}</strong> unschedulable
            </span>
          </div>
          {r.replay.moves.length === 0 ? (
            <Empty title="Nothing would move">Every workload keeps its placement under these changes.</Empty>
          ) : (
            <table class="table moves">
              <thead>
                <tr>
                  <th>Workload</th>
                  <th>Replicas per cluster, before → after</th>
                  <th>Why</th>
                </tr>
              </thead>
              <tbody>
                {r.replay.moves.map((m) => (
                  <tr key={m.key} data-key={m.key}>
                    <td>
                      <a href={workloadHref(m.key)}>{m.label}</a>
                      {m.replicas !== undefined && <div class="muted small">{m.replicas} replicas</div>}
                    </td>
                    <td>
                      {m.failure ? (
                        <Badge tone="bad">Unschedulable</Badge>
                      ) : (
                        m.shifts.map((s) => <Shift key={s.cluster} s={s} />)
                      )}
                    </td>
                    <td class="small">
                      {m.failure && <div class="bad-text">{m.failure}</div>}
                      {m.evictions.map((e) => (
                        <div key={e}>evicted from {e}</div>
                      ))}
                      {m.shifts
                        .filter((s) => s.why)
                        .map((s) => (
                          <div key={s.cluster}>
                            {s.cluster}: {s.why}
                          </div>
                        ))}
                      {m.follows && <div class="muted">follows {m.follows.join(", ")}</div>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      {r.templates && (
        <table class="table templates">
          <thead>
            <tr>
              <th>Template</th>
              <th>Outcome</th>
              <th>Placement</th>
              <th>Left out</th>
            </tr>
          </thead>
          <tbody>
            {r.templates.map((t) => (
              <tr key={t.label}>
                <td>
                  {t.label}
                  {t.policy && <div class="muted small">{t.policy}</div>}
                </td>
                <td>
                  <Badge tone={t.tone}>{t.outcome}</Badge>
                  {t.message && <div class="small">{t.message}</div>}
                </td>
                <td>
                  {t.placement.map((p) => (
                    <Chip key={p.cluster} tone="good">
                      {p.cluster}
                      {p.replicas !== undefined ? ` ×${p.replicas}` : ""}
                    </Chip>
                  ))}
                </td>
                <td class="small">
                  {t.filtered.map((f) => (
                    <div key={f.cluster}>
                      <strong>{f.cluster}</strong>: {f.reason}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function WhatIfPage() {
  const clusters = useStream<ClusterTile, ClustersMeta>("clusters", {});
  const names = useMemo(() => [...clusters.rows.keys()].sort(), [clusters.version]);
  const [without, setWithout] = useState<Set<string>>(new Set());
  const [cordon, setCordon] = useState<Set<string>>(new Set());
  const [taints, setTaints] = useState("");
  const [labels, setLabels] = useState("");
  const [manifests, setManifests] = useState("");
  const [failover, setFailover] = useState(true);
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<WhatIfResult | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  const toggle = (set: Set<string>, update: (s: Set<string>) => void, name: string): void => {
    const next = new Set(set);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    update(next);
  };

  const run = async (): Promise<void> => {
    const request: WhatIfRequest = {
      withoutClusters: [...without],
      cordon: [...cordon],
      taints: lines(taints),
      labels: lines(labels),
      failover,
      ...(manifests.trim() ? { manifests } : {}),
    };
    setRunning(true);
    setError(undefined);
    try {
      setResult(await runWhatIf(request));
    } catch (err) {
      setResult(undefined);
      setError(err instanceof ApiFailure ? err.message : (err as Error).message);
    } finally {
      setRunning(false);
    }
  };

  return (
    <div class="page">
      <PageHead
        title="What if…"
        subtitle="Change a copy of the fleet and see what the scheduler and the taint manager would do. Nothing is written to the control plane."
      />
      <Card title="Changes to the fleet">
        <form
          class="whatif-form"
          onSubmit={(e) => {
            e.preventDefault();
            void run();
          }}
        >
          {names.length === 0 ? (
            <p class="muted">No clusters to change (or they cannot be read).</p>
          ) : (
            <table class="table compact cluster-picks">
              <thead>
                <tr>
                  <th>Cluster</th>
                  <th>Remove it</th>
                  <th>Cordon it</th>
                </tr>
              </thead>
              <tbody>
                {names.map((n) => (
                  <tr key={n}>
                    <td>
                      <strong>{n}</strong>
                    </td>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`remove ${n}`}
                        name={`without-${n}`}
                        checked={without.has(n)}
                        onChange={() => toggle(without, setWithout, n)}
                      />
                    </td>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`cordon ${n}`}
                        name={`cordon-${n}`}
                        checked={cordon.has(n)}
                        onChange={() => toggle(cordon, setCordon, n)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div class="form-grid">
            <label>
              Taints, one per line{" "}
              <span class="muted small hint-text">cluster=key[=value]:Effect, or …:Effect- to remove</span>
              <textarea
                name="taints"
                rows={3}
                value={taints}
                onInput={(e) => setTaints((e.target as HTMLTextAreaElement).value)}
                placeholder="member2=maintenance:NoExecute"
              />
            </label>
            <label>
              Labels, one per line{" "}
              <span class="muted small hint-text">cluster=key=value, or cluster=key- to remove</span>
              <textarea
                name="labels"
                rows={3}
                value={labels}
                onInput={(e) => setLabels((e.target as HTMLTextAreaElement).value)}
                placeholder="member1=tier=gold"
              />
            </label>
          </div>
          <label class="block">
            Templates and policies to place (optional){" "}
            <span class="muted small hint-text">
              YAML or JSON, as `karmadactl simulate -f`; empty: replay the existing workloads
            </span>
            <textarea
              name="manifests"
              rows={5}
              value={manifests}
              onInput={(e) => setManifests((e.target as HTMLTextAreaElement).value)}
            />
          </label>
          <label class="toggle">
            <input
              type="checkbox"
              checked={failover}
              onChange={(e) => setFailover((e.target as HTMLInputElement).checked)}
            />
            The controller manager runs with the Failover gate (NoExecute taints evict), as{" "}
            <code>karmada up</code> does
          </label>
          <div class="actions">
            <button type="submit" class="primary" disabled={running}>
              {running ? "Simulating…" : "Simulate"}
            </button>
            <span class="muted small">Read with your rights; computed in memory.</span>
          </div>
        </form>
      </Card>
      {error && (
        <div class="banner tone-bad" role="alert">
          <strong>Cannot simulate:</strong> {error}
        </div>
      )}
      {result && (
        <Card title="Result">
          <Result r={result} />
        </Card>
      )}
    </div>
  );
}
