/**
 * Test harness: an API server on a free loopback port (in process, memory store by
 * default), a kubeconfig pointing at it, and the real kubectl run against it.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiHandler, ApiRequest } from "../../src/apiserver/handler.ts";
import { startHttpServer } from "../../src/apiserver/http.ts";
import { secureServingFrom } from "../../src/apiserver/secure-serving.ts";
import { ApiServer, type ApiServerOptions } from "../../src/apiserver/server.ts";
import type { ClusterConnection } from "../../src/client/http.ts";
import { writeKubeconfig } from "../../src/client/kubeconfig.ts";
import { silentLogger } from "../../src/log.ts";
import { type ClusterPki, createClusterPki } from "../../src/pki/cluster-pki.ts";
import { MemoryStore } from "../../src/storage/memory/store.ts";
import type { Store } from "../../src/storage/store.ts";

export const KUBECTL = "/usr/bin/kubectl";

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlOptions {
  stdin?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** A request the server received (what kubectl sent), with the status it answered. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  accept: string | undefined;
  status?: number;
}

/** A kubectl process left running (e.g. `get -w`, `wait`): read its output while it runs. */
export interface KubectlProcess {
  stdout(): string;
  stderr(): string;
  /** Resolves when the process exits by itself. */
  exited: Promise<KubectlResult>;
  /** Ends the process (SIGTERM) if still running and returns its result. */
  stop(): Promise<KubectlResult>;
}

export interface TestServer {
  url: string;
  /** How the admin reaches it (URL, CA, client certificate), for the HTTP client. */
  connection: ClusterConnection;
  api: ApiServer;
  store: Store;
  dir: string;
  kubeconfig: string;
  /** Runs kubectl against the server; never throws for a non-zero exit. */
  kubectl(args: string[], opts?: KubectlOptions): Promise<KubectlResult>;
  /** Starts kubectl without waiting for it (watches, waits). Stopped by `close()` at the latest. */
  kubectlStart(args: string[], opts?: KubectlOptions): KubectlProcess;
  /** Every request the server received, in arrival order. */
  requests: RecordedRequest[];
  /** Writes a file into the server's temp directory and returns its path. */
  writeFile(name: string, content: string): Promise<string>;
  close(): Promise<void>;
}

/** One PKI per test process: making a CA per server would only slow the tests down. */
let testPki: Promise<ClusterPki> | undefined;
export function sharedTestPki(): Promise<ClusterPki> {
  testPki ??= createClusterPki({ caName: "karmada-ts-test" });
  return testPki;
}

