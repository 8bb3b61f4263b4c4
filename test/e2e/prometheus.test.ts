/**
 * What we ship under deploy/ for monitoring, proven with a real Prometheus (Debian's
 * `prometheus` and `promtool`): the SLO rules are the Sloth spec's rules and pass promtool's
 * checks and unit tests; the example configuration passes `promtool check config`; and a real
 * Prometheus, configured from that example, scrapes a `karmada up` fleet over HTTPS with the
 * token of a service account bound to `system:monitoring` while upstream's nginx sample
 * propagates, scales and goes away. Then upstream's metric names are in the scrape, every rule
 * evaluates and every SLO records its error ratios, every metric and label the rules and the
 * Grafana dashboard use is exported, and every dashboard query answers.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { freePort } from "../../src/storage/etcd/local-etcd.ts";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually, sharedPath } from "../support/kubectl.ts";
import {
  type AlertingRule,
  type RecordingRule,
  type RuleGroup,
  renderRuleFile,
  SLI_WINDOWS,
  type SlothSpec,
  slothRuleGroups,
} from "../support/sloth.ts";

const PROMETHEUS = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
const NEEDS = "needs Debian's prometheus package (apt-get install prometheus)";
const deployPath = (path: string) => fileURLToPath(new URL(`../../deploy/${path}`, import.meta.url));
const SPEC = deployPath("prometheus/karmada-slos.sloth.yaml");
const RULES = deployPath("prometheus/karmada-slo-rules.yaml");
const RULE_TESTS = deployPath("prometheus/karmada-slo-rules.test.yaml");
const CONFIG = deployPath("prometheus/prometheus.yaml");
const DASHBOARD = deployPath("grafana/karmada-ts-dashboard.json");
const NGINX = sharedPath("conformance/karmada/samples/nginx");

const RULES_HEADER = `Code generated from karmada-slos.sloth.yaml; DO NOT EDIT.

Recording and alerting rules for upstream Karmada's SLOs on a karmada-ts control plane, in the
shape Sloth (https://sloth.dev) generates: slo:sli_error:ratio_rate<window> per SLO, Sloth's
metadata rules, and multi-window multi-burn-rate alerts (page, ticket). Load it with
\`rule_files\` (see prometheus.yaml). Regenerate after editing the spec:
  WRITE_SLO_RULES=1 npx vitest run test/e2e/prometheus.test.ts -t "SLO rules"
(\`sloth generate -i karmada-slos.sloth.yaml\` makes equivalent rules). Unit tests:
  promtool test rules karmada-slo-rules.test.yaml`;

const spec = parse(readFileSync(SPEC, "utf8")) as SlothSpec;
const ruleGroups = (parse(readFileSync(RULES, "utf8")) as { groups: RuleGroup[] }).groups;
const rules = ruleGroups.flatMap((g) => g.rules);

interface Panel {
  type: string;
  title: string;
  id: number;
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr: string; legendFormat?: string; datasource?: { type: string; uid: string } }>;
  panels?: Panel[];
}
interface Variable {
  name: string;
  type: string;
  query: string | { query: string };
  datasource?: { type: string; uid: string };
}
const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
  schemaVersion: number;
  uid: string;
  panels: Panel[];
  templating: { list: Variable[] };
};
const allPanels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const dashboardTargets = allPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, ...t })));
const variableQuery = (v: Variable) => (typeof v.query === "string" ? v.query : v.query.query);
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a JavaScript template.
const DATASOURCE = { type: "prometheus", uid: "${datasource}" };

/** What the dashboard's variables stand for when its queries are run here. */
const VARIABLE_VALUES: Record<string, string> = {
  __rate_interval: "1m",
  __interval: "15s",
  job: "karmada-apiserver",
  member_cluster: ".*",
};

/** A Grafana query with its variables replaced; an unknown variable is an error in the dashboard. */
function substituteVariables(expr: string, values: Record<string, string>): string {
  return expr.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    const value = values[name];
    if (value === undefined) throw new Error(`unknown dashboard variable $${name} in ${expr}`);
    return value;
  });
}

