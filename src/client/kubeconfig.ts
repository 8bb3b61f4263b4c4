/**
 * Kubeconfigs: load one into an HttpClient's connection settings (certificates, tokens and
 * token files, exec credential plugins, auth providers, insecure-skip-tls-verify, proxy-url,
 * tls-server-name), and render one (for `karmada up` and the member simulator).
 *
 * Parsing and the auth providers come from @kubernetes/client-node's `KubeConfig`. That
 * package costs about 450 ms at first import, so it is imported lazily, once per process,
 * when a kubeconfig is first loaded; rendering does not need it.
 *
 * Three things are done here rather than by client-node 1.1.2, which gets them wrong for a
 * process holding many clusters:
 * - exec plugins: client-node caches credentials per user *name* in a process-wide
 *   singleton (two kubeconfigs with a user `admin` would share tokens), runs the plugin again
 *   on every request when the credential has no expirationTimestamp, and writes the plugin's
 *   `env` into this process's `process.env`;
 * - token files: client-node reads `token-file` once, at load, relative to the working
 *   directory, and its `tokenFile` auth provider keeps one cached token for every user in the
 *   process; here the file is relative to the kubeconfig and read again every minute (like
 *   client-go) and after a 401;
 * - proxies: http(s) proxies are handled by the HttpClient itself (socks is not supported).
 *
 * A 401 makes the HttpClient drop cached exec or token-file credentials and retry once.
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import type https from "node:https";
import { dirname, isAbsolute, resolve } from "node:path";
import type { Cluster, KubeConfig, User } from "@kubernetes/client-node";
import YAML from "yaml";
import {
  type ClusterConnection,
  type CredentialSource,
  type Credentials,
  HttpClient,
  type HttpClientOptions,
} from "./http.ts";

export interface KubeconfigSource {
  /** The kubeconfig file; relative paths inside it are relative to its folder. */
  path?: string;
  /** The kubeconfig text (instead of, or as the contents of, `path`). */
  contents?: string;
  /** The context to use (default: the kubeconfig's current-context). */
  context?: string;
}

/** What a kubeconfig context resolves to. */
export interface KubeconfigConnection extends ClusterConnection {
  context: string;
  cluster: string;
  user: string;
  /** The context's default namespace, when it names one. */
  namespace?: string;
}

/** Client settings that are not in a kubeconfig. */
export type HttpClientTuning = Omit<HttpClientOptions, keyof ClusterConnection>;

/** How long a token read from a file is used before the file is read again (client-go's value). */
const TOKEN_FILE_TTL_MS = 60_000;
/** An exec plugin that has not answered by then is killed. */
const EXEC_TIMEOUT_MS = 120_000;

type ClientNode = typeof import("@kubernetes/client-node");
let clientNode: Promise<ClientNode> | undefined;
function loadClientNode(): Promise<ClientNode> {
  clientNode ??= import("@kubernetes/client-node");
  return clientNode;
}

/** Loads a kubeconfig and builds an HttpClient for its (current or named) context. */
export async function httpClientFromKubeconfig(
  source: KubeconfigSource,
  tuning: HttpClientTuning = {},
): Promise<HttpClient> {
  const conn = await loadKubeconfig(source);
  return new HttpClient({ ...connectionSettings(conn), ...tuning });
}

/** Builds an HttpClient straight from connection settings (e.g. a Cluster's secret: token + caBundle). */
export function httpClientFor(conn: ClusterConnection, tuning: HttpClientTuning = {}): HttpClient {
  return new HttpClient({ ...connectionSettings(conn), ...tuning });
}

function connectionSettings(conn: ClusterConnection): ClusterConnection {
  const out: ClusterConnection = { server: conn.server };
  for (const key of [
    "caData",
    "certData",
    "keyData",
    "token",
    "username",
    "password",
    "tlsServerName",
    "proxyUrl",
  ] as const) {
    const v = conn[key];
    if (v !== undefined) out[key] = v;
  }
  if (conn.insecureSkipTLSVerify !== undefined) out.insecureSkipTLSVerify = conn.insecureSkipTLSVerify;
  if (conn.credentials !== undefined) out.credentials = conn.credentials;
  return out;
}

