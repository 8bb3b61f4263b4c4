/** Clusters on a map of regions and zones: readiness, mode, nodes, capacity and taints per cluster. */
import { useMemo, useState } from "preact/hooks";
import type { ClustersMeta, ClusterTile, Readiness, Tone } from "../../wire.ts";
import { useStream } from "../api.ts";
import {
  Badge,
  Bar,
  Chip,
  Empty,
  Forbidden,
  LivePill,
  Loading,
  MiniBar,
  PageHead,
  ProblemBanner,
  plural,
} from "../ui.tsx";

const READINESS: Record<Readiness, Tone> = { Ready: "good", NotReady: "bad", Unknown: "warn" };

function taintTone(effect: string): Tone {
  return effect === "NoExecute" ? "bad" : "warn";
}

/** The tile's colour: red when not ready, amber when unknown, tainted or being deleted. */
function tileTone(c: ClusterTile): Tone {
  if (c.readiness !== "Ready") return READINESS[c.readiness];
  return c.taints.length > 0 || c.deleting ? "warn" : "good";
}

function Tile({ c, workloadsKnown }: { c: ClusterTile; workloadsKnown: boolean }) {
  return (
    <article class={`tile tile-${tileTone(c)}`} data-cluster={c.name}>
      <header class="tile-head">
        <h3>{c.name}</h3>
        <Badge tone={READINESS[c.readiness]} title={c.readyMessage ?? c.readyReason}>
          {c.readiness === "NotReady" ? "Not ready" : c.readiness}
        </Badge>
      </header>
      <div class="tile-facts">
        <Chip
          title={
            c.syncMode === "Pull"
              ? "An agent in the cluster pulls its work"
              : "The control plane pushes work to it"
          }
        >
          {c.syncMode}
        </Chip>
        {c.kubernetesVersion && <span>{c.kubernetesVersion}</span>}
        {c.provider && <span>{c.provider}</span>}
        {c.deleting && <Badge tone="warn">Being deleted</Badge>}
      </div>
      {c.readiness !== "Ready" && c.readyMessage && <p class="tile-why">{c.readyMessage}</p>}
      <div class="tile-nodes">
        {c.nodes ? (
          <span class={c.nodes.ready < c.nodes.total ? "warn-text" : ""}>
            {c.nodes.ready}/{c.nodes.total} nodes ready
          </span>
        ) : (
          <span class="muted">no node summary</span>
        )}
        {workloadsKnown && <span>{plural(c.workloads, "workload")}</span>}
      </div>
      {c.capacity.length > 0 ? (
        <div class="tile-bars">
          {c.capacity.map((b) => (
            <Bar key={b.resource} label={b.resource} used={b.allocated} total={b.allocatable} text={b.text} />
          ))}
        </div>
      ) : (
        <p class="muted small">No resource summary reported.</p>
      )}
      {c.taints.length > 0 && (
        <div class="tile-taints">
          <span class="muted small">Taints</span>
          {c.taints.map((t) => (
            <Chip
              key={`${t.key}:${t.effect}`}
              tone={taintTone(t.effect)}
              title={t.timeAdded ? `added ${new Date(t.timeAdded).toLocaleString()}` : "taint"}
            >
              {t.key}
              {t.value ? `=${t.value}` : ""}:{t.effect}
            </Chip>
          ))}
        </div>
      )}
    </article>
  );
}

