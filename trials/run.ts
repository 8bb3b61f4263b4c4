/**
 * `npm run trials`: every trial module in turn (crash, durability, flapping), one table of
 * their rows with totals, and exit code 1 when any violation was found. bin/trials parses the
 * flags and the environment and calls `runTrials`.
 */
import { fmt } from "../bench/table.ts";
import { runCrashTrials } from "./crash.ts";
import { runDurabilityTrials } from "./durability.ts";
import { FLAPPING_ROW, PARTITION_ROW, runFlappingTrials, SLOW_ROW } from "./flapping.ts";
import type { TrialOptions, TrialRow } from "./types.ts";

export interface TrialsConfig {
  seed: number;
  runs: number;
  /** Only the trials whose name contains this (e.g. "crash: apiserver", "durability", "flapping"). */
  only?: string;
}

interface TrialModule {
  name: string;
  /** Names of the rows it produces, matched against --only before running it. */
  covers: readonly string[];
  run(opts: TrialOptions, only: string | undefined): Promise<TrialRow[]>;
}

/** The crash targets --only selects ("crash", "crash: member", "etcd", ...). */
const CRASH_ROWS = ["apiserver", "controller-manager", "scheduler", "agent", "member", "all"] as const;

const MODULES: TrialModule[] = [
  {
    name: "crash",
    covers: CRASH_ROWS.flatMap((t) => [`crash: ${t} sqlite`, `crash: ${t} etcd`]),
    run: async (opts, only) => {
      const picked = (t: string, b: string) => !only || `crash: ${t} ${b}`.includes(only);
      const rows: TrialRow[] = [];
      for (const backend of ["sqlite", "etcd"] as const) {
        const targets = CRASH_ROWS.filter((t) => picked(t, backend));
        if (targets.length > 0)
          rows.push(...(await runCrashTrials({ ...opts, backends: [backend], targets })));
      }
      return rows;
    },
  },
  {
    name: "durability",
    covers: ["durability sqlite", "durability etcd"],
    run: (opts, only) =>
      runDurabilityTrials({
        ...opts,
        backends: (["sqlite", "etcd"] as const).filter((b) => !only || `durability ${b}`.includes(only)),
      }),
  },
  {
    // `--only flapping` runs the three; a row's name (`--only slow`, `--only partition`) that one.
    name: "flapping",
    covers: [FLAPPING_ROW, SLOW_ROW, PARTITION_ROW],
    run: (opts, only) => runFlappingTrials(opts, only && !"flapping".includes(only) ? { only } : {}),
  },
];

function renderTable(rows: TrialRow[]): string {
  const header = ["trial", "backend", "runs", "violations", "figures"];
  const body = rows.map((r) => [
    r.trial,
    r.backend,
    String(r.runs),
    String(r.violations),
    Object.entries(r.figures)
      .map(([k, v]) => `${k} ${v}`)
      .join(", "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

export async function runTrials(config: TrialsConfig): Promise<number> {
  const log = (line: string) => process.stderr.write(`trials: ${line}\n`);
  const started = Date.now();
  log(`seed ${config.seed}, ${config.runs} runs per trial${config.only ? `, only "${config.only}"` : ""}`);
  const rows: TrialRow[] = [];
  for (const m of MODULES) {
    if (config.only && !m.name.includes(config.only) && !m.covers.some((c) => c.includes(config.only!)))
      continue;
    try {
      rows.push(...(await m.run({ seed: config.seed, runs: config.runs, log }, config.only)));
    } catch (err) {
      // A trial that cannot run is a failure of the run, not a crash of the runner.
      rows.push({
        trial: m.name,
        backend: "-",
        runs: 0,
        violations: 1,
        figures: {},
        details: [`could not run: ${(err as Error).message.split("\n")[0]}`],
      });
    }
  }
  const total = rows.reduce((n, r) => n + r.violations, 0);
  const runs = rows.reduce((n, r) => n + r.runs, 0);
  const out = [
    "",
    renderTable(rows),
    "",
    `total: ${runs} runs, ${total} violations, seed ${config.seed}, wall ${fmt((Date.now() - started) / 1000, 0)} s`,
  ];
  for (const r of rows) for (const d of r.details) out.push(`  ${r.trial} [${r.backend}]: ${d}`);
  process.stdout.write(`${out.join("\n")}\n`);
  return total > 0 ? 1 : 0;
}
