/**
 * Sloth's Prometheus rules from a Sloth spec (`version: prometheus/v1`), for the SLOs we ship in
 * deploy/prometheus: per SLO, the SLI's error ratio recorded over Sloth's windows (5m ... 3d,
 * and 30d from the 5m ratio), the metadata Sloth's dashboards read (objective, error budget,
 * burn rates, `sloth_slo_info`), and the multi-window multi-burn-rate alerts (page: 14.4x over
 * 1h with 5m, 6x over 6h with 30m; ticket: 3x over 1d with 2h, 1x over 3d with 6h), with
 * Sloth's rule and label names so Sloth's Grafana dashboards work on them. We keep our own
 * generator so the rules file is checked against its spec in every test run without Sloth
 * (a Go tool) on the machine.
 */
import { Document } from "yaml";

export interface SlothAlert {
  disable?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface SlothSlo {
  name: string;
  objective: number;
  description?: string;
  labels?: Record<string, string>;
  sli: { events: { error_query: string; total_query: string } };
  alerting: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    page_alert?: SlothAlert;
    ticket_alert?: SlothAlert;
  };
}

export interface SlothSpec {
  version: string;
  service: string;
  labels?: Record<string, string>;
  slos: SlothSlo[];
}

export interface RecordingRule {
  record: string;
  expr: string;
  labels?: Record<string, string>;
}

