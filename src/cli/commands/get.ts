/**
 * `karmadactl get`: like `kubectl get` against the control plane, and with `--operation-scope`
 * (`-s`) `members` or `all` against member clusters (all of them, or those named with `-C`).
 * Tables read as upstream's: a CLUSTER column after NAME (`Karmada` for control-plane rows)
 * and an ADOPTION column last (`Y` when Karmada manages the member object, `N` when not, `-`
 * in the control plane; for pods only with `-o wide`).
 */

import { stringify } from "yaml";
import { isObject, type StoredObject } from "../../api/meta.ts";
import { RESOURCES } from "../../client/client.ts";
import type { HttpClient } from "../../client/http.ts";
import { errorMessage } from "../../machinery/errors.ts";
import { type ClientFactory, CommandError, type CommandIO, tabwriterTable } from "../io.ts";
import { type DiscoveredResource, resolveResourceType } from "../resource-types.ts";

export interface GetOptions {
  resource: string;
  names: string[];
  namespace?: string;
  allNamespaces: boolean;
  output?: string;
  labelSelector?: string;
  operationScope: "karmada" | "members" | "all";
  /** Member clusters to look in; only with operation scope `members` or `all` (as upstream). */
  clusters: string[];
}

/** The CLUSTER cell of control-plane rows. */
export const CONTROL_PLANE = "Karmada";
const MANAGED_LABEL = "karmada.io/managed";

interface Column {
  name: string;
  priority?: number;
}

interface Table {
  columnDefinitions: Column[];
  rows: Array<{
    cells: unknown[];
    object?: { metadata?: { namespace?: string; labels?: Record<string, string> } };
  }>;
}

const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

/** Where rows come from: the control plane or one member cluster. */
interface Source {
  cluster: string;
  controlPlane: boolean;
  client: HttpClient;
}

function path(r: DiscoveredResource, namespace: string | undefined, name?: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ns = r.namespaced && namespace ? `/namespaces/${namespace}` : "";
  return `${base}${ns}/${r.resource}${name ? `/${encodeURIComponent(name)}` : ""}`;
}

