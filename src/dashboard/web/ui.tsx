/**
 * The building blocks every page uses: status badges (a colour and always a word), bars,
 * cards, empty and forbidden states, the live indicator, times.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Problem, Tone } from "../wire.ts";
import type { Connection } from "./api.ts";

export function Badge({
  tone,
  children,
  title,
}: {
  tone: Tone;
  children: ComponentChildren;
  title?: string | undefined;
}) {
  return (
    <span class={`badge tone-${tone}`} title={title}>
      <span class="dot" aria-hidden="true" />
      {children}
    </span>
  );
}

export function Chip({
  children,
  title,
  tone,
}: {
  children: ComponentChildren;
  title?: string | undefined;
  tone?: Tone | undefined;
}) {
  return (
    <span class={`chip${tone ? ` chip-${tone}` : ""}`} title={title}>
      {children}
    </span>
  );
}

export function Card({
  title,
  actions,
  children,
  class: extra,
}: {
  title?: ComponentChildren;
  actions?: ComponentChildren;
  children: ComponentChildren;
  class?: string;
}) {
  return (
    <section class={`card${extra ? ` ${extra}` : ""}`}>
      {title !== undefined && (
        <header class="card-head">
          <h2>{title}</h2>
          {actions}
        </header>
      )}
      <div class="card-body">{children}</div>
    </section>
  );
}

/** How full a bar is (0-100) and its tone: green up to 70 %, amber to 90 %, red beyond. */
function fill(used: number, total: number): { pct: number; tone: Tone } {
  const pct = total > 0 ? Math.min(100, (used / total) * 100) : 0;
  return { pct, tone: pct >= 90 ? "bad" : pct >= 70 ? "warn" : "good" };
}

/** A bar filled to `used / total` (see `fill`). */
export function Bar({
  label,
  used,
  total,
  text,
}: {
  label: string;
  used: number;
  total: number;
  text: string;
}) {
  const { pct, tone } = fill(used, total);
  return (
    <div class="bar-row" title={`${label}: ${text} (${Math.round(pct)}%)`}>
      <span class="bar-label">{label}</span>
      <span class="bar" aria-hidden="true">
        <span class={`bar-fill tone-${tone}`} style={{ width: `${pct}%` }} />
      </span>
      <span class="bar-text">{text}</span>
    </div>
  );
}

/** A thin bar with its label above, for compact tiles; the numbers are in the tooltip. */
export function MiniBar({
  label,
  used,
  total,
  text,
}: {
  label: string;
  used: number;
  total: number;
  text: string;
}) {
  const { pct, tone } = fill(used, total);
  return (
    <div class="mini-bar" title={`${label}: ${text} (${Math.round(pct)}%)`}>
      <span class="mini-label">{label === "Memory" ? "Mem" : label}</span>
      <span class="visually-hidden">{text}</span>
      <span class="bar" aria-hidden="true">
        <span class={`bar-fill tone-${tone}`} style={{ width: `${pct}%` }} />
      </span>
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <h3>{title}</h3>
      {children}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <div class="loading" role="status">
      <span class="spinner" aria-hidden="true" /> Loading {what}…
    </div>
  );
}

function problemText(p: Problem): string {
  const where = p.namespace ? ` in namespace ${p.namespace}` : "";
  return `${p.resource}${where}: ${p.message}`;
}

/** The page cannot show anything: why, and what to do. */
export function Forbidden({ problems, user }: { problems: Problem[]; user?: string }) {
  const forbidden = problems.some((p) => p.code === 403);
  return (
    <div class="state-card" data-state={forbidden ? "forbidden" : "error"}>
      <Badge tone="bad">{forbidden ? "Forbidden" : "Unavailable"}</Badge>
      <h3>
        {forbidden
          ? `${user ? `${user} is` : "You are"} not allowed to read what this page shows`
          : "The control plane did not answer"}
      </h3>
      <ul>
        {problems.map((p) => (
          <li key={`${p.resource}/${p.namespace ?? ""}`}>{problemText(p)}</li>
        ))}
      </ul>
      <p class="hint">
        {forbidden
          ? "Ask an administrator for read access (for example the karmada-view ClusterRole), or pick a namespace you may read in the namespace menu above."
          : "The dashboard keeps retrying; this page fills in when the control plane answers."}
      </p>
    </div>
  );
}

/** Part of the page is hidden: a banner saying which. */
export function ProblemBanner({ problems }: { problems: Problem[] }) {
  if (problems.length === 0) return null;
  return (
    <div class="banner tone-warn" role="alert">
      <strong>Some data is not shown.</strong>
      <ul>
        {problems.map((p) => (
          <li key={`${p.resource}/${p.namespace ?? ""}`}>{problemText(p)}</li>
        ))}
      </ul>
    </div>
  );
}

const CONNECTION: Record<Connection, { tone: Tone; text: string }> = {
  connecting: { tone: "neutral", text: "Connecting" },
  live: { tone: "good", text: "Live" },
  reconnecting: { tone: "warn", text: "Reconnecting" },
  failed: { tone: "bad", text: "Stopped" },
};

export function LivePill({ connection, error }: { connection: Connection; error?: string | undefined }) {
  const c = CONNECTION[connection];
  return (
    <span
      class={`live tone-${c.tone}`}
      title={error ?? "Updates arrive as they happen (watch)"}
      data-connection={connection}
    >
      <span class="dot" aria-hidden="true" />
      {c.text}
    </span>
  );
}

/** Re-renders every `ms`, for relative times. */
export function useNow(ms = 15_000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

export function ago(iso: string | undefined, now: number): string {
  if (!iso) return "";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.round(h / 24)}d ago`;
}

export function Time({ iso, now }: { iso: string | undefined; now: number }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {ago(iso, now)}
    </time>
  );
}

export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? noun : nouns}`;
}

export function PageHead({
  title,
  subtitle,
  children,
}: {
  title: ComponentChildren;
  subtitle?: ComponentChildren;
  children?: ComponentChildren;
}) {
  return (
    <div class="page-head">
      <div>
        <h1>{title}</h1>
        {subtitle !== undefined && <p class="subtitle">{subtitle}</p>}
      </div>
      <div class="page-head-side">{children}</div>
    </div>
  );
}