export interface AlertingRule {
  alert: string;
  expr: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface RuleGroup {
  name: string;
  rules: Array<RecordingRule | AlertingRule>;
}

/** The windows of the SLI recordings, shortest first (Sloth's). */
export const SLI_WINDOWS = ["5m", "30m", "1h", "2h", "6h", "1d", "3d"] as const;
const PERIOD = { window: "30d", days: 30 };

/** A burn-rate condition: both windows above `factor` times the error budget. */
interface BurnWindow {
  short: (typeof SLI_WINDOWS)[number];
  long: (typeof SLI_WINDOWS)[number];
  factor: number;
}
const PAGE: [BurnWindow, BurnWindow] = [
  { short: "5m", long: "1h", factor: 14.4 },
  { short: "30m", long: "6h", factor: 6 },
];
const TICKET: [BurnWindow, BurnWindow] = [
  { short: "2h", long: "1d", factor: 3 },
  { short: "6h", long: "3d", factor: 1 },
];

/** A decimal without binary noise: 1 - 0.999 is 0.001, not 0.0009999999999999432. */
function decimal(n: number): number {
  return Number(n.toPrecision(12));
}

function checkSpec(spec: SlothSpec): void {
  if (spec.version !== "prometheus/v1") throw new Error(`unsupported Sloth spec version "${spec.version}"`);
  if (!spec.service) throw new Error("the spec has no service");
  const seen = new Set<string>();
  for (const slo of spec.slos ?? []) {
    const where = `SLO "${slo.name}"`;
    if (!/^[a-z0-9][a-z0-9-]*$/.test(slo.name ?? "")) throw new Error(`${where}: name must be kebab-case`);
    if (seen.has(slo.name)) throw new Error(`${where} is defined twice`);
    seen.add(slo.name);
    if (!(slo.objective > 0 && slo.objective < 100))
      throw new Error(`${where}: objective must be in (0, 100)`);
    const { error_query, total_query } = slo.sli?.events ?? {};
    for (const [key, q] of [
      ["error_query", error_query],
      ["total_query", total_query],
    ] as const)
      if (!q?.includes("{{.window}}")) throw new Error(`${where}: ${key} must use {{.window}}`);
    if (!slo.alerting?.name) throw new Error(`${where}: alerting.name is required`);
  }
}

/** Sloth's rule groups for every SLO of `spec`, in spec order. */
export function slothRuleGroups(spec: SlothSpec): RuleGroup[] {
  checkSpec(spec);
  const groups: RuleGroup[] = [];
  for (const slo of spec.slos) {
    const id = `${spec.service}-${slo.name}`;
    const ids = { sloth_id: id, sloth_service: spec.service, sloth_slo: slo.name };
    const labels = { ...spec.labels, ...slo.labels, ...ids };
    const selector = `{sloth_id="${id}", sloth_service="${spec.service}", sloth_slo="${slo.name}"}`;
    const ratio = (window: string) => `slo:sli_error:ratio_rate${window}`;
    const query = (q: string, window: string) => q.trim().replaceAll("{{.window}}", window);
    const { error_query, total_query } = slo.sli.events;

    const sli: RecordingRule[] = SLI_WINDOWS.map((window) => ({
      record: ratio(window),
      expr: `(${query(error_query, window)})\n/\n(${query(total_query, window)})\n`,
      labels: { ...labels, sloth_window: window },
    }));
    sli.push({
      record: ratio(PERIOD.window),
      expr:
        `sum_over_time(${ratio("5m")}${selector}[${PERIOD.window}])\n` +
        "/ ignoring (sloth_window)\n" +
        `count_over_time(${ratio("5m")}${selector}[${PERIOD.window}])\n`,
      // All the SLO's labels, not only the window as Sloth writes: promtool's lint takes
      // same-named rules with the same labels in two groups for duplicates.
      labels: { ...labels, sloth_window: PERIOD.window },
    });
    groups.push({ name: `sloth-slo-sli-recordings-${id}`, rules: sli });

    const objective = decimal(slo.objective / 100);
    const budget = decimal(1 - objective);
    const perSlo = `/ on (sloth_id, sloth_slo, sloth_service) group_left\nslo:error_budget:ratio${selector}\n`;
    groups.push({
      name: `sloth-slo-meta-recordings-${id}`,
      rules: [
        { record: "slo:objective:ratio", expr: `vector(${objective})`, labels },
        { record: "slo:error_budget:ratio", expr: `vector(${budget})`, labels },
        { record: "slo:time_period:days", expr: `vector(${PERIOD.days})`, labels },
        { record: "slo:current_burn_rate:ratio", expr: `${ratio("5m")}${selector}\n${perSlo}`, labels },
        {
          record: "slo:period_burn_rate:ratio",
          expr: `${ratio(PERIOD.window)}${selector}\n${perSlo}`,
          labels,
        },
        {
          record: "slo:period_error_budget_remaining:ratio",
          expr: `1 - slo:period_burn_rate:ratio${selector}`,
          labels,
        },
        {
          record: "sloth_slo_info",
          expr: "vector(1)",
          labels: {
            ...labels,
            sloth_mode: "cli-gen-prom",
            sloth_objective: String(slo.objective),
            sloth_spec: spec.version,
          },
        },
      ],
    });

    const condition = (w: BurnWindow) =>
      `(\n    (${ratio(w.short)}${selector} > (${w.factor} * ${budget}))\n` +
      "    and ignoring (sloth_window)\n" +
      `    (${ratio(w.long)}${selector} > (${w.factor} * ${budget}))\n)`;
    const alerts: AlertingRule[] = [];
    for (const [severity, windows, alert] of [
      ["page", PAGE, slo.alerting.page_alert],
      ["ticket", TICKET, slo.alerting.ticket_alert],
    ] as const) {
      if (alert?.disable) continue;
      alerts.push({
        alert: slo.alerting.name,
        expr: `${condition(windows[0])}\nor ignoring (sloth_window)\n${condition(windows[1])}\n`,
        labels: { ...slo.alerting.labels, ...alert?.labels, sloth_severity: severity },
        annotations: { ...slo.alerting.annotations, ...alert?.annotations },
      });
    }
    if (alerts.length > 0) groups.push({ name: `sloth-slo-alerts-${id}`, rules: alerts });
  }
  return groups;
}

/** The rules file Prometheus loads, with a header saying where it comes from. */
export function renderRuleFile(groups: RuleGroup[], header: string): string {
  const doc = new Document({ groups }, { aliasDuplicateObjects: false });
  doc.commentBefore = header
    .split("\n")
    .map((line) => (line ? ` ${line}` : ""))
    .join("\n");
  return doc.toString({ lineWidth: 0, blockQuote: "literal" });
}
