/**
 * Picks and opens a storage backend from a URL, kine style:
 *
 *   memory:                                  nothing survives the process
 *   sqlite://<path>                          one file, e.g. sqlite://.karmada/state.db or sqlite:///var/lib/karmada/state.db
 *   sqlite://:memory:                        SQLite without a file
 *   etcd://host:port[,host:port...][?prefix=/p&cacert=<file>&cert=<file>&key=<file>]
 */
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { splitHostPort } from "./etcd/gateway.ts";
import { EtcdStore } from "./etcd/store.ts";
import { MemoryStore } from "./memory/store.ts";
import { SqliteStore } from "./sqlite/store.ts";
import type { Store } from "./store.ts";

export type StoreUrl =
  | { backend: "memory" }
  | { backend: "sqlite"; path: string }
  | {
      backend: "etcd";
      endpoints: string[];
      prefix?: string;
      caFile?: string;
      certFile?: string;
      keyFile?: string;
    };

const USAGE = "use memory:, sqlite://<path> or etcd://host:port[,host:port][?prefix=/p&cacert=&cert=&key=]";
const ETCD_PARAMS = ["prefix", "cacert", "cert", "key"] as const;
const ETCD_DEFAULT_PORT = 2379;

/** Parses a store URL without touching the file system or the network. */
export function parseStoreUrl(url: string): StoreUrl {
  const fail = (why: string): never => {
    throw new Error(`invalid store URL "${url}": ${why}`);
  };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return fail(`no scheme; ${USAGE}`);
  const rest = url.slice(scheme.length + 1);
  switch (scheme) {
    case "memory":
      if (rest !== "" && rest !== "//") fail("memory: takes no path or options");
      return { backend: "memory" };
    case "sqlite":
      return parseSqlite(rest, fail);
    case "etcd":
      return parseEtcd(rest, fail);
    default:
      return fail(`unknown scheme "${scheme}:"; ${USAGE}`);
  }
}

type Fail = (why: string) => never;

function parseSqlite(rest: string, fail: Fail): StoreUrl {
  if (!rest.startsWith("//")) fail("expected sqlite://<path>");
  const path = rest.slice(2);
  if (path === "") fail("missing the database file path, e.g. sqlite://.karmada/state.db");
  if (path.includes("?")) fail("sqlite URLs take no query parameters");
  if (path.endsWith("/")) fail("the path names a directory, not a database file");
  return { backend: "sqlite", path };
}

function parseEtcd(rest: string, fail: Fail): StoreUrl {
  if (!rest.startsWith("//")) fail("expected etcd://host:port");
  const [authority = "", query, ...extra] = rest.slice(2).split("?");
  if (extra.length > 0) fail("more than one '?'");
  if (authority.includes("/")) fail("etcd URLs take no path; set a key prefix with ?prefix=/p");
  if (authority === "") fail("missing host:port");
  const endpoints = authority.split(",").map((hostPort) => parseEndpoint(hostPort, fail));
  const parsed: StoreUrl & { backend: "etcd" } = { backend: "etcd", endpoints };
  const params = new URLSearchParams(query ?? "");
  for (const [name, value] of params) {
    if (!(ETCD_PARAMS as readonly string[]).includes(name)) {
      fail(`unknown parameter "${name}" (known: ${ETCD_PARAMS.join(", ")})`);
    }
    if (value === "") fail(`parameter "${name}" is empty`);
    if (params.getAll(name).length > 1) fail(`parameter "${name}" is given twice`);
  }
  const prefix = params.get("prefix");
  const caFile = params.get("cacert");
  const certFile = params.get("cert");
  const keyFile = params.get("key");
  if ((certFile === null) !== (keyFile === null)) fail("cert and key must be given together");
  if (prefix !== null) parsed.prefix = prefix;
  if (caFile !== null) parsed.caFile = caFile;
  if (certFile !== null) parsed.certFile = certFile;
  if (keyFile !== null) parsed.keyFile = keyFile;
  return parsed;
}

