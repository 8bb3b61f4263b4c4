/**
 * `karmadactl simulate`: placement what-if on a changed copy of the live fleet (src/simulate/).
 * With `-f`, where each template in the files would go (per cluster: replicas, or the filter
 * plugin and reason that left it out); without, what every existing binding would do: only
 * what moves, from which cluster to which, with replica counts, and what would become
 * unschedulable. `--without-cluster`, `--cordon`, `--taint`, `--label` change the copy first.
 * Reads with the caller's credentials; writes nothing. A table by default, `-o json|yaml`
 * prints the report.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import { isNotFound } from "../../machinery/errors.ts";
import { FeatureGates } from "../../runtime/features.ts";
import type { ClusterExplanation } from "../../scheduler/core/types.ts";
import { parseFleetChanges } from "../../simulate/changes.ts";
import { loadFleet } from "../../simulate/fleet.ts";
import { type Manifest, parseManifests } from "../../simulate/manifests.ts";
import { simulate } from "../../simulate/simulate.ts";
import type {
  BindingChange,
  ReplayReport,
  SimulationReport,
  TemplateResult,
  TemplatesReport,
} from "../../simulate/types.ts";
import { type ClientFactory, CommandError, type CommandIO, tabwriterTable } from "../io.ts";

export interface SimulateOptions {
  /** `-f`: files, directories, `-` (stdin) or http(s) URLs. */
  filenames: string[];
  /** `-R`: directories recursively. */
  recursive: boolean;
  /** `-n`: the namespace of templates and policies that name none. */
  namespace?: string;
  withoutCluster: string[];
  cordon: string[];
  taint: string[];
  label: string[];
  output?: string;
  /** `--feature-gates`: the controller manager's, as `karmada controller-manager` takes them. */
  featureGates: string[];
}

const MANIFEST_EXTENSIONS = [".json", ".yaml", ".yml"];

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The files a path names, as kubectl's -f visits them: a file, or a directory's manifests (sorted; -R descends). */
async function filesOf(path: string, recursive: boolean, top = true): Promise<string[]> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CommandError(
      code === "ENOENT"
        ? `the path "${path}" does not exist`
        : `unable to read "${path}": ${(err as Error).message}`,
    );
  }
  if (!info.isDirectory()) return [path];
  if (!top && !recursive) return [];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const out: string[] = [];
  for (const e of entries) {
    const child = join(path, e.name);
    if (e.isDirectory()) out.push(...(await filesOf(child, recursive, false)));
    else if (MANIFEST_EXTENSIONS.some((x) => e.name.endsWith(x))) out.push(child);
  }
  return out;
}

/** Every object the -f sources hold. */
export async function readManifests(
  sources: readonly string[],
  recursive: boolean,
  stdin: () => Promise<string>,
): Promise<Manifest[]> {
  const out: Manifest[] = [];
  for (const source of sources) {
    if (source === "-") {
      out.push(...parseManifests(await stdin(), "-"));
      continue;
    }
    if (/^https?:\/\//.test(source)) {
      const res = await fetch(source).catch((err: Error) => {
        throw new CommandError(`unable to read URL "${source}": ${err.message}`);
      });
      if (!res.ok) {
        throw new CommandError(
          `unable to read URL "${source}", server reported ${res.status} ${res.statusText}`,
        );
      }
      out.push(...parseManifests(await res.text(), source));
      continue;
    }
    const files = await filesOf(source, recursive);
    if (files.length === 0)
      throw new CommandError(`no objects passed to simulate: ${source} holds no .json, .yaml or .yml files`);
    for (const file of files) {
      let text: string;
      try {
        text = await readFile(file, "utf8");
      } catch (err) {
        throw new CommandError(`unable to read "${file}": ${(err as Error).message}`);
      }
      out.push(...parseManifests(text, file));
    }
  }
  return out;
}

export async function runSimulate(
  opts: SimulateOptions,
  io: CommandIO,
  clients: ClientFactory,
  stdin: () => Promise<string> = readStdin,
): Promise<void> {
  if (opts.output !== undefined && opts.output !== "json" && opts.output !== "yaml") {
    throw new CommandError(
      `unable to match a printer suitable for the output format "${opts.output}", allowed formats are: json,yaml`,
    );
  }
  let gates: FeatureGates;
  try {
    gates = FeatureGates.parse(opts.featureGates);
  } catch (err) {
    throw new CommandError((err as Error).message);
  }
  // Flags and files are checked before the control plane is asked anything.
  const changes = parseFleetChanges(opts);
  const manifests =
    opts.filenames.length > 0 ? await readManifests(opts.filenames, opts.recursive, stdin) : undefined;
  if (manifests?.length === 0) throw new CommandError("no objects passed to simulate");

  const karmada = await clients.controlPlane();
  const fleet = await loadFleet(karmada);
  const report = await simulate(fleet, changes, {
    ...(manifests ? { manifests } : {}),
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    features: {
      Failover: gates.enabled("Failover"),
      PropagationPolicyPreemption: gates.enabled("PropagationPolicyPreemption"),
    },
    scopeOf: (apiVersion, kind) =>
      karmada.resourceFor(apiVersion, kind).then(
        (ref) => ref.namespaced,
        (err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        },
      ),
  });
  for (const w of reportWarnings(report)) io.stderr.write(`Warning: ${w}\n`);
  if (opts.output === "json") io.stdout.write(`${JSON.stringify(report, null, 4)}\n`);
  else if (opts.output === "yaml") io.stdout.write(stringify(report, { indentSeq: false, lineWidth: 0 }));
  else io.stdout.write(reportText(report));
}

