/**
 * `karmadactl describe`: kubectl's describe against the control plane or, with
 * `--operation-scope members -C <cluster>`, one member cluster. Every kind is shown the way
 * kubectl's generic describer shows objects it has no specific describer for: name, namespace,
 * labels and annotations, then the whole object with capitalised, space-split field names
 * (`API Version:`, `Metadata:`, `Spec:`, `Status:`), then the Events that name it.
 *
 * Beyond upstream, a ResourceBinding or ClusterResourceBinding gets a `Scheduling:` section
 * before its events: the scheduler's explanation (annotation
 * `scheduler.karmada-ts.io/explanation`) as lines, per cluster why it was selected or which
 * plugin filtered it out, with capacity figures. The annotation itself is long JSON and is
 * listed under Annotations only by name.
 */
import { isObject, type KubeObject, type StoredObject } from "../../api/meta.ts";
import { translateTimestampSince } from "../../apiserver/table/age.ts";
import { RESOURCES } from "../../client/client.ts";
import type { HttpClient } from "../../client/http.ts";
import { EXPLANATION_ANNOTATION } from "../../controllers/scheduler.ts";
import { KARMADA } from "../../karmada/resources.ts";
import { errorMessage, isNotFound } from "../../machinery/errors.ts";
import { explanationText } from "../../scheduler/core/explanation.ts";
import type { ScheduleExplanation } from "../../scheduler/core/types.ts";
import { type ClientFactory, CommandError, type CommandIO } from "../io.ts";
import { type DiscoveredResource, resolveResourceType } from "../resource-types.ts";

export interface DescribeOptions {
  /** The positional arguments: `TYPE [NAME_PREFIX...]` or `TYPE/NAME...`. */
  args: string[];
  /** `-n`; the kubeconfig's namespace is not read, so `default` when not given. */
  namespace?: string;
  allNamespaces: boolean;
  labelSelector?: string;
  operationScope: "karmada" | "members" | "all";
  /** `-C`: the member cluster, with operation scope `members`. */
  cluster?: string;
  showEvents: boolean;
  /** `--show-events` given: events are shown even when more than one object is described. */
  showEventsExplicit: boolean;
  now: () => number;
}

// --- rendering ------------------------------------------------------------------------------

/** A core/v1 Event, the fields describe reads. */
export interface EventItem {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  source?: { component?: string };
  reportingController?: string;
  involvedObject?: { fieldPath?: string };
}

type DescribeWriter = ReturnType<typeof describeWriter>;

/** Lines with tab-separated cells, two spaces per indentation level (kubectl's prefix writer). */
function describeWriter() {
  const parts: string[] = [];
  return {
    write(level: number, text: string): void {
      // kubectl's terminal escaping: no escape sequences or carriage returns reach the terminal.
      parts.push("  ".repeat(level) + text.replaceAll("\x1b", "^[").replaceAll("\r", "\\r"));
    },
    text: (): string => alignColumns(parts.join(""), 2),
  };
}

const runes = (s: string): number => [...s].length;

/**
 * Go's `text/tabwriter` as kubectl's describers configure it (no minimum width, padding 2,
 * spaces): cells are tab-terminated, and a column is aligned over each run of consecutive lines
 * that have a cell in it. The last cell of a line is never padded.
 */
export function alignColumns(text: string, padding: number): string {
  const trailingNewline = text.endsWith("\n");
  const rows = (trailingNewline ? text.slice(0, -1) : text).split("\n").map((l) => l.split("\t"));
  const out: string[] = [];
  const widths: number[] = [];
  const writeLines = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const cells = rows[i]!;
      out.push(cells.map((c, j) => (j < widths.length ? c + " ".repeat(widths[j]! - runes(c)) : c)).join(""));
    }
  };
  const format = (line0: number, line1: number): void => {
    const column = widths.length;
    let start = line0;
    for (let i = line0; i < line1; i++) {
      if (column >= rows[i]!.length - 1) continue;
      writeLines(start, i);
      let end = i;
      let width = 0;
      while (end < line1 && column < rows[end]!.length - 1) {
        width = Math.max(width, runes(rows[end]![column]!) + padding);
        end++;
      }
      widths.push(width);
      format(i, end);
      widths.pop();
      start = end;
      i = end - 1;
    }
    writeLines(start, line1);
  };
  format(0, rows.length);
  return out.join("\n") + (trailingNewline ? "\n" : "");
}