export async function startTestServer(
  opts: { store?: Store; server?: Partial<ApiServerOptions> } = {},
): Promise<TestServer> {
  const store = opts.store ?? new MemoryStore();
  const pki = await sharedTestPki();
  const serving = secureServingFrom(pki, { bootstrapTokens: true });
  const api = await ApiServer.start({
    store,
    log: silentLogger,
    compactionIntervalMs: 0,
    ...serving.api,
    ...opts.server,
  });
  const requests: RecordedRequest[] = [];
  // The handler with a recorder in front (same object otherwise, so private state is shared).
  const recording = Object.create(api.handler) as ApiHandler;
  recording.handle = async (req: ApiRequest) => {
    const entry: RecordedRequest = {
      method: req.method,
      path: req.path,
      query: req.query,
      contentType: req.headers["content-type"],
      accept: req.headers.accept,
    };
    requests.push(entry);
    const res = await api.handler.handle(req);
    entry.status = res.status;
    return res;
  };
  const http = await startHttpServer(recording, {
    host: "127.0.0.1",
    port: 0,
    log: silentLogger,
    tls: serving.tls,
    authenticate: api.authenticate!,
  });
  const dir = await mkdtemp(join(tmpdir(), "karmada-ts-e2e-"));
  const kubeconfig = join(dir, "kubeconfig");
  await writeKubeconfig(kubeconfig, {
    clusters: [{ name: "test", server: http.url, caData: pki.ca.certPem }],
    users: [{ name: "test", certData: pki.admin.certPem, keyData: pki.admin.keyPem }],
    contexts: [{ name: "test", cluster: "test", user: "test", namespace: "default" }],
    currentContext: "test",
  });
  const argv = (args: string[]): string[] => [
    `--kubeconfig=${kubeconfig}`,
    `--cache-dir=${join(dir, "cache")}`,
    ...args,
  ];
  const envOf = (o: KubectlOptions): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    KUBECONFIG: kubeconfig,
    ...o.env,
  });
  const running = new Set<KubectlProcess>();
  const kubectlStart: TestServer["kubectlStart"] = (args, o = {}) => {
    const child = spawn(KUBECTL, argv(args), { env: envOf(o), stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
    });
    if (o.stdin !== undefined) child.stdin.end(o.stdin);
    else child.stdin.end();
    const limit = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 60_000);
    const exited = new Promise<KubectlResult>((resolve) => {
      child.on("close", (code, signal) => {
        clearTimeout(limit);
        running.delete(proc);
        resolve({ code: code ?? (signal ? 128 : 1), stdout: out, stderr: err });
      });
    });
    const proc: KubectlProcess = {
      stdout: () => out,
      stderr: () => err,
      exited,
      stop: () => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
        return exited;
      },
    };
    running.add(proc);
    return proc;
  };
  const kubectl: TestServer["kubectl"] = (args, o = {}) =>
    new Promise((resolve) => {
      const child = execFile(
        KUBECTL,
        argv(args),
        {
          env: envOf(o),
          timeout: o.timeoutMs ?? 60_000,
          maxBuffer: 64 * 1024 * 1024,
        },
        (err, stdout, stderr) => {
          const code = err
            ? typeof (err as { code?: unknown }).code === "number"
              ? (err as { code: number }).code
              : 1
            : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (o.stdin !== undefined) child.stdin?.end(o.stdin);
    });
  return {
    url: http.url,
    connection: {
      server: http.url,
      caData: pki.ca.certPem,
      certData: pki.admin.certPem,
      keyData: pki.admin.keyPem,
    },
    api,
    store,
    dir,
    kubeconfig,
    kubectl,
    kubectlStart,
    requests,
    async writeFile(name, content) {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    },
    async close() {
      await Promise.all([...running].map((p) => p.stop()));
      await http.close();
      await api.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a truthy value (bounded); returns it. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  tries = 100,
  delayMs = 50,
): Promise<T> {
  let last: unknown;
  for (let i = 0; i < tries; i++) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, delayMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

/** A file under the shared directory next to the project (`../shared/...` from the project root). */
export function sharedPath(relative: string): string {
  return fileURLToPath(new URL(`../../../shared/${relative}`, import.meta.url));
}

/** Waits until a watch request matching `match` reached the server (kubectl is then watching). */
export function watchStarted(
  s: TestServer,
  match: (r: RecordedRequest) => boolean,
  what: string,
  since = 0,
): Promise<RecordedRequest> {
  return eventually(
    async () => s.requests.slice(since).find((r) => r.query.get("watch") === "true" && match(r)),
    what,
    200,
  );
}

/**
 * The real kubectl against one context of a kubeconfig (a `karmada up` fleet's), with its own
 * HOME and cache, stdin when given; never throws.
 */
export function contextKubectl(
  kubeconfig: () => string,
  homeDir: () => string,
): (context: string, args: string[], stdin?: string) => Promise<KubectlResult> {
  return (context, args, stdin) =>
    new Promise((resolve) => {
      const home = homeDir();
      const child = execFile(
        KUBECTL,
        [
          `--kubeconfig=${kubeconfig()}`,
          `--cache-dir=${join(home, "cache")}`,
          "--request-timeout=10s",
          "--context",
          context,
          ...args,
        ],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home }, timeout: 30_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      if (stdin !== undefined) child.stdin!.end(stdin);
    });
}