function parseEndpoint(hostPort: string, fail: Fail): string {
  if (hostPort === "") fail("empty endpoint in the host list");
  const endpoint = /:\d+$/.test(hostPort) ? hostPort : `${hostPort}:${ETCD_DEFAULT_PORT}`;
  try {
    splitHostPort(endpoint);
  } catch (err) {
    fail((err as Error).message);
  }
  return endpoint;
}

/** kube-apiserver's etcd flags, as `--etcd-servers` and its companions give them. */
export interface EtcdFlags {
  /** `--etcd-servers`: `http(s)://host:port` URLs. */
  servers: readonly string[];
  /** `--etcd-prefix` (kube-apiserver's default: /registry). */
  prefix?: string;
  /** `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** The store URL kube-apiserver's etcd flags describe; an error says which flag to fix. */
export function storeUrlFromEtcdFlags(flags: EtcdFlags): string {
  if (flags.servers.length === 0) throw new Error("--etcd-servers: give at least one http(s)://host:port");
  const schemes = new Set<string>();
  const endpoints = flags.servers.map((server) => {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new Error(`--etcd-servers: ${JSON.stringify(server)} is not a URL (use https://host:port)`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new Error(`--etcd-servers: ${server}: only http:// and https:// are supported`);
    }
    if (url.pathname !== "/" && url.pathname !== "")
      throw new Error(`--etcd-servers: ${server}: no path is allowed`);
    schemes.add(url.protocol);
    return url.port ? url.host : `${url.host}:${ETCD_DEFAULT_PORT}`;
  });
  if (schemes.size > 1) throw new Error("--etcd-servers: use https:// for every server or for none");
  const secure = schemes.has("https:");
  if (secure && !flags.caFile) {
    throw new Error(
      "--etcd-cafile: give the CA that signed the etcd servers' certificates (the servers are https://)",
    );
  }
  if (!secure && (flags.caFile || flags.certFile || flags.keyFile)) {
    throw new Error("--etcd-cafile/--etcd-certfile/--etcd-keyfile need https:// servers in --etcd-servers");
  }
  if (Boolean(flags.certFile) !== Boolean(flags.keyFile)) {
    throw new Error("--etcd-certfile and --etcd-keyfile go together");
  }
  const q = new URLSearchParams();
  q.set("prefix", flags.prefix ?? "/registry");
  if (flags.caFile) q.set("cacert", flags.caFile);
  if (flags.certFile) q.set("cert", flags.certFile);
  if (flags.keyFile) q.set("key", flags.keyFile);
  return `etcd://${endpoints.join(",")}?${q.toString()}`;
}

/**
 * Opens the store a URL names. SQLite paths are taken relative to the working directory and
 * their parent directories are created; an etcd store is checked to answer before it is returned.
 */
export async function openStore(url: string): Promise<Store> {
  const parsed = parseStoreUrl(url);
  switch (parsed.backend) {
    case "memory":
      return new MemoryStore();
    case "sqlite": {
      if (parsed.path === ":memory:") return new SqliteStore(":memory:");
      const path = resolve(parsed.path);
      mkdirSync(dirname(path), { recursive: true });
      return new SqliteStore(path);
    }
    case "etcd": {
      const secure = parsed.caFile !== undefined || parsed.certFile !== undefined;
      const read = (file: string, what: string): string => {
        try {
          return readFileSync(file, "utf8");
        } catch (err) {
          throw new Error(`store URL "${url}": cannot read the ${what} ${file}: ${(err as Error).message}`);
        }
      };
      const tls = secure
        ? {
            ...(parsed.caFile !== undefined && { ca: read(parsed.caFile, "CA bundle") }),
            ...(parsed.certFile !== undefined && { cert: read(parsed.certFile, "client certificate") }),
            ...(parsed.keyFile !== undefined && { key: read(parsed.keyFile, "client key") }),
          }
        : undefined;
      const store = new EtcdStore({
        endpoints: parsed.endpoints,
        ...(parsed.prefix !== undefined && { prefix: parsed.prefix }),
        ...(tls !== undefined && { tls }),
      });
      try {
        await store.currentRevision();
      } catch (err) {
        await store.close();
        throw new Error(`store URL "${url}": etcd does not answer: ${(err as Error).message}`, {
          cause: err,
        });
      }
      return store;
    }
  }
}
