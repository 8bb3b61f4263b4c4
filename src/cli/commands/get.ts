/**
 * `karmadactl get`: like `kubectl get` against the control plane, and with `-C`/`--operation-scope`
 * against member clusters (a CLUSTER column says where each row lives).
 */
import { stringify } from "yaml";
import type { StoredObject } from "../../api/meta.ts";
import { RESOURCES } from "../../client/client.ts";
import type { HttpClient } from "../../client/http.ts";
import { memberConnections } from "../../controllers/members.ts";
import { type ClientFactory, CommandError, type CommandIO } from "../io.ts";

export interface GetOptions {
  resource: string;
  names: string[];
  namespace?: string;
  allNamespaces: boolean;
  output?: string;
  labelSelector?: string;
  operationScope: "karmada" | "members" | "all";
  clusters: string[];
}

interface Column {
  name: string;
  priority?: number;
}

interface Table {
  columnDefinitions: Column[];
  rows: Array<{ cells: unknown[]; object?: { metadata?: { namespace?: string } } }>;
}

const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

interface Resolved {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
  kind: string;
}

/** Finds a resource by plural, singular, short name or kind (case-insensitive), like kubectl. */
async function resolve(client: HttpClient, name: string): Promise<Resolved> {
  const [word, groupHint] = ((): [string, string | undefined] => {
    const dot = name.indexOf(".");
    return dot < 0
      ? [name.toLowerCase(), undefined]
      : [name.slice(0, dot).toLowerCase(), name.slice(dot + 1)];
  })();
  const gvs: string[] = ["v1"];
  const groups = JSON.parse((await client.getRaw("/apis")).body) as {
    groups?: Array<{ name: string; preferredVersion?: { groupVersion: string } }>;
  };
  for (const g of groups.groups ?? []) if (g.preferredVersion) gvs.push(g.preferredVersion.groupVersion);
  for (const gv of gvs) {
    const group = gv.includes("/") ? gv.split("/")[0]! : "";
    if (groupHint !== undefined && group !== groupHint && !group.startsWith(`${groupHint}.`)) continue;
    const r = await client.getRaw(gv === "v1" ? "/api/v1" : `/apis/${gv}`);
    if (r.status !== 200) continue;
    const list = JSON.parse(r.body) as {
      resources?: Array<{
        name: string;
        singularName?: string;
        shortNames?: string[];
        kind: string;
        namespaced: boolean;
      }>;
    };
    for (const res of list.resources ?? []) {
      if (res.name.includes("/")) continue;
      const names = [res.name, res.singularName ?? "", res.kind.toLowerCase(), ...(res.shortNames ?? [])];
      if (names.includes(word)) {
        return {
          group,
          version: gv.includes("/") ? gv.split("/")[1]! : "v1",
          resource: res.name,
          namespaced: res.namespaced,
          kind: res.kind,
        };
      }
    }
  }
  throw new CommandError(`the server doesn't have a resource type "${name}"`);
}

function path(r: Resolved, namespace: string | undefined, name?: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ns = r.namespaced && namespace ? `/namespaces/${namespace}` : "";
  return `${base}${ns}/${r.resource}${name ? `/${name}` : ""}`;
}

function render(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, c] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  }
  const lines = rows.map((row) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]! + 3)))
      .join("")
      .trimEnd(),
  );
  return `${lines.join("\n")}\n`;
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

async function fetchTable(client: HttpClient, p: string, selector: string | undefined): Promise<Table> {
  const q = selector ? `?labelSelector=${encodeURIComponent(selector)}` : "";
  const r = await client.getRaw(`${p}${q}`, TABLE_ACCEPT);
  if (r.status !== 200) {
    const status = JSON.parse(r.body) as { message?: string; reason?: string };
    throw new CommandError(`Error from server (${status.reason ?? r.status}): ${status.message ?? r.body}`);
  }
  return JSON.parse(r.body) as Table;
}

export async function runGet(opts: GetOptions, io: CommandIO, clients: ClientFactory): Promise<void> {
  const karmada = (await clients.controlPlane()) as HttpClient;
  const namespace = opts.allNamespaces ? undefined : (opts.namespace ?? "default");
  const sources: Array<{ cluster: string | undefined; client: HttpClient }> = [];
  if (opts.operationScope !== "members") sources.push({ cluster: undefined, client: karmada });
  const members = memberConnections({ controlPlane: karmada });
  try {
    if (opts.operationScope !== "karmada" || opts.clusters.length > 0) {
      const clusters = (await karmada.list(RESOURCES.clusters, undefined)).items;
      const wanted = opts.clusters.length > 0 ? opts.clusters : clusters.map((c) => c.metadata.name!);
      for (const name of wanted) {
        const cluster = clusters.find((c) => c.metadata.name === name);
        if (!cluster) throw new CommandError(`cluster(${name}) does not exist`);
        sources.push({ cluster: name, client: (await members.connect(cluster)).client as HttpClient });
      }
      if (opts.operationScope === "karmada") sources.splice(0, 1);
    }
    const wide = opts.output === "wide";
    const memberScope = sources.some((s) => s.cluster !== undefined);
    if (opts.output && !wide) {
      const items: Array<StoredObject & { cluster?: string }> = [];
      for (const src of sources) {
        const r = await resolve(src.client, opts.resource);
        const names = opts.names.length > 0 ? opts.names : [undefined];
        for (const n of names) {
          const got = JSON.parse((await src.client.getRaw(path(r, namespace, n))).body) as StoredObject & {
            items?: StoredObject[];
          };
          items.push(...(Array.isArray(got.items) ? got.items : [got]));
        }
      }
      if (opts.output === "name") {
        for (const i of items) io.stdout.write(`${i.kind?.toLowerCase()}/${i.metadata?.name}\n`);
      } else {
        const doc =
          items.length === 1 && opts.names.length === 1
            ? items[0]
            : { apiVersion: "v1", kind: "List", items, metadata: { resourceVersion: "" } };
        io.stdout.write(opts.output === "json" ? `${JSON.stringify(doc, null, 4)}\n` : stringify(doc));
      }
      return;
    }
    let header: string[] | undefined;
    const rows: string[][] = [];
    for (const src of sources) {
      const r = await resolve(src.client, opts.resource);
      const paths =
        opts.names.length > 0 ? opts.names.map((n) => path(r, namespace, n)) : [path(r, namespace)];
      for (const p of paths) {
        const table = await fetchTable(src.client, p, opts.labelSelector);
        const keep = table.columnDefinitions
          .map((c, i) => ((c.priority ?? 0) === 0 || wide ? i : -1))
          .filter((i) => i >= 0);
        header ??= [
          ...(opts.allNamespaces && r.namespaced ? ["NAMESPACE"] : []),
          ...keep.map((i) => table.columnDefinitions[i]!.name.toUpperCase()),
          ...(memberScope ? ["CLUSTER"] : []),
        ];
        for (const row of table.rows) {
          rows.push([
            ...(opts.allNamespaces && r.namespaced ? [row.object?.metadata?.namespace ?? ""] : []),
            ...keep.map((i) => cellText(row.cells[i])),
            ...(memberScope ? [src.cluster ?? "Karmada"] : []),
          ]);
        }
      }
    }
    if (rows.length === 0 || !header) {
      io.stderr.write(
        namespace && !opts.allNamespaces
          ? `No resources found in ${namespace} namespace.\n`
          : "No resources found\n",
      );
      return;
    }
    io.stdout.write(render([header, ...rows]));
  } finally {
    members.close();
  }
}