interface PromqlNames {
  /** Metric names the expression reads. */
  metrics: Set<string>;
  /** Per selector, the label names it matches on. */
  selectors: Array<{ metric: string; labels: string[] }>;
  /** Label names of by/without/on/ignoring/group_left/group_right clauses. */
  grouping: Set<string>;
}

const KEYWORDS = new Set([
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "inf",
  "nan",
  "atan2",
]);

/**
 * The metric and label names a PromQL expression uses: a tokenizer, not a parser, enough for
 * the expressions we ship (no `{__name__=~...}` selectors, no `@` modifiers).
 */
function promqlNames(expr: string): PromqlNames {
  // Strings first, so nothing in a matcher's value is taken for a name.
  let rest = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  const selectors: PromqlNames["selectors"] = [];
  const metrics = new Set<string>();
  rest = rest.replace(/([a-zA-Z_:][\w:]*)?\s*\{([^}]*)\}/g, (_, metric: string | undefined, body: string) => {
    const labels = [...body.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1]!);
    if (metric && !KEYWORDS.has(metric)) {
      selectors.push({ metric, labels });
      metrics.add(metric);
    }
    return " ";
  });
  rest = rest.replace(/\[[^\]]*\]/g, " ");
  const grouping = new Set<string>();
  rest = rest.replace(
    /\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g,
    (_, _k, list: string) => {
      for (const label of list.split(",")) if (label.trim()) grouping.add(label.trim());
      return " ";
    },
  );
  for (const m of rest.matchAll(/(?<![\w.])([a-zA-Z_:][\w:]*)(?!\w)(\s*\()?/g)) {
    const [, name, call] = m;
    if (call || KEYWORDS.has(name!.toLowerCase())) continue;
    metrics.add(name!);
    selectors.push({ metric: name!, labels: [] });
  }
  return { metrics, selectors, grouping };
}

/** The family a series name belongs to (histograms expose _bucket, _count and _sum). */
function familyOf(name: string, types: Map<string, string>): string {
  const m = /^(.*)_(bucket|count|sum)$/.exec(name);
  return m && types.get(m[1]!) === "histogram" ? m[1]! : name;
}