function reportWarnings(report: SimulationReport): string[] {
  const perTemplate = (report.templates?.results ?? []).flatMap((r) =>
    (r.warnings ?? []).map((w) => `${r.kind}/${r.name}: ${w}`),
  );
  return [...report.warnings, ...perTemplate];
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** The report as people read it: a table, then one summary line. */
export function reportText(report: SimulationReport): string {
  if (report.templates) return templatesText(report.templates);
  return bindingsText(
    report.bindings ?? { changes: [], summary: { bindings: 0, moved: 0, unschedulable: 0 } },
    report.changes,
  );
}

function replicasCell(value: number | null, workload: boolean): string {
  if (value === null) return "-";
  return workload ? String(value) : "placed";
}

function bindingRows(c: BindingChange): string[][] {
  const ns = c.namespace ?? "-";
  const rescheduled = c.trigger ? `rescheduled (${c.trigger})` : "";
  const followed = c.follows?.length ? `follows ${c.follows.join(", ")}` : "";
  const rows = c.shifts.map((s) => [
    ns,
    c.name,
    s.cluster,
    replicasCell(s.before, c.workload),
    replicasCell(s.after, c.workload),
    s.why ?? (followed || rescheduled),
  ]);
  if (c.failure)
    rows.push([ns, c.name, "-", "", "", `unschedulable (${c.failure.reason}): ${c.failure.message}`]);
  return rows;
}

function bindingsText(report: ReplayReport, changes: readonly string[]): string {
  const { bindings, moved, unschedulable } = report.summary;
  const summary = `${plural(bindings, "binding")}, ${moved} would move, ${unschedulable} unschedulable${
    changes.length ? ` (${changes.join(", ")})` : ""
  }.\n`;
  if (report.changes.length === 0) return `No binding would move.\n${summary}`;
  const rows = [
    ["NAMESPACE", "BINDING", "CLUSTER", "BEFORE", "AFTER", "REASON"],
    ...report.changes.flatMap(bindingRows),
  ];
  return `${tabwriterTable(rows)}\n${summary}`;
}

function clusterResult(c: ClusterExplanation, workload: boolean): string {
  if (c.deleting) return "skipped: the cluster is being removed";
  if (c.filteredBy) return `filtered out by ${c.filteredBy}: ${c.reason ?? ""}`;
  if (!c.selected) return "passed, not selected";
  if (!workload) return "placed";
  return c.replicas !== undefined ? plural(c.replicas, "replica") : "selected, no replicas";
}

function templateRows(r: TemplateResult): string[][] {
  const ns = r.namespace ?? "-";
  const template = `${r.kind}/${r.name}`;
  const policy = r.policy
    ? `${r.policy.kind === "PropagationPolicy" ? "pp" : "cpp"}/${r.policy.name}`
    : "<none>";
  const row = (cluster: string, result: string) => [ns, template, policy, cluster, result];
  switch (r.outcome) {
    case "NotPropagated":
      return [row("-", `not propagated: ${r.message ?? ""}`)];
    case "Unchanged":
      return r.placement.map((c) =>
        row(
          c.name,
          `${r.workload ? plural(c.replicas ?? 0, "replica") : "placed"} (unchanged: not rescheduled)`,
        ),
      );
    case "Unschedulable":
      return [
        row("-", `unschedulable (${r.failure?.reason ?? "SchedulerError"}): ${r.message ?? ""}`),
        ...r.clusters.map((c) => row(c.name, clusterResult(c, r.workload === true))),
      ];
    case "Scheduled":
      return r.clusters.map((c) => row(c.name, clusterResult(c, r.workload === true)));
  }
}

function templatesText(report: TemplatesReport): string {
  const s = report.summary;
  const summary = `${plural(s.templates, "template")}, ${s.scheduled} scheduled, ${s.unchanged} unchanged, ${s.unschedulable} unschedulable, ${s.notPropagated} not propagated.\n`;
  const rows = [
    ["NAMESPACE", "TEMPLATE", "POLICY", "CLUSTER", "RESULT"],
    ...report.results.flatMap(templateRows),
  ];
  return `${tabwriterTable(rows)}\n${summary}`;
}