const ACRONYMS = new Set(["API", "URL", "UID", "GUID"]);

/** Splits camelCase as kubectl's describers do: `podCIDRs` → `pod`, `CID`, `Rs`; `HTTPServer` → `HTTP`, `Server`. */
function splitCamelCase(field: string): string[] {
  const classOf = (ch: string): number =>
    /\p{Ll}/u.test(ch) ? 1 : /\p{Lu}/u.test(ch) ? 2 : /\p{Nd}/u.test(ch) ? 3 : 4;
  const runs: string[][] = [];
  let last = 0;
  for (const ch of field) {
    const c = classOf(ch);
    if (c === last) runs[runs.length - 1]!.push(ch);
    else runs.push([ch]);
    last = c;
  }
  // An upper-case run followed by a lower-case one gives its last letter to the next word.
  for (let i = 0; i < runs.length - 1; i++) {
    const run = runs[i]!;
    const next = runs[i + 1]!;
    if (classOf(run[0]!) === 2 && classOf(next[0]!) === 1) next.unshift(run.pop()!);
  }
  return runs.filter((r) => r.length > 0).map((r) => r.join(""));
}

/**
 * A field name as a label: `apiVersion` → `API Version`, `creationTimestamp` → `Creation
 * Timestamp`, `podCIDRs` → `Pod CIDRs`. Names with anything but letters and `-` stay as they are
 * (label keys, `app.kubernetes.io/name`).
 */
export function smartLabelFor(field: string): string {
  if (/[^\p{L}-]/u.test(field)) return field;
  const parts = splitCamelCase(field);
  const merged: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const next = parts[i + 1];
    // An acronym before a capitalised word keeps that word's first letter: `CID` + `Rs` → `CIDRs`.
    if (next !== undefined && part.length >= 2 && part === part.toUpperCase() && /^\p{Lu}/u.test(next)) {
      merged.push(part + next);
      i++;
      continue;
    }
    merged.push(part);
  }
  return merged
    .map((part) => {
      if (ACRONYMS.has(part.toUpperCase())) return part.toUpperCase();
      if (part === part.toLowerCase()) return part.charAt(0).toUpperCase() + part.slice(1);
      return part;
    })
    .join(" ");
}

/** Go's `%v` of a decoded JSON value. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "number") return goNumber(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(" ")}]`;
  if (isObject(v)) {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${k}:${goValue(v[k])}`);
    return `map[${entries.join(" ")}]`;
  }
  return String(v);
}

/** Integers as int64 print, fractions as Go's shortest `%g` (exponent below -4 or from 6 on). */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN";
  const [mantissa, exp] = n.toExponential().split("e") as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 6) {
    return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  return String(n);
}

/** kubectl's `printUnstructuredContent`: sorted keys, nested maps indented, list items one after another. */
function printContent(
  w: DescribeWriter,
  level: number,
  content: Record<string, unknown>,
  prefix: string,
  skip: ReadonlySet<string>,
): void {
  for (const field of Object.keys(content).sort()) {
    const path = `${prefix}.${field}`;
    if (skip.has(path)) continue;
    const value = content[field];
    if (isObject(value)) {
      w.write(level, `${smartLabelFor(field)}:\n`);
      printContent(w, level + 1, value, path, skip);
    } else if (Array.isArray(value)) {
      w.write(level, `${smartLabelFor(field)}:\n`);
      for (const item of value) {
        if (isObject(item)) printContent(w, level + 1, item, path, skip);
        else w.write(level + 1, `${goValue(item)}\n`);
      }
    } else {
      w.write(level, `${smartLabelFor(field)}:\t${goValue(value)}\n`);
    }
  }
}

function printLabels(w: DescribeWriter, title: string, labels: Record<string, string>): void {
  w.write(0, `${title}:\t`);
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) {
    w.write(0, "<none>\n");
    return;
  }
  for (const [i, key] of keys.entries()) w.write(0, `${i === 0 ? "" : "\t"}${key}=${labels[key]}\n`);
}