interface RawUser {
  name?: unknown;
  user?: Record<string, unknown> | null;
}

/**
 * Resolves a kubeconfig context into connection settings. Library code does not read
 * KUBECONFIG or ~/.kube/config: the caller (src/bin) says which file.
 */
export async function loadKubeconfig(source: KubeconfigSource): Promise<KubeconfigConnection> {
  if (source.path === undefined && source.contents === undefined) {
    throw new Error("a kubeconfig needs a path or its contents");
  }
  const text = source.contents ?? (await readFile(source.path!, "utf8"));
  const dir = source.path !== undefined ? dirname(resolve(source.path)) : undefined;
  const doc = (YAML.parse(text) ?? {}) as { users?: RawUser[] };
  const tokenFiles = takeTokenFiles(doc, dir);
  const { KubeConfig } = await loadClientNode();
  const kc = new KubeConfig();
  kc.loadFromString(JSON.stringify(doc));
  if (dir) kc.makePathsAbsolute(dir);
  if (source.context !== undefined) {
    if (!kc.getContextObject(source.context)) {
      throw new Error(`context "${source.context}" not found in the kubeconfig`);
    }
    kc.setCurrentContext(source.context);
  }
  const contextName = kc.getCurrentContext();
  const context = contextName ? kc.getContextObject(contextName) : null;
  if (!context) throw new Error("the kubeconfig has no current context; name one");
  const cluster = kc.getCluster(context.cluster);
  if (!cluster) throw new Error(`cluster "${context.cluster}" of context "${contextName}" not found`);

  const conn: KubeconfigConnection = {
    server: cluster.server,
    context: contextName,
    cluster: cluster.name,
    user: context.user,
  };
  if (context.namespace) conn.namespace = context.namespace;
  const ca = await fileOrData(cluster.caFile, cluster.caData);
  if (ca) conn.caData = ca;
  if (cluster.skipTLSVerify) conn.insecureSkipTLSVerify = true;
  if (cluster.tlsServerName) conn.tlsServerName = cluster.tlsServerName;
  if (cluster.proxyUrl) conn.proxyUrl = cluster.proxyUrl;
  const user = kc.getUser(context.user);
  if (user) await applyUser(conn, user, { dir, cluster, tokenFile: tokenFiles.get(user.name), KubeConfig });
  return conn;
}

/**
 * Takes `token-file` out of the users before client-node reads them (see the header) and
 * returns the files per user, relative paths resolved against the kubeconfig's folder.
 */
function takeTokenFiles(doc: { users?: RawUser[] }, dir: string | undefined): Map<string, string> {
  const tokenFiles = new Map<string, string>();
  for (const entry of Array.isArray(doc.users) ? doc.users : []) {
    const file = entry?.user?.["token-file"];
    if (typeof file === "string" && typeof entry.name === "string" && entry.user) {
      tokenFiles.set(entry.name, dir && !isAbsolute(file) ? resolve(dir, file) : file);
      delete entry.user["token-file"];
    }
  }
  return tokenFiles;
}

async function applyUser(
  conn: KubeconfigConnection,
  user: User,
  ctx: {
    dir: string | undefined;
    cluster: Cluster;
    tokenFile: string | undefined;
    KubeConfig: typeof KubeConfig;
  },
): Promise<void> {
  const cert = await fileOrData(user.certFile, user.certData);
  if (cert) conn.certData = cert;
  const key = await fileOrData(user.keyFile, user.keyData);
  if (key) conn.keyData = key;
  if (user.username) {
    conn.username = user.username;
    conn.password = user.password ?? "";
  }
  if (user.token) conn.token = user.token;
  const provider = user.authProvider as { name?: string; config?: Record<string, unknown> } | undefined;
  const execContext = { dir: ctx.dir, cluster: ctx.cluster };
  if (user.exec) {
    conn.credentials = execCredentialSource(user.exec as ExecConfig, execContext);
  } else if (ctx.tokenFile) {
    conn.credentials = tokenFileSource(ctx.tokenFile);
  } else if (provider?.config?.tokenFile) {
    conn.credentials = tokenFileSource(String(provider.config.tokenFile));
  } else if (provider?.name === "exec" || provider?.config?.exec) {
    conn.credentials = execCredentialSource(provider.config?.exec as ExecConfig, execContext);
  } else if (provider) {
    conn.credentials = clientNodeAuthProvider(ctx.KubeConfig, user);
  }
}