/** kubectl's table, without the padding an empty last cell leaves at a line's end. */
function render(rows: string[][]): string {
  return tabwriterTable(rows)
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n");
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** GETs a path; a Status answer becomes an error carrying the server's message. */
async function getJson<T>(client: HttpClient, p: string, accept?: string): Promise<T> {
  const r = await client.getRaw(p, accept);
  if (r.status !== 200) {
    let message = r.body;
    try {
      const status = JSON.parse(r.body) as { message?: string };
      if (status.message) message = status.message;
    } catch {
      // not JSON: the body is the message
    }
    throw new CommandError(message.trim() || `the server answered ${r.status} for ${p}`);
  }
  return JSON.parse(r.body) as T;
}

function withSelector(p: string, selector: string | undefined): string {
  return selector ? `${p}?labelSelector=${encodeURIComponent(selector)}` : p;
}

/** Object keys in sorted order at every level, as kubectl's printers (Go maps) write them. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k])]),
  );
}

/** The control plane and/or the member clusters, per `--operation-scope` and `-C`. */
async function sourcesFor(
  opts: GetOptions,
  karmada: HttpClient,
  clients: ClientFactory,
): Promise<{ sources: Source[]; failed: string[] }> {
  const sources: Source[] = [];
  const failed: string[] = [];
  if (opts.operationScope !== "members") {
    sources.push({ cluster: CONTROL_PLANE, controlPlane: true, client: karmada });
  }
  if (opts.operationScope === "karmada") return { sources, failed };
  const clusters = (await karmada.list(RESOURCES.clusters, undefined)).items;
  const missing = opts.clusters.filter((n) => !clusters.some((c) => c.metadata.name === n));
  if (missing.length > 0) throw new CommandError(`clusters don't exist: ${missing.join(",")}`);
  const wanted =
    opts.clusters.length > 0
      ? [...new Set(opts.clusters)].map((n) => clusters.find((c) => c.metadata.name === n)!)
      : clusters.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  for (const cluster of wanted) {
    const name = cluster.metadata.name;
    try {
      const client = (await clients.memberCluster(name)) as HttpClient;
      const probe = await client.getRaw("/api");
      if (probe.status !== 200) throw new Error(`the server answered ${probe.status}`);
      sources.push({ cluster: name, controlPlane: false, client });
    } catch (err) {
      failed.push(
        `basic connection test to cluster(${name}) failed, please check authorization or network: ${errorMessage(err)}`,
      );
    }
  }
  return { sources, failed };
}

export async function runGet(opts: GetOptions, io: CommandIO, clients: ClientFactory): Promise<void> {
  if (opts.allNamespaces && opts.names.length > 0) {
    throw new CommandError("a resource cannot be retrieved by name across all namespaces");
  }
  const karmada = (await clients.controlPlane()) as HttpClient;
  const { sources, failed } = await sourcesFor(opts, karmada, clients);
  if (sources.length === 0 && failed.length === 0) {
    io.stderr.write("No member Clusters found in Karmada control plane\n");
    return;
  }
  const errors = [...failed];
  if (opts.output && opts.output !== "wide") await printObjects(opts, sources, io, errors);
  else await printTable(opts, sources, io, errors);
  if (errors.length === 1) throw new CommandError(errors[0]!);
  if (errors.length > 1) throw new CommandError(`[${errors.join(", ")}]`);
}

/** `-o yaml|json|name`: one document (or List) over every source. */
async function printObjects(
  opts: GetOptions,
  sources: Source[],
  io: CommandIO,
  errors: string[],
): Promise<void> {
  const namespace = opts.allNamespaces ? undefined : (opts.namespace ?? "default");
  const items: Array<{ r: DiscoveredResource; obj: StoredObject }> = [];
  for (const src of sources) {
    try {
      const r = await resolveResourceType(src.client, opts.resource);
      const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
      // List items may come without apiVersion and kind; the printers show them on every item.
      // managedFields are left out, as kubectl does without --show-managed-fields.
      const stamp = (obj: StoredObject) => {
        const { managedFields: _, ...metadata } = obj.metadata;
        items.push({ r, obj: { ...obj, apiVersion, kind: r.kind, metadata } });
      };
      if (opts.names.length === 0) {
        const list = await getJson<{ items?: StoredObject[] }>(
          src.client,
          withSelector(path(r, namespace), opts.labelSelector),
        );
        for (const obj of list.items ?? []) stamp(obj);
      }
      for (const name of opts.names) stamp(await getJson<StoredObject>(src.client, path(r, namespace, name)));
    } catch (err) {
      errors.push(`cluster(${src.cluster}): ${errorMessage(err)}`);
    }
  }
  if (opts.output === "name") {
    for (const { r, obj } of items) {
      io.stdout.write(`${r.kind.toLowerCase()}${r.group ? `.${r.group}` : ""}/${obj.metadata.name}\n`);
    }
    return;
  }
  if (items.length === 0 && errors.length > 0) return;
  const doc =
    items.length === 1 && opts.names.length === 1 && sources.length === 1
      ? items[0]!.obj
      : { apiVersion: "v1", items: items.map((i) => i.obj), kind: "List", metadata: { resourceVersion: "" } };
  // Sorted keys as Go maps marshal; YAML 1.1 quoting (timestamps, "yes") as Go's YAML writer.
  io.stdout.write(
    opts.output === "json"
      ? `${JSON.stringify(sortKeys(doc), null, 4)}\n`
      : stringify(doc, { sortMapEntries: true, indentSeq: false, lineWidth: 0, version: "1.1" }),
  );
}

/** A server table as upstream prints it: NAMESPACE (with -A), NAME, CLUSTER, the rest, ADOPTION. */
function decorate(
  table: Table,
  src: Source,
  r: DiscoveredResource,
  opts: GetOptions,
): { header: string[]; rows: string[][] } {
  const wide = opts.output === "wide";
  const withNamespace = opts.allNamespaces && r.namespaced;
  // Upstream shows ADOPTION for pods only in the wide view.
  const adoption = wide || r.resource !== "pods";
  const keep = table.columnDefinitions
    .map((c, i) => ((c.priority ?? 0) === 0 || wide ? i : -1))
    .filter((i) => i > 0);
  const header = [
    ...(withNamespace ? ["NAMESPACE"] : []),
    (table.columnDefinitions[0]?.name ?? "Name").toUpperCase(),
    "CLUSTER",
    ...keep.map((i) => table.columnDefinitions[i]!.name.toUpperCase()),
    ...(adoption ? ["ADOPTION"] : []),
  ];
  const adopted = (labels: Record<string, string>): string =>
    src.controlPlane ? "-" : labels[MANAGED_LABEL] === "true" ? "Y" : "N";
  const rows = table.rows.map((row) => [
    ...(withNamespace ? [row.object?.metadata?.namespace ?? ""] : []),
    cellText(row.cells[0]),
    src.cluster,
    ...keep.map((i) => cellText(row.cells[i])),
    ...(adoption ? [adopted(row.object?.metadata?.labels ?? {})] : []),
  ]);
  return { header, rows };
}

/** The default and `-o wide`: the servers' tables with CLUSTER and ADOPTION added. */
async function printTable(
  opts: GetOptions,
  sources: Source[],
  io: CommandIO,
  errors: string[],
): Promise<void> {
  const namespace = opts.allNamespaces ? undefined : (opts.namespace ?? "default");
  let header: string[] | undefined;
  let namespaced: boolean | undefined;
  const rows: string[][] = [];
  for (const src of sources) {
    try {
      const r = await resolveResourceType(src.client, opts.resource);
      namespaced ??= r.namespaced;
      const paths =
        opts.names.length > 0
          ? opts.names.map((n) => path(r, namespace, n))
          : [withSelector(path(r, namespace), opts.labelSelector)];
      for (const p of paths) {
        const printed = decorate(await getJson<Table>(src.client, p, TABLE_ACCEPT), src, r, opts);
        header ??= printed.header;
        rows.push(...printed.rows);
      }
    } catch (err) {
      errors.push(`cluster(${src.cluster}): ${errorMessage(err)}`);
    }
  }
  if (header && rows.length > 0) {
    io.stdout.write(render([header, ...rows]));
    return;
  }
  if (errors.length > 0) return;
  io.stderr.write(
    namespaced !== false && !opts.allNamespaces
      ? `No resources found in ${namespace} namespace.\n`
      : "No resources found\n",
  );
}