/** kubectl leaves this one out: it repeats the whole object. */
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const MAX_ANNOTATION_LENGTH = 140;

function printAnnotations(w: DescribeWriter, annotations: Record<string, string>): void {
  w.write(0, "Annotations:\t");
  const keys = Object.keys(annotations)
    .filter((k) => k !== LAST_APPLIED)
    .sort();
  if (keys.length === 0) {
    w.write(0, "<none>\n");
    return;
  }
  for (const [i, key] of keys.entries()) {
    if (i > 0) w.write(0, "\t");
    const value = annotations[key]!.replace(/\n$/, "");
    if (value.length + key.length + 2 > MAX_ANNOTATION_LENGTH || value.includes("\n")) {
      w.write(0, `${key}:\n`);
      for (const line of value.split("\n")) {
        const cut = MAX_ANNOTATION_LENGTH - 2;
        w.write(0, `\t  ${line.length > cut ? `${line.slice(0, cut)}...` : line}\n`);
      }
    } else {
      w.write(0, `${key}: ${value}\n`);
    }
  }
}

function timestampMs(value: string | undefined): number {
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

/** kubectl's `DescribeEvents`: oldest last-seen first; a repeated event as `5s (x3 over 2m)`. */
function printEvents(w: DescribeWriter, events: EventItem[], now: number): void {
  if (events.length === 0) {
    w.write(0, "Events:\t<none>\n");
    return;
  }
  const sorted = [...events].sort((a, b) => timestampMs(a.lastTimestamp) - timestampMs(b.lastTimestamp));
  w.write(0, "Events:\n");
  w.write(1, "Type\tReason\tAge\tFrom\tMessage\n");
  w.write(1, "----\t------\t----\t----\t-------\n");
  for (const e of sorted) {
    const first = e.eventTime
      ? translateTimestampSince(e.eventTime, now)
      : translateTimestampSince(e.firstTimestamp, now);
    let age = first;
    if (e.series) {
      age = `${translateTimestampSince(e.series.lastObservedTime, now)} (x${e.series.count ?? 0} over ${first})`;
    } else if ((e.count ?? 0) > 1) {
      age = `${translateTimestampSince(e.lastTimestamp, now)} (x${e.count} over ${first})`;
    }
    const from = e.source?.component || e.reportingController || "";
    const message = (e.message ?? "").trim();
    const fieldPath = e.involvedObject?.fieldPath;
    w.write(
      1,
      `${e.type ?? ""}\t${e.reason ?? ""}\t${age}\t${from}\t${fieldPath ? `${fieldPath}: ${message}` : message}\n`,
    );
  }
}

function isBinding(obj: KubeObject): boolean {
  const group = KARMADA.resourceBindings.group;
  return (
    (obj.apiVersion ?? "").startsWith(`${group}/`) &&
    (obj.kind === KARMADA.resourceBindings.kind || obj.kind === KARMADA.clusterResourceBindings.kind)
  );
}

/** The scheduler's explanation of a binding as indented lines. */
function printScheduling(w: DescribeWriter, annotation: string | undefined): void {
  if (annotation === undefined) {
    w.write(0, "Scheduling:\t<none>\n");
    return;
  }
  let lines: string[];
  try {
    lines = explanationText(JSON.parse(annotation) as ScheduleExplanation);
  } catch (err) {
    w.write(0, `Scheduling:\t<unreadable ${EXPLANATION_ANNOTATION}: ${(err as Error).message}>\n`);
    return;
  }
  if (lines.length === 0) {
    w.write(0, "Scheduling:\t<none>\n");
    return;
  }
  // The lines nest attempts (affinity terms) over clusters; the shallowest goes one level in.
  const indent = Math.min(...lines.map((l) => l.length - l.trimStart().length));
  w.write(0, "Scheduling:\n");
  for (const line of lines) w.write(1, `${line.slice(indent)}\n`);
}

/**
 * A Secret's values as their sizes: kubectl has a Secret describer that never prints them, and
 * a describe must not show credentials to whoever looks at the terminal.
 */
function withoutSecretValues(obj: KubeObject): KubeObject {
  if (obj.apiVersion !== "v1" || obj.kind !== "Secret") return obj;
  const sizes = (values: unknown, decode: boolean) =>
    isObject(values)
      ? Object.fromEntries(
          Object.entries(values).map(([k, v]) => {
            const text = String(v ?? "");
            return [k, `${decode ? Buffer.from(text, "base64").length : Buffer.byteLength(text)} bytes`];
          }),
        )
      : values;
  const out: KubeObject = { ...obj };
  if ("data" in obj) out.data = sizes(obj.data, true);
  if ("stringData" in obj) out.stringData = sizes(obj.stringData, false);
  return out;
}

const GENERIC_SKIP = new Set([
  ".metadata.managedFields",
  ".metadata.name",
  ".metadata.namespace",
  ".metadata.labels",
  ".metadata.annotations",
]);

/**
 * One object as kubectl's generic describer prints it, plus the scheduling section of a
 * binding; `events` undefined leaves the Events section out (as `--show-events=false`).
 */
export function describeObject(obj: KubeObject, events: EventItem[] | undefined, now: number): string {
  const w = describeWriter();
  const meta = obj.metadata ?? {};
  const binding = isBinding(obj);
  w.write(0, `Name:\t${meta.name ?? ""}\n`);
  w.write(0, `Namespace:\t${meta.namespace ?? ""}\n`);
  printLabels(w, "Labels", meta.labels ?? {});
  const annotations = { ...meta.annotations };
  const explanation = annotations[EXPLANATION_ANNOTATION];
  if (binding && explanation !== undefined) annotations[EXPLANATION_ANNOTATION] = "(see Scheduling)";
  printAnnotations(w, annotations);
  printContent(w, 0, withoutSecretValues(obj), "", GENERIC_SKIP);
  if (binding) printScheduling(w, explanation);
  if (events) printEvents(w, events, now);
  return w.text();
}

// --- running it ---------------------------------------------------------------------------

/** What the arguments select: names of one type, or every object of it (selector, namespace). */
interface Selection {
  type: string;
  names: string[];
}

function parseArgs(args: string[]): Selection[] {
  if (args.length === 0) {
    throw new CommandError(
      'You must specify the type of resource to describe. Use "kubectl api-resources" for a complete list of supported resources.',
    );
  }
  if (!args.some((a) => a.includes("/"))) return [{ type: args[0]!, names: args.slice(1) }];
  const out: Selection[] = [];
  for (const arg of args) {
    const parts = arg.split("/");
    if (!arg.includes("/")) {
      throw new CommandError(
        "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'karmadactl describe resource/<resource_name>' instead of 'karmadactl describe resource resource/<resource_name>')",
      );
    }
    if (parts.length !== 2 || !parts[0] || !parts[1]) {
      throw new CommandError("arguments in resource/name form must have a single resource and name");
    }
    const same = out.find((s) => s.type === parts[0]);
    if (same) same.names.push(parts[1]);
    else out.push({ type: parts[0], names: [parts[1]] });
  }
  return out;
}

/** The object as a GET answers it: list items come without apiVersion and kind. */
function stamped(ref: DiscoveredResource, obj: StoredObject): StoredObject {
  return { ...obj, apiVersion: ref.group ? `${ref.group}/${ref.version}` : ref.version, kind: ref.kind };
}

async function eventsFor(client: HttpClient, obj: StoredObject): Promise<EventItem[] | undefined> {
  const meta = obj.metadata;
  const selector = [
    `involvedObject.name=${meta.name ?? ""}`,
    `involvedObject.namespace=${meta.namespace ?? ""}`,
    `involvedObject.kind=${obj.kind}`,
    ...(meta.uid ? [`involvedObject.uid=${meta.uid}`] : []),
  ].join(",");
  try {
    const list = await client.list(RESOURCES.events, meta.namespace || undefined, {
      fieldSelector: selector,
    });
    return list.items as unknown as EventItem[];
  } catch {
    // As kubectl: no events section when they cannot be read.
    return undefined;
  }
}

/** Upstream's checks: scope `karmada` or `members`, and `members` names its cluster. */
export function validateDescribeOptions(opts: Pick<DescribeOptions, "operationScope" | "cluster">): void {
  if (opts.operationScope !== "karmada" && opts.operationScope !== "members") {
    throw new CommandError(`not support operation scope: ${opts.operationScope}`);
  }
  if (opts.operationScope === "members" && !opts.cluster) {
    throw new CommandError("must specify a member cluster");
  }
}

export async function runDescribe(
  opts: DescribeOptions,
  io: CommandIO,
  clients: ClientFactory,
): Promise<void> {
  validateDescribeOptions(opts);
  const selections = parseArgs(opts.args);
  if (opts.labelSelector && selections.some((s) => s.names.length > 0)) {
    throw new CommandError("name cannot be provided when a selector is specified");
  }
  if (opts.allNamespaces && selections.some((s) => s.names.length > 0)) {
    throw new CommandError("a resource cannot be retrieved by name across all namespaces");
  }
  const karmada = (await clients.controlPlane()) as HttpClient;
  let client = karmada;
  if (opts.operationScope === "members") {
    // As upstream: the cluster must be one Karmada knows; then its proxy serves the reads.
    await karmada.get(RESOURCES.clusters, undefined, opts.cluster!);
    client = (await clients.memberCluster(opts.cluster!)) as HttpClient;
  }
  await describeIn(client, selections, opts, io);
}

/** What the selections name: the objects read, and the failures to read one (kubectl goes on past those). */
async function readSelected(
  client: HttpClient,
  selections: Selection[],
  opts: DescribeOptions,
): Promise<{ found: StoredObject[]; errors: unknown[] }> {
  const namespace = opts.namespace ?? "default";
  const found: StoredObject[] = [];
  const errors: unknown[] = [];
  for (const sel of selections) {
    const ref = await resolveResourceType(client, sel.type);
    const ns = ref.namespaced ? namespace : undefined;
    if (sel.names.length === 0) {
      const list = await client.list(ref, opts.allNamespaces ? undefined : ns, {
        ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
      });
      for (const obj of list.items) found.push(stamped(ref, obj));
      continue;
    }
    for (const name of sel.names) {
      try {
        found.push(stamped(ref, await client.get(ref, ns, name)));
      } catch (err) {
        errors.push(err);
      }
    }
  }
  return { found, errors };
}

/** Every object of the type whose name starts with `prefix`. */
async function readPrefixed(
  client: HttpClient,
  sel: Selection,
  prefix: string,
  namespace: string,
): Promise<StoredObject[]> {
  const ref = await resolveResourceType(client, sel.type);
  const list = await client.list(ref, ref.namespaced ? namespace : undefined);
  return list.items.filter((o) => (o.metadata.name ?? "").startsWith(prefix)).map((o) => stamped(ref, o));
}

async function describeIn(
  client: HttpClient,
  selections: Selection[],
  opts: DescribeOptions,
  io: CommandIO,
): Promise<void> {
  const namespace = opts.namespace ?? "default";
  const { found, errors } = await readSelected(client, selections, opts);
  const now = opts.now();
  const describeOne = async (obj: StoredObject, withEvents: boolean): Promise<string> =>
    describeObject(obj, withEvents ? await eventsFor(client, obj) : undefined, now);

  // `TYPE NAME` naming nothing: every object whose name starts with NAME, as kubectl does
  // (each followed by a blank line, without events unless asked for).
  const [only] = errors;
  if (found.length === 0 && errors.length === 1 && isNotFound(only) && opts.args.length === 2) {
    const matching = await readPrefixed(client, selections[0]!, opts.args[1]!, namespace);
    if (matching.length === 0) throw only;
    for (const obj of matching) {
      io.stdout.write(`${await describeOne(obj, opts.showEventsExplicit && opts.showEvents)}\n`);
    }
    return;
  }

  // Events only when one object is described (or --show-events says so), as kubectl.
  const withEvents =
    opts.showEvents && (opts.showEventsExplicit || (errors.length === 0 && found.length <= 1));
  for (const [i, obj] of found.entries()) {
    io.stdout.write(`${i === 0 ? "" : "\n\n"}${await describeOne(obj, withEvents)}`);
  }
  if (found.length === 0 && errors.length === 0) {
    io.stderr.write(
      opts.allNamespaces ? "No resources found\n" : `No resources found in ${namespace} namespace.\n`,
    );
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new CommandError(`[${errors.map(errorMessage).join(", ")}]`);
}