async function fileOrData(file: string | undefined, data: string | undefined): Promise<string | undefined> {
  if (file) return readFile(file, "utf8");
  return data || undefined;
}

/** A bearer token read from a file, re-read once a minute or after a 401 (rotated tokens). */
export function tokenFileSource(path: string, now: () => number = Date.now): CredentialSource {
  let cached: { token: string; at: number } | undefined;
  return {
    async get(): Promise<Credentials> {
      if (!cached || now() - cached.at > TOKEN_FILE_TTL_MS) {
        cached = { token: (await readFile(path, "utf8")).trim(), at: now() };
      }
      return { token: cached.token };
    },
    invalidate() {
      cached = undefined;
    },
  };
}

/** The `exec` stanza of a kubeconfig user (client.authentication.k8s.io). */
export interface ExecConfig {
  command: string;
  args?: string[] | null;
  env?: Array<{ name: string; value: string }> | null;
  apiVersion?: string;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
}

interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

/**
 * Runs an exec credential plugin as kubectl does: the plugin's env on top of ours,
 * KUBERNETES_EXEC_INFO describing the request (non-interactive), stdout an ExecCredential.
 * Its credential is kept until its expirationTimestamp (forever without one) or a 401; one
 * run at a time.
 */
export function execCredentialSource(
  exec: ExecConfig,
  context: { dir?: string | undefined; cluster?: Cluster } = {},
  now: () => number = Date.now,
): CredentialSource {
  if (!exec?.command) throw new Error("the kubeconfig's exec plugin names no command");
  const apiVersion = exec.apiVersion ?? "client.authentication.k8s.io/v1beta1";
  // kubectl resolves a command given as a relative path against the kubeconfig's folder.
  const command =
    context.dir && exec.command.includes("/") && !isAbsolute(exec.command)
      ? resolve(context.dir, exec.command)
      : exec.command;
  let cached: { credentials: Credentials; expires: number } | undefined;
  let running: Promise<Credentials> | undefined;

  const run = async (): Promise<Credentials> => {
    const env: NodeJS.ProcessEnv = {
      // A plugin inherits our environment (PATH, HOME, cloud credentials) as under kubectl.
      ...process.env,
      ...Object.fromEntries((exec.env ?? []).map((e) => [e.name, e.value])),
      KUBERNETES_EXEC_INFO: execInfo(exec, apiVersion, context.cluster),
    };
    const hint = exec.installHint ? `\n${exec.installHint}` : "";
    const out = await runPlugin(command, exec.args ?? [], env, hint);
    try {
      cached = parseExecCredential(out);
    } catch (e) {
      throw new Error(`exec plugin ${command}: invalid output: ${(e as Error).message}`);
    }
    return cached.credentials;
  };

  return {
    get(): Promise<Credentials> {
      if (cached && cached.expires > now()) return Promise.resolve(cached.credentials);
      running ??= run().finally(() => {
        running = undefined;
      });
      return running;
    },
    invalidate() {
      cached = undefined;
    },
  };
}