/** A small tile for big fleets: name, readiness, mode, one bar per resource (numbers on hover), taints as a count. */
function CompactTile({ c }: { c: ClusterTile }) {
  const tone = tileTone(c);
  const taints = c.taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`).join("\n");
  return (
    <article
      class={`tile compact tile-${tone}`}
      data-cluster={c.name}
      title={c.readyMessage ?? c.readyReason}
    >
      <header class="tile-head">
        <h3>{c.name}</h3>
        <Badge tone={READINESS[c.readiness]}>{c.readiness === "NotReady" ? "Not ready" : c.readiness}</Badge>
      </header>
      <div class="tile-facts">
        <span>{c.syncMode}</span>
        {c.nodes && (
          <span class={c.nodes.ready < c.nodes.total ? "warn-text" : ""}>
            {c.nodes.ready}/{c.nodes.total} nodes
          </span>
        )}
        {c.taints.length > 0 && (
          <Chip tone={c.taints.some((t) => t.effect === "NoExecute") ? "bad" : "warn"} title={taints}>
            {plural(c.taints.length, "taint")}
          </Chip>
        )}
      </div>
      <div class="mini-bars">
        {c.capacity.map((b) => (
          <MiniBar
            key={b.resource}
            label={b.resource}
            used={b.allocated}
            total={b.allocatable}
            text={b.text}
          />
        ))}
      </div>
    </article>
  );
}

interface Region {
  name: string;
  zones: Array<{ name: string; clusters: ClusterTile[] }>;
  ready: number;
  total: number;
}

/** Regions (named ones first, alphabetically), zones within, clusters by name. */
function regionsOf(tiles: ClusterTile[]): Region[] {
  const regions = new Map<string, Map<string, ClusterTile[]>>();
  for (const t of tiles) {
    const zones = regions.get(t.region) ?? new Map<string, ClusterTile[]>();
    const list = zones.get(t.zone) ?? [];
    list.push(t);
    zones.set(t.zone, list);
    regions.set(t.region, zones);
  }
  const byName = (a: string, b: string): number =>
    a === "" ? 1 : b === "" ? -1 : a < b ? -1 : a > b ? 1 : 0;
  return [...regions.entries()]
    .sort(([a], [b]) => byName(a, b))
    .map(([name, zones]) => {
      const all = [...zones.values()].flat();
      return {
        name,
        zones: [...zones.entries()]
          .sort(([a], [b]) => byName(a, b))
          .map(([zone, clusters]) => ({
            name: zone,
            clusters: clusters.sort((x, y) => (x.name < y.name ? -1 : 1)),
          })),
        ready: all.filter((c) => c.readiness === "Ready").length,
        total: all.length,
      };
    });
}

type Show = "all" | "problems";

function hasProblem(c: ClusterTile): boolean {
  return c.readiness !== "Ready" || c.taints.length > 0 || c.deleting;
}

/** Above this many clusters the map starts compact. */
const COMPACT_FROM = 24;

export function ClustersPage({ user }: { user?: string }) {
  const stream = useStream<ClusterTile, ClustersMeta & { workloadsKnown: boolean }>("clusters", {});
  const [filter, setFilter] = useState("");
  const [show, setShow] = useState<Show>("all");
  const [density, setDensity] = useState<"auto" | "detailed" | "compact">("auto");
  const tiles = useMemo(() => [...stream.rows.values()], [stream.version]);
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return tiles.filter(
      (c) =>
        (show === "all" || hasProblem(c)) &&
        (!f || `${c.name} ${c.region} ${c.zones.join(" ")} ${c.provider ?? ""}`.toLowerCase().includes(f)),
    );
  }, [tiles, filter, show]);
  const regions = useMemo(() => regionsOf(shown), [shown]);
  const m = stream.meta;
  const compact = density === "compact" || (density === "auto" && tiles.length > COMPACT_FROM);
  return (
    <div class="page">
      <PageHead
        title="Clusters"
        subtitle="Member clusters by region and zone: readiness, how work reaches them, nodes, capacity and taints."
      >
        <LivePill connection={stream.connection} error={stream.error} />
      </PageHead>
      {m && m.total > 0 && (
        <div class="summary">
          <span class="summary-item">
            <strong>{m.total}</strong> clusters
          </span>
          <Badge tone="good">{m.ready} Ready</Badge>
          {m.notReady > 0 && <Badge tone="bad">{m.notReady} Not ready</Badge>}
          {m.unknown > 0 && <Badge tone="warn">{m.unknown} Unknown</Badge>}
          {m.tainted > 0 && <Badge tone="warn">{m.tainted} tainted</Badge>}
          <span class="spacer" />
          <input
            class="filter"
            type="search"
            placeholder="Filter by name, region, zone"
            aria-label="Filter clusters"
            value={filter}
            onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          />
          <label class="toggle">
            <input
              type="checkbox"
              checked={show === "problems"}
              onChange={(e) => setShow((e.target as HTMLInputElement).checked ? "problems" : "all")}
            />
            Only clusters needing attention
          </label>
          <span class="segmented">
            <button
              type="button"
              aria-pressed={!compact}
              class={compact ? "" : "on"}
              onClick={() => setDensity("detailed")}
            >
              Detailed
            </button>
            <button
              type="button"
              aria-pressed={compact}
              class={compact ? "on" : ""}
              onClick={() => setDensity("compact")}
            >
              Compact
            </button>
          </span>
        </div>
      )}
      {!stream.synced && stream.problems.length === 0 ? (
        <Loading what="clusters" />
      ) : tiles.length === 0 && stream.problems.length > 0 ? (
        <Forbidden problems={stream.problems} {...(user ? { user } : {})} />
      ) : tiles.length === 0 ? (
        <Empty title="No member clusters yet">
          <p>
            Join one in Push mode with{" "}
            <code>karmadactl join &lt;name&gt; --cluster-kubeconfig &lt;file&gt;</code>, or register one in
            Pull mode with <code>karmadactl register</code>.
          </p>
        </Empty>
      ) : (
        <>
          <ProblemBanner problems={stream.problems} />
          {regions.length === 0 && <Empty title="No cluster matches the filter" />}
          <div class="regions">
            {regions.map((r) => (
              <section class="region" key={r.name} data-region={r.name || "none"}>
                <header class="region-head">
                  <h2>{r.name ? `Region ${r.name}` : "No region"}</h2>
                  <span class="muted">
                    {r.ready}/{r.total} ready
                  </span>
                </header>
                <div class="zones">
                  {r.zones.map((z) => (
                    <div class="zone" key={z.name} data-zone={z.name || "none"}>
                      <h3 class="zone-head">{z.name ? `Zone ${z.name}` : "No zone"}</h3>
                      <div class={compact ? "tiles compact" : "tiles"}>
                        {z.clusters.map((c) =>
                          compact ? (
                            <CompactTile key={c.key} c={c} />
                          ) : (
                            <Tile key={c.key} c={c} workloadsKnown={m?.workloadsKnown ?? false} />
                          ),
                        )}
                      </div>
                    </div>
                  ))}
                </div>
              </section>
            ))}
          </div>
        </>
      )}
    </div>
  );
}
