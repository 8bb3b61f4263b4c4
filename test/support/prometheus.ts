/**
 * Prometheus' text exposition format read back into samples, as upstream's e2e grabber does
 * with testutil.ParseMetrics: by metric name, each sample's labels and value. `# HELP`/`# TYPE`
 * lines give the families' types.
 */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  samples: Map<string, Sample[]>;
  types: Map<string, string>;
  /** The samples of `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (const m of text.matchAll(re)) labels[m[1]!] = m[2]!.replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1");
  return labels;
}

export function parseExposition(text: string): Scrape {
  const samples = new Map<string, Sample[]>();
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const list = samples.get(m[1]!) ?? [];
    list.push({ labels: m[2] ? parseLabels(m[2]) : {}, value: Number(m[3]) });
    samples.set(m[1]!, list);
  }
  return {
    samples,
    types,
    find: (name, labels = {}) =>
      (samples.get(name) ?? []).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v)),
  };
}