function run(cmd: string, args: string[], cwd?: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe("the tokenizer the checks below use", () => {
  it.each([
    [
      'sum by (verb) (rate(apiserver_request_total{job=~"a|b", code!="200"}[5m]))',
      ["apiserver_request_total"],
      ["verb"],
      [{ metric: "apiserver_request_total", labels: ["job", "code"] }],
    ],
    [
      "histogram_quantile(0.99, sum by (le) (rate(x_bucket[1m]))) / on (a, b) group_left y or vector(1e-06)",
      ["x_bucket", "y"],
      ["le", "a", "b"],
      [
        { metric: "x_bucket", labels: [] },
        { metric: "y", labels: [] },
      ],
    ],
    ['slo:a:b{s="x{y}"} > (14.4 * 0.001) and ignoring (w) z', ["slo:a:b", "z"], ["w"], undefined],
    ['clamp_min(sum(rate(m{le=~"1|1\\\\.0"}[1d])), 1e-06)', ["m"], [], [{ metric: "m", labels: ["le"] }]],
  ])("%s", (expr, metrics, grouping, selectors) => {
    const names = promqlNames(expr);
    expect([...names.metrics].sort()).toEqual([...metrics].sort());
    expect([...names.grouping].sort()).toEqual([...grouping].sort());
    if (selectors) expect(names.selectors).toEqual(selectors);
  });

  it("replaces the dashboard's variables, and refuses one it does not know", () => {
    expect(substituteVariables('rate(x{a=~"$member_cluster"}[$__rate_interval])', VARIABLE_VALUES)).toBe(
      'rate(x{a=~".*"}[1m])',
    );
    expect(() => substituteVariables('x{a="$nope"}', VARIABLE_VALUES)).toThrow(
      "unknown dashboard variable $nope",
    );
  });
});

describe("the SLO rules (deploy/prometheus)", () => {
  it("are the rules of the Sloth spec beside them", async () => {
    const generated = renderRuleFile(slothRuleGroups(spec), RULES_HEADER);
    if (process.env.WRITE_SLO_RULES === "1") await writeFile(RULES, generated);
    expect(
      readFileSync(RULES, "utf8"),
      "karmada-slo-rules.yaml differs from what karmada-slos.sloth.yaml generates; regenerate it with WRITE_SLO_RULES=1",
    ).toBe(generated);
  });

  // Upstream's reliability guide: objective and threshold per SLI (the estimator's two left out).
  it.each([
    ["apiserver-availability", 99.9, undefined, "karmada-apiserver"],
    ["apiserver-latency", 99.9, 'le="0.4"', "karmada-apiserver"],
    ["policy-apply-availability", 99.9, undefined, "karmada-controller-manager"],
    ["policy-apply-latency", 99.9, 'le="1.024"', "karmada-controller-manager"],
    ["scheduler-availability", 99.9, undefined, "karmada-scheduler"],
    ["scheduler-latency", 99.9, 'le="0.512"', "karmada-scheduler"],
    ["binding-sync-work-availability", 99.9, undefined, "karmada-controller-manager"],
    ["binding-sync-work-latency", 99.9, 'le="1.024"', "karmada-controller-manager"],
    ["work-sync-workload-availability", 99.9, undefined, "karmada-controller-manager"],
    ["work-sync-workload-latency", 99, 'le="2.048"', "karmada-controller-manager"],
    ["cluster-sync-latency", 99.9, 'le=~"1|1\\\\.0"', "karmada-controller-manager"],
  ])("%s at %s %%", (name, objective, threshold, component) => {
    const slo = spec.slos.find((s) => s.name === name);
    expect(slo, name).toBeDefined();
    expect(slo!.objective).toBe(objective);
    expect(slo!.labels).toMatchObject({ component, category: threshold ? "latency" : "availability" });
    if (threshold) expect(slo!.sli.events.error_query).toContain(threshold);
    const id = `karmada-${name}`;
    const objectiveRule = rules.find(
      (r) => "record" in r && r.record === "slo:objective:ratio" && r.labels?.sloth_id === id,
    ) as RecordingRule;
    expect(Number(/vector\((.*)\)/.exec(objectiveRule.expr)![1])).toBeCloseTo(objective / 100, 12);
    // Every window Sloth records, and the 30-day one built from the 5-minute ratio.
    const windows = rules
      .filter(
        (r) => "record" in r && r.record.startsWith("slo:sli_error:ratio_rate") && r.labels?.sloth_id === id,
      )
      .map((r) => (r as RecordingRule).labels!.sloth_window);
    expect(windows).toEqual([...SLI_WINDOWS, "30d"]);
    // Availability pages and opens tickets; latency only opens tickets (upstream's routing).
    const mine = ruleGroups.find((g) => g.name === `sloth-slo-alerts-${id}`)!.rules as AlertingRule[];
    expect(mine.map((a) => [a.labels.severity, a.labels.sloth_severity])).toEqual(
      threshold
        ? [["warning", "ticket"]]
        : [
            ["critical", "page"],
            ["warning", "ticket"],
          ],
    );
    for (const a of mine) {
      expect(a.annotations.summary, a.alert).toBeTruthy();
      expect(a.annotations.description, a.alert).toBeTruthy();
      expect(a.annotations.runbook_url, a.alert).toMatch(/^https:\/\/karmada\.io\/docs\//);
    }
  });

  it("has no SLO without a metric of ours (no scheduler estimator)", () => {
    expect(spec.slos).toHaveLength(11);
    expect(JSON.stringify(spec)).not.toContain("karmada_scheduler_estimator");
  });

  it("refuses a spec it cannot generate rules from, saying what is wrong", () => {
    const slo = spec.slos[0]!;
    const bad = (change: Partial<SlothSpec["slos"][number]>) => ({ ...spec, slos: [{ ...slo, ...change }] });
    expect(() => slothRuleGroups(bad({ objective: 100 }))).toThrow('SLO "apiserver-availability": objective');
    expect(() =>
      slothRuleGroups(
        bad({ sli: { events: { error_query: "sum(x)", total_query: slo.sli.events.total_query } } }),
      ),
    ).toThrow("error_query must use {{.window}}");
    expect(() => slothRuleGroups({ ...spec, slos: [slo, slo] })).toThrow("is defined twice");
    expect(() => slothRuleGroups({ ...spec, version: "openslo/v1" })).toThrow(
      "unsupported Sloth spec version",
    );
  });
});

describe("the Grafana dashboard (deploy/grafana)", () => {
  it("is a schema 39 dashboard whose every query goes to the datasource variable (a Prometheus)", () => {
    expect(dashboard.schemaVersion).toBe(39);
    expect(dashboard.uid).toBe("karmada-ts-overview");
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect(vars.get("datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
    expect(variableQuery(vars.get("member_cluster")!)).toBe(
      "label_values(cluster_ready_state, member_cluster)",
    );
    for (const v of dashboard.templating.list.filter((v) => v.type === "query"))
      expect(v.datasource, v.name).toEqual(DATASOURCE);
    const ids = allPanels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of allPanels.filter((p) => p.type !== "row")) {
      expect(p.datasource, p.title).toEqual(DATASOURCE);
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets!) expect(t.datasource, p.title).toEqual(p.datasource);
    }
  });

  it("has the rows the issue asks for", () => {
    const rows = dashboard.panels.filter((p) => p.type === "row").map((p) => p.title);
    for (const row of [
      "Control plane API",
      "Propagation",
      "Scheduler",
      "Clusters",
      "Failover",
      "Work queues",
      "Process and clients",
    ])
      expect(rows).toContain(row);
  });

  it("names in each legend only labels its query keeps", () => {
    for (const t of dashboardTargets) {
      const kept = promqlNames(substituteVariables(t.expr, VARIABLE_VALUES)).grouping;
      for (const m of (t.legendFormat ?? "").matchAll(/\{\{\s*(\w+)\s*\}\}/g))
        expect(kept, `${t.panel}: ${t.legendFormat}`).toContain(m[1]);
    }
  });
});

describe.skipIf(!existsSync(PROMTOOL))(`promtool (${NEEDS})`, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-promtool-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("checks the rules", async () => {
    const r = await run(PROMTOOL, ["check", "rules", RULES]);
    expect(r.out).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(r.code, r.out).toBe(0);
  });

  it("passes the rules' unit tests", async () => {
    const r = await run(PROMTOOL, ["test", "rules", RULE_TESTS]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("SUCCESS");
  });

  it("checks the example configuration, with the files it names and the rules it loads", async () => {
    const syntax = await run(PROMTOOL, ["check", "config", "--syntax-only", CONFIG]);
    expect(syntax.code, syntax.out).toBe(0);
    // In full the check wants every file the configuration names: put it where they are.
    const text = readFileSync(CONFIG, "utf8");
    const files = [...new Set([...text.matchAll(/\/etc\/prometheus\/karmada\/[\w.-]+/g)].map((m) => m[0]))];
    expect(files.length).toBeGreaterThan(0);
    await mkdir(join(dir, "karmada"), { recursive: true });
    for (const f of files) await writeFile(join(dir, "karmada", f.split("/").pop()!), "placeholder\n");
    await writeFile(
      join(dir, "prometheus.yaml"),
      text.replaceAll("/etc/prometheus/karmada/", `${dir}/karmada/`),
    );
    await copyFile(RULES, join(dir, "karmada-slo-rules.yaml"));
    const full = await run(PROMTOOL, ["check", "config", join(dir, "prometheus.yaml")]);
    expect(full.code, full.out).toBe(0);
    expect(full.out).toContain(`SUCCESS: ${rules.length} rules found`);
  });
});

interface PromResponse<T> {
  status: string;
  data: T;
  error?: string;
}
type Vector = Array<{ metric: Record<string, string>; value: [number, string] }>;

/** Metric families that have no sample until something rarer than a propagation happens. */
const ONLY_AFTER: Record<string, string> = {
  policy_preemption_total: "a policy preemption",
  eviction_queue_depth: "a taint eviction",
  eviction_kind_total: "a taint eviction",
  eviction_processing_total: "a taint eviction",
  eviction_processing_latency_seconds: "a taint eviction",
};

/** What Prometheus holds from the scrape: each family's type, each sampled metric's label names. */
interface ScrapeSnapshot {
  types: Map<string, string>;
  labels: Map<string, Set<string>>;
}

/** Every expression we ship: the rules', the dashboard's panels' and its variables'. */
function checkedExpressions(): Array<{ where: string; expr: string }> {
  return [
    ...rules.map((r) => ({ where: "record" in r ? r.record : r.alert, expr: r.expr })),
    ...dashboardTargets.map((t) => ({
      where: `dashboard: ${t.panel}`,
      expr: substituteVariables(t.expr, VARIABLE_VALUES),
    })),
    ...dashboard.templating.list
      .filter((v) => v.type === "query")
      .map((v) => {
        // label_values(<metric>, <label>): the metric must carry the label.
        const m = /^label_values\((\w+),\s*(\w+)\)$/.exec(variableQuery(v));
        if (!m) throw new Error(`variable ${v.name}: not a label_values(metric, label) query`);
        return { where: `variable ${v.name}`, expr: `sum by (${m[2]}) (${m[1]})` };
      }),
  ];
}

/**
 * What `expr` uses that the scrape lacks: a metric with no sample (unless only a rarer event
 * fills its family, and the family is exported), a label a selected metric does not carry, a
 * grouping label none of its metrics carries.
 */
function usageProblems(where: string, expr: string, scrape: ScrapeSnapshot): string[] {
  const names = promqlNames(expr);
  const problems: string[] = [];
  const carried = new Set<string>();
  let sampled = false;
  for (const metric of names.metrics) {
    const labels = scrape.labels.get(metric);
    if (labels) {
      sampled = true;
      for (const l of labels) carried.add(l);
      continue;
    }
    const family = familyOf(metric, scrape.types);
    if (!(family in ONLY_AFTER && scrape.types.has(family)))
      problems.push(`${where}: ${metric} is not in the scrape`);
  }
  for (const { metric, labels } of names.selectors) {
    const has = scrape.labels.get(metric);
    if (!has) continue;
    for (const l of labels) if (!has.has(l)) problems.push(`${where}: ${metric} has no label ${l}`);
  }
  if (sampled)
    for (const l of names.grouping)
      if (!carried.has(l)) problems.push(`${where}: no metric of it has the label ${l}`);
  return problems;
}

describe.skipIf(!existsSync(PROMETHEUS))(`a real Prometheus scraping karmada up (${NEEDS})`, () => {
  let fleet: TestFleet;
  let dir: string;
  let prometheus: ChildProcess | undefined;
  let prometheusLog = "";
  let api: string;
  const { kubectl, cp, ok } = fleetKubectl<unknown>(() => fleet);

  const query = async <T>(path: string, params: Record<string, string> = {}): Promise<PromResponse<T>> => {
    const url = new URL(path, api);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return (await res.json()) as PromResponse<T>;
  };
  const instant = async (expr: string): Promise<Vector> => {
    const r = await query<{ result: Vector }>("/api/v1/query", { query: expr });
    if (r.status !== "success") throw new Error(`${expr}: ${r.error}`);
    return r.data.result;
  };

  /** A service account bound to system:monitoring in `context`, and a token of it in a file. */
  const monitoringToken = async (context: string): Promise<string> => {
    const ns = "monitoring";
    await ok(
      kubectl(
        context,
        ["apply", "-f", "-"],
        `{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "${ns}"}}`,
      ),
    );
    await ok(kubectl(context, ["create", "serviceaccount", "prometheus", "-n", ns]));
    await ok(
      kubectl(context, [
        "create",
        "clusterrolebinding",
        "prometheus",
        "--clusterrole=system:monitoring",
        `--serviceaccount=${ns}:prometheus`,
      ]),
    );
    const token = (await ok(kubectl(context, ["create", "token", "prometheus", "-n", ns]))).trim();
    const file = join(dir, `${context}.token`);
    await writeFile(file, token);
    return file;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-prometheus-"));
    fleet = await startTestFleet("prometheus", 3);
    const kubeconfig = parse(readFileSync(fleet.up.kubeconfig, "utf8")) as {
      clusters: Array<{ name: string; cluster: { server: string; "certificate-authority-data": string } }>;
    };
    const clusters = new Map(kubeconfig.clusters.map((c) => [c.name, c.cluster]));
    const caFile = async (name: string): Promise<string> => {
      const file = join(dir, `${name}-ca.crt`);
      await writeFile(file, Buffer.from(clusters.get(name)!["certificate-authority-data"], "base64"));
      return file;
    };

    // The example's jobs, pointed at this fleet: the control plane's, and its member job for each member.
    type Job = {
      job_name: string;
      authorization: { credentials_file: string };
      tls_config: { ca_file?: string };
      static_configs: Array<{ targets: string[] }>;
    };
    const example = parse(readFileSync(CONFIG, "utf8")) as { scrape_configs: Job[] };
    const controlPlaneJob = example.scrape_configs.find((j) => j.job_name === "karmada-apiserver");
    const memberJob = example.scrape_configs.find((j) => j.job_name.startsWith("karmada-member-apiserver-"));
    expect(controlPlaneJob).toBeDefined();
    expect(memberJob).toBeDefined();
    const job = async (template: Job, name: string, context: string): Promise<Job> => ({
      ...structuredClone(template),
      job_name: name,
      authorization: { ...template.authorization, credentials_file: await monitoringToken(context) },
      tls_config: { ...template.tls_config, ca_file: await caFile(context) },
      static_configs: [{ targets: [new URL(clusters.get(context)!.server).host] }],
    });
    const jobs = [await job(controlPlaneJob!, "karmada-apiserver", "karmada-apiserver")];
    for (const m of fleet.up.members)
      jobs.push(await job(memberJob!, `karmada-member-apiserver-${m.name}`, m.name));
    await writeFile(
      join(dir, "prometheus.yaml"),
      stringify({
        global: { scrape_interval: "1s", scrape_timeout: "1s", evaluation_interval: "1s" },
        rule_files: [RULES],
        scrape_configs: jobs,
      }),
    );

    // Prometheus cannot listen on port 0: take a free port, and say so if it was taken meanwhile.
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, "prometheus.yaml")}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--log.level=warn",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    prometheus.stderr!.setEncoding("utf8").on("data", (d: string) => {
      prometheusLog = (prometheusLog + d).slice(-20_000);
    });
    await eventually(
      async () => {
        if (prometheus!.exitCode !== null) throw new Error(`prometheus exited: ${prometheusLog}`);
        return (await fetch(`${api}/-/ready`, { signal: AbortSignal.timeout(2_000) })).ok;
      },
      "prometheus to be ready",
      300,
      100,
    );

    // A propagation while Prometheus watches: upstream's quick start, scaled, then deleted.
    await ok(cp(["create", "-f", join(NGINX, "deployment.yaml")]));
    await ok(cp(["create", "-f", join(NGINX, "propagationpolicy.yaml")]));
    const replicasIn = async (member: string) => {
      const r = await kubectl(member, ["get", "deployment", "nginx", "-o", "jsonpath={.spec.replicas}"]);
      return r.code === 0 ? Number(r.stdout) : undefined;
    };
    for (const member of ["member1", "member2"])
      await eventually(async () => (await replicasIn(member)) === 1, `nginx in ${member}`, 300, 100);
    await ok(cp(["scale", "deployment", "nginx", "--replicas=4"]));
    for (const member of ["member1", "member2"])
      await eventually(async () => (await replicasIn(member)) === 2, `nginx scaled in ${member}`, 300, 100);
    await ok(cp(["delete", "deployment", "nginx"]));
    for (const member of ["member1", "member2"])
      await eventually(
        async () => (await replicasIn(member)) === undefined,
        `nginx gone from ${member}`,
        300,
        100,
      );

    // Until Prometheus has scraped all that and evaluated every rule at least once since.
    await eventually(
      async () => {
        const deleted = await instant('delete_resource_from_cluster{kind="Deployment", result="success"}');
        // The end of the rules' chain: 5m ratio, 30d ratio, period burn rate, budget remaining.
        const ratios = await instant(
          'count(slo:period_error_budget_remaining:ratio{sloth_service="karmada"})',
        );
        const groups = await query<{ groups: Array<{ rules: Array<{ health: string }> }> }>("/api/v1/rules");
        const evaluated = groups.data.groups.every((g) => g.rules.every((r) => r.health !== "unknown"));
        return deleted.length === 2 && ratios[0]?.value[1] === String(spec.slos.length) && evaluated;
      },
      "prometheus to scrape the propagation and evaluate the rules",
      300,
      200,
    );
  }, 180_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once("exit", resolve));
      prometheus.kill("SIGTERM");
      const timer = setTimeout(() => prometheus!.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await fleet?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("scrapes the control plane and every member over HTTPS with a system:monitoring token", async () => {
    const r = await query<{
      activeTargets: Array<{ labels: { job: string }; health: string; lastError: string; scrapeUrl: string }>;
    }>("/api/v1/targets");
    const targets = r.data.activeTargets.map((t) => [
      t.labels.job,
      t.health,
      t.lastError,
      t.scrapeUrl.slice(0, 8),
    ]);
    expect(targets.sort()).toEqual(
      ["karmada-apiserver", ...fleet.up.members.map((m) => `karmada-member-apiserver-${m.name}`)]
        .sort()
        .map((job) => [job, "up", "", "https://"]),
    );
  });

  it("has upstream's metric names from metrics_test.go, with their labels", async () => {
    expect(await instant('workqueue_queue_duration_seconds_sum{name="work-status-controller"}')).toHaveLength(
      1,
    );
    expect(await instant('workqueue_queue_duration_seconds_sum{name="scheduler-queue"}')).toHaveLength(1);
    const ready = await instant("cluster_ready_state");
    expect(ready.map((s) => [s.metric.member_cluster, s.value[1]]).sort()).toEqual([
      ["member1", "1"],
      ["member2", "1"],
      ["member3", "1"],
    ]);
    expect(await instant('work_sync_workload_duration_seconds_sum{result="success"}')).toHaveLength(1);
    const attempts = await instant('karmada_scheduler_schedule_attempts_total{result="scheduled"}');
    expect(attempts.reduce((n, s) => n + Number(s.value[1]), 0)).toBeGreaterThanOrEqual(1);
    // The propagation's writes, per member: created, updated when scaled, deleted.
    for (const metric of [
      "create_resource_to_cluster",
      "update_resource_to_cluster",
      "delete_resource_from_cluster",
    ])
      expect(
        (await instant(`${metric}{kind="Deployment", result="success"}`))
          .map((s) => s.metric.member_cluster)
          .sort(),
        metric,
      ).toEqual(["member1", "member2"]);
    // Each member's API server, under its own job.
    const memberPosts = await instant(
      'apiserver_request_total{job=~"karmada-member-apiserver-.*", verb="POST"}',
    );
    expect(new Set(memberPosts.map((s) => s.metric.job)).size).toBe(fleet.up.members.length);
  });

  it("evaluates every rule without an error, and every SLO records its error ratio over every window", async () => {
    const r = await query<{
      groups: Array<{ name: string; rules: Array<{ name: string; health: string; lastError?: string }> }>;
    }>("/api/v1/rules");
    expect(r.data.groups.map((g) => g.name).sort()).toEqual(ruleGroups.map((g) => g.name).sort());
    const unhealthy = r.data.groups.flatMap((g) =>
      g.rules
        .filter((x) => x.health !== "ok")
        .map((x) => `${g.name}/${x.name}: ${x.health} ${x.lastError ?? ""}`),
    );
    expect(unhealthy).toEqual([]);
    for (const window of [...SLI_WINDOWS, "30d"]) {
      const ratios = await instant(`slo:sli_error:ratio_rate${window}{sloth_service="karmada"}`);
      expect(ratios.map((s) => s.metric.sloth_slo).sort(), window).toEqual(
        spec.slos.map((s) => s.name).sort(),
      );
      for (const s of ratios) {
        const v = Number(s.value[1]);
        expect(Number.isFinite(v) && v >= 0 && v <= 1, `${s.metric.sloth_slo} ${window}: ${v}`).toBe(true);
      }
    }
    const budget = await instant('slo:period_error_budget_remaining:ratio{sloth_service="karmada"}');
    expect(budget).toHaveLength(spec.slos.length);
    const objectives = await instant("slo:objective:ratio");
    expect(
      Object.fromEntries(objectives.map((s) => [s.metric.sloth_slo, Number(s.value[1]).toFixed(6)])),
    ).toEqual(Object.fromEntries(spec.slos.map((s) => [s.name, (s.objective / 100).toFixed(6)])));
  });

  it("has every metric and label the rules and the dashboard use", async () => {
    const metadata = await query<Record<string, Array<{ type: string }>>>("/api/v1/metadata");
    const scrape: ScrapeSnapshot = {
      types: new Map(Object.entries(metadata.data).map(([name, m]) => [name, m[0]!.type])),
      labels: new Map(),
    };
    const sampled = new Set((await query<string[]>("/api/v1/label/__name__/values")).data);
    const expressions = checkedExpressions();
    for (const { expr } of expressions)
      for (const metric of promqlNames(expr).metrics) {
        if (!sampled.has(metric) || scrape.labels.has(metric)) continue;
        const series = await query<Array<Record<string, string>>>("/api/v1/series", { "match[]": metric });
        scrape.labels.set(metric, new Set(series.data.flatMap((x) => Object.keys(x))));
      }
    expect(expressions.flatMap(({ where, expr }) => usageProblems(where, expr, scrape))).toEqual([]);
    // The families only a rarer event fills are exported all the same (their HELP and TYPE are scraped).
    for (const family of Object.keys(ONLY_AFTER)) expect(scrape.types.has(family), family).toBe(true);
  });

  it("answers every dashboard query, with data where the propagation made some", async () => {
    const empty: string[] = [];
    for (const t of dashboardTargets) {
      const expr = substituteVariables(t.expr, VARIABLE_VALUES);
      const result = await instant(expr);
      const rare = [...promqlNames(expr).metrics].some(
        (m) => m.replace(/_(bucket|count|sum)$/, "") in ONLY_AFTER,
      );
      const errorsOnly = /result="error"|code=~"5\.\.\|429"/.test(expr);
      if (result.length === 0 && !rare && !errorsOnly) empty.push(`${t.panel}: ${expr}`);
    }
    expect(empty).toEqual([]);
    for (const v of dashboard.templating.list.filter((v) => v.type === "query")) {
      const m = /^label_values\((\w+),\s*(\w+)\)$/.exec(variableQuery(v))!;
      const values = await query<string[]>(`/api/v1/label/${m[2]}/values`, { "match[]": m[1]! });
      expect(values.data.length, v.name).toBeGreaterThan(0);
    }
  });
});