/** KUBERNETES_EXEC_INFO: a non-interactive request, with the cluster when the plugin asks for it. */
function execInfo(exec: ExecConfig, apiVersion: string, c: Cluster | undefined): string {
  const spec: Record<string, unknown> = { interactive: false };
  if (exec.provideClusterInfo && c) {
    const cluster: Record<string, unknown> = { server: c.server };
    if (c.caData) cluster["certificate-authority-data"] = c.caData;
    if (c.skipTLSVerify) cluster["insecure-skip-tls-verify"] = true;
    if (c.tlsServerName) cluster["tls-server-name"] = c.tlsServerName;
    if (c.proxyUrl) cluster["proxy-url"] = c.proxyUrl;
    spec.cluster = cluster;
  }
  return JSON.stringify({ apiVersion, kind: "ExecCredential", spec });
}

/** Runs a credential plugin (bounded in time) and returns its stdout. */
function runPlugin(command: string, args: string[], env: NodeJS.ProcessEnv, hint: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
    });
    const limit = setTimeout(() => child.kill("SIGKILL"), EXEC_TIMEOUT_MS);
    child.on("error", (e) => {
      clearTimeout(limit);
      reject(new Error(`exec plugin ${command}: ${e.message}${hint}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(limit);
      if (code === 0) resolvePromise(out);
      else
        reject(
          new Error(`exec plugin ${command} failed (${signal ?? `exit code ${code}`}): ${err.trim()}${hint}`),
        );
    });
  });
}

/** An ExecCredential's credentials and when they expire (never, without expirationTimestamp). */
function parseExecCredential(out: string): { credentials: Credentials; expires: number } {
  const credential = JSON.parse(out) as { kind?: string; status?: ExecCredentialStatus };
  if (credential.kind !== "ExecCredential" || !credential.status) throw new Error("not an ExecCredential");
  const s = credential.status;
  if (!s.token && !(s.clientCertificateData && s.clientKeyData)) {
    throw new Error("the ExecCredential has neither a token nor a client certificate and key");
  }
  const credentials: Credentials = {};
  if (s.token) credentials.token = s.token;
  if (s.clientCertificateData) credentials.certData = s.clientCertificateData;
  if (s.clientKeyData) credentials.keyData = s.clientKeyData;
  const expires = s.expirationTimestamp ? Date.parse(s.expirationTimestamp) : Number.POSITIVE_INFINITY;
  return { credentials, expires: Number.isNaN(expires) ? 0 : expires };
}

/**
 * Auth providers other than token files and exec (oidc, azure, gcp, ...) through
 * client-node's authenticators, which cache and refresh their tokens themselves: a
 * one-user KubeConfig asked for its Authorization header before each request.
 */
function clientNodeAuthProvider(KubeConfigClass: typeof KubeConfig, user: User): CredentialSource {
  const kc = new KubeConfigClass();
  // Only the provider: TLS material is the HttpClient's business. The https placeholder
  // server keeps client-node from refusing plain http; nothing connects to it.
  kc.loadFromClusterAndUser(
    { name: "auth", server: "https://auth.invalid", skipTLSVerify: true },
    { name: user.name, authProvider: user.authProvider },
  );
  return {
    async get(): Promise<Credentials> {
      const opts: https.RequestOptions = {};
      await kc.applyToHTTPSOptions(opts);
      const header = (opts.headers as Record<string, unknown> | undefined)?.Authorization;
      if (typeof header === "string" && header.startsWith("Bearer ")) return { token: header.slice(7) };
      return {};
    },
  };
}

/** Where a pod's service account credentials are mounted. */
export const IN_CLUSTER_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * The connection of a process running in a pod (client-go's InClusterConfig): the API server
 * at `KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT` (the caller reads them), the mounted
 * CA, and the mounted service-account token, read again as it rotates.
 */
export async function inClusterConnection(
  host: string,
  port: string,
  dir = IN_CLUSTER_DIR,
): Promise<ClusterConnection> {
  const bracketed = host.includes(":") ? `[${host}]` : host;
  return {
    server: `https://${bracketed}:${port}`,
    caData: await readFile(`${dir}/ca.crt`, "utf8"),
    credentials: tokenFileSource(`${dir}/token`),
  };
}

// --- rendering ------------------------------------------------------------------------

export interface KubeconfigSpec {
  clusters: Array<{
    name: string;
    server: string;
    /** PEM or base64 of PEM. */
    caData?: string;
    insecureSkipTLSVerify?: boolean;
    tlsServerName?: string;
    proxyUrl?: string;
  }>;
  users: Array<{
    name: string;
    token?: string;
    /** PEM or base64 of PEM. */
    certData?: string;
    keyData?: string;
    exec?: ExecConfig;
  }>;
  contexts: Array<{ name: string; cluster: string; user: string; namespace?: string }>;
  currentContext: string;
}

/** Kubeconfig `*-data` fields are base64 of PEM. */
function base64Pem(data: string): string {
  return data.includes("-----BEGIN") ? Buffer.from(data, "utf8").toString("base64") : data;
}

/** Renders a kubeconfig (YAML) with several clusters, users and contexts. */
export function renderKubeconfig(spec: KubeconfigSpec): string {
  const clusterNames = new Set(spec.clusters.map((c) => c.name));
  const userNames = new Set(spec.users.map((u) => u.name));
  for (const c of spec.contexts) {
    if (!clusterNames.has(c.cluster))
      throw new Error(`context "${c.name}" names unknown cluster "${c.cluster}"`);
    if (!userNames.has(c.user)) throw new Error(`context "${c.name}" names unknown user "${c.user}"`);
  }
  if (!spec.contexts.some((c) => c.name === spec.currentContext)) {
    throw new Error(`current context "${spec.currentContext}" is not among the contexts`);
  }
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: spec.clusters.map((c) => {
      const cluster: Record<string, unknown> = { server: c.server };
      if (c.caData) cluster["certificate-authority-data"] = base64Pem(c.caData);
      if (c.insecureSkipTLSVerify) cluster["insecure-skip-tls-verify"] = true;
      if (c.tlsServerName) cluster["tls-server-name"] = c.tlsServerName;
      if (c.proxyUrl) cluster["proxy-url"] = c.proxyUrl;
      return { name: c.name, cluster };
    }),
    users: spec.users.map((u) => {
      const user: Record<string, unknown> = {};
      if (u.token) user.token = u.token;
      if (u.certData) user["client-certificate-data"] = base64Pem(u.certData);
      if (u.keyData) user["client-key-data"] = base64Pem(u.keyData);
      if (u.exec) user.exec = { apiVersion: "client.authentication.k8s.io/v1beta1", ...u.exec };
      return { name: u.name, user };
    }),
    contexts: spec.contexts.map((c) => {
      const context: Record<string, unknown> = { cluster: c.cluster, user: c.user };
      if (c.namespace) context.namespace = c.namespace;
      return { name: c.name, context };
    }),
    "current-context": spec.currentContext,
    preferences: {},
  };
  return YAML.stringify(doc);
}

/**
 * A kubeconfig with one context per connection (context, cluster and `<name>-admin` user named
 * after it), CA and credentials inline; the first is the current context.
 */
export function kubeconfigFor(
  entries: ReadonlyArray<{ name: string; connection: ClusterConnection }>,
  current = entries[0]?.name ?? "",
): KubeconfigSpec {
  return {
    clusters: entries.map(({ name, connection: c }) => ({
      name,
      server: c.server,
      ...(c.caData ? { caData: c.caData } : {}),
      ...(c.insecureSkipTLSVerify ? { insecureSkipTLSVerify: true } : {}),
    })),
    users: entries.map(({ name, connection: c }) => ({
      name: `${name}-admin`,
      ...(c.token ? { token: c.token } : {}),
      ...(c.certData && c.keyData ? { certData: c.certData, keyData: c.keyData } : {}),
    })),
    contexts: entries.map(({ name }) => ({ name, cluster: name, user: `${name}-admin` })),
    currentContext: current,
  };
}

/** Writes a rendered kubeconfig, readable by its owner only (it holds credentials). */
export async function writeKubeconfig(path: string, spec: KubeconfigSpec): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, renderKubeconfig(spec), { mode: 0o600 });
}
