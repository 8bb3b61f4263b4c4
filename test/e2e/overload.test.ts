/**
 * Overload as kube-apiserver handles it, over real TLS sockets (ADR 0017): max-in-flight slots
 * held from a request's headers until its response has ended (body upload included, given back
 * when the client goes away), `--request-timeout` and `?timeout=` with kube's 504 and 400, a
 * body trickled byte by byte and a response left unread cut off at the deadline, a watcher that
 * stops reading ended with a bounded backlog, the HTTP client backing off on 429, and the
 * `karmada apiserver` flag end to end. A user with cluster-admin's rights
 * but outside system:masters sends the requests, since system:masters is never limited.
 * Outcomes only: every wait is a bounded poll, no duration is asserted.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import type { ClientRequest, IncomingMessage } from "node:http";
import { request } from "node:https";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpServerOptions, type RunningHttpServer, startHttpServer } from "../../src/apiserver/http.ts";
import { secureServingFrom } from "../../src/apiserver/secure-serving.ts";
import { ApiServer } from "../../src/apiserver/server.ts";
import { requestTimeoutStatus } from "../../src/apiserver/timeouts.ts";
import { RESOURCES } from "../../src/client/client.ts";
import { HttpClient } from "../../src/client/http.ts";
import { LocalClient } from "../../src/client/local.ts";
import { memoryLogger } from "../../src/log.ts";
import { createMetricsRegistry } from "../../src/metrics/registry.ts";
import { createClusterPki, issueClientCertificate } from "../../src/pki/cluster-pki.ts";
import { MemoryStore } from "../../src/storage/memory/store.ts";
import type { KeyValue, ListOptions, ListResult } from "../../src/storage/store.ts";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));
const CM = RESOURCES.configmaps;
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

/** A real memory store whose creates and lists can be held at a gate: a handler that is slow. */
class GatedStore extends MemoryStore {
  #gate: Promise<void> | undefined;
  #open: () => void = () => {};
  /** Creates and lists wait from now until `open()`. */
  hold(): void {
    this.#gate = new Promise((resolve) => {
      this.#open = resolve;
    });
  }
  open(): void {
    this.#gate = undefined;
    this.#open();
  }
  override async create(key: string, value: string): Promise<KeyValue> {
    await this.#gate;
    return super.create(key, value);
  }
  override async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    await this.#gate;
    return super.list(prefix, options);
  }
}

interface Harness {
  http: RunningHttpServer;
  store: GatedStore;
  admin: LocalClient;
  /** TLS options of alice: cluster-admin's rights, not system:masters. */
  alice: { ca: string; cert: string; key: string };
  /** What the server logged at warning level so far. */
  warnings(): Array<Record<string, unknown>>;
  /** The sum of a counter's series whose labels include `labels`. */
  count(name: string, labels?: Record<string, string>): Promise<number>;
  close(): Promise<void>;
}

const running: Harness[] = [];
afterEach(async () => {
  for (const h of running.splice(0)) await h.close();
});

async function start(options: Partial<HttpServerOptions>): Promise<Harness> {
  const pki = await createClusterPki({ caName: "overload" });
  const serving = secureServingFrom(pki);
  const store = new GatedStore();
  const { logger, lines } = memoryLogger();
  const metrics = createMetricsRegistry();
  const api = await ApiServer.start({ store, log: logger, compactionIntervalMs: 0, metrics, ...serving.api });
  const http = await startHttpServer(api.handler, {
    host: "127.0.0.1",
    port: 0,
    log: logger,
    tls: serving.tls,
    authenticate: api.authenticate!,
    metrics: api.requestMetrics!,
    ...options,
  });
  const admin = new LocalClient(api.context, { fieldManager: "overload-test" });
  await admin.create(RESOURCES.clusterrolebindings, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "alice-admin" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }],
  });
  const cert = await issueClientCertificate(pki, { commonName: "alice", organizations: ["testers"] });
  const h: Harness = {
    http,
    store,
    admin,
    alice: { ca: pki.ca.certPem, cert: cert.certPem, key: cert.keyPem },
    warnings: () => lines.filter((l) => l.level === "warn"),
    async count(name, labels = {}) {
      const values = (await metrics.getSingleMetric(name)?.get())?.values ?? [];
      return values
        .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
        .reduce((sum, v) => sum + v.value, 0);
    },
    async close() {
      store.open();
      await http.close();
      await api.close();
    },
  };
  running.push(h);
  return h;
}

interface Answer {
  status: number;
  headers: IncomingMessage["headers"];
  text: string;
}

/** Starts a request as alice; `body` is sent whole (string) or left open (the request is returned). */
function send(
  h: Harness,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): { req: ClientRequest; answer: Promise<Answer> } {
  let req!: ClientRequest;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = request(
      {
        host: "127.0.0.1",
        port: h.http.port,
        method,
        path,
        headers: { "Content-Type": "application/json", ...headers },
        agent: false,
        ...h.alice,
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
  });
  if (body !== undefined) req.end(body);
  return { req, answer };
}

function call(h: Harness, method: string, path: string, body?: string): Promise<Answer> {
  return send(h, method, path, body ?? (method === "GET" ? "" : "{}")).answer;
}

function configMapJson(name: string, bytes = 0): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default" },
    data: { blob: "x".repeat(bytes) },
  });
}

/** Polls `check` every 20 ms, at most 500 times (10 s). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("max-in-flight slots, as kube-apiserver counts them", () => {
  it("holds a slot while the body arrives, answers 429 meanwhile, and frees it when the client leaves", async () => {
    const h = await start({ inflight: { readOnly: 1, mutating: 1 } });
    const slow = send(h, "POST", CONFIGMAPS, undefined, { "Content-Length": "1000" });
    slow.answer.catch(() => {});
    slow.req.write('{"apiVersion":"v1",');
    await until(() => h.http.inFlight().mutating === 1, "the upload to take the mutating slot");
    const refused = await call(h, "POST", CONFIGMAPS, configMapJson("refused"));
    expect(refused).toMatchObject({ status: 429, text: "Too many requests, please try again later.\n" });
    expect(refused.headers["retry-after"]).toBe("1");
    expect(await h.count("apiserver_dropped_requests_total", { request_kind: "mutating" })).toBe(1);
    expect(
      await h.count("apiserver_request_terminations_total", {
        verb: "POST",
        resource: "configmaps",
        code: "429",
      }),
    ).toBe(1);
    // Reads have their own slots.
    expect((await call(h, "GET", CONFIGMAPS)).status).toBe(200);
    // The client gives up in the middle of its upload: the slot comes back.
    slow.req.destroy();
    await until(() => h.http.inFlight().mutating === 0, "the slot to be given back");
    expect((await call(h, "POST", CONFIGMAPS, configMapJson("accepted"))).status).toBe(201);
    expect(h.http.inFlight()).toEqual({ readOnly: 0, mutating: 0, longRunning: 0 });
  });

  it("holds a slot until the response has been handed over, and frees it when the client aborts mid-response", async () => {
    const h = await start({ inflight: { readOnly: 1, mutating: 0 } });
    // 24 MB of ConfigMaps: more than loopback socket buffers hold, so a list is written slowly.
    for (let i = 0; i < 24; i++) {
      await h.admin.create(CM, JSON.parse(configMapJson(`big-${i}`, 1_000_000)));
    }
    const reader = send(h, "GET", CONFIGMAPS, "");
    reader.answer.catch(() => {});
    const response = await new Promise<IncomingMessage>((resolve) => reader.req.once("response", resolve));
    response.pause();
    expect(response.statusCode).toBe(200);
    // The handler has answered, but the response is still being written: the slot is held.
    expect(h.http.inFlight().readOnly).toBe(1);
    expect((await call(h, "GET", `${CONFIGMAPS}/big-0`)).status).toBe(429);
    reader.req.destroy();
    await until(() => h.http.inFlight().readOnly === 0, "the slot of the aborted response");
    expect((await call(h, "GET", `${CONFIGMAPS}/big-0`)).status).toBe(200);
  });

  it("does not count long-running requests against the limits, but counts them apart", async () => {
    const h = await start({ inflight: { readOnly: 1, mutating: 1 } });
    const watches = [0, 1, 2].map(() => send(h, "GET", `${CONFIGMAPS}?watch=true`, ""));
    for (const w of watches) w.answer.catch(() => {});
    await until(() => h.http.inFlight().longRunning === 3, "three watches");
    expect((await call(h, "GET", CONFIGMAPS)).status).toBe(200);
    for (const w of watches) w.req.destroy();
    await until(() => h.http.inFlight().longRunning === 0, "the watches to end");
  });
});

describe("--request-timeout", () => {
  it("cuts off a body trickled byte by byte with kube's 504, closes the connection, and frees the slot", async () => {
    const h = await start({ inflight: { readOnly: 1, mutating: 1 }, requestTimeoutMs: 300 });
    const body = configMapJson("trickled");
    const slow = send(h, "POST", CONFIGMAPS, undefined, { "Content-Length": String(body.length) });
    let closed = false;
    slow.req.on("socket", (s: Socket) => s.on("close", () => (closed = true)));
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < body.length - 1 && slow.req.writable) slow.req.write(body[sent++]!);
    }, 10);
    try {
      const answer = await slow.answer;
      expect(answer.status).toBe(504);
      expect(JSON.parse(answer.text)).toEqual(requestTimeoutStatus());
      expect(answer.headers.connection).toBe("close");
      expect(
        await h.count("apiserver_request_terminations_total", {
          verb: "POST",
          resource: "configmaps",
          code: "504",
        }),
      ).toBe(1);
      expect(sent).toBeLessThan(body.length - 1);
    } finally {
      clearInterval(trickle);
    }
    await until(() => closed, "the server to close the connection");
    await until(() => h.http.inFlight().mutating === 0, "the slot to be given back");
    expect((await call(h, "GET", `${CONFIGMAPS}/trickled`)).status).toBe(404);
  });

  it("closes the connection of a response still unread at the deadline, and frees the slot", async () => {
    // Long enough for the 24 MB list to be made and its headers sent, even on a busy machine.
    const h = await start({ inflight: { readOnly: 1, mutating: 0 }, requestTimeoutMs: 3_000 });
    for (let i = 0; i < 24; i++) {
      await h.admin.create(CM, JSON.parse(configMapJson(`big-${i}`, 1_000_000)));
    }
    const reader = send(h, "GET", CONFIGMAPS, "");
    const failed = reader.answer.then(
      () => "complete",
      () => "cut",
    );
    const response = await new Promise<IncomingMessage>((resolve) => reader.req.once("response", resolve));
    response.pause();
    // Nobody reads: the deadline passes with most of the list unsent, and the server lets go.
    await until(() => h.http.inFlight().readOnly === 0, "the slot of the unread response");
    response.resume();
    expect(await failed).toBe("cut");
  });

  it("keeps the slot while the handler runs after its 504, and lets the late write commit", async () => {
    const h = await start({ inflight: { readOnly: 0, mutating: 1 }, requestTimeoutMs: 200 });
    h.store.hold();
    const late = await call(h, "POST", CONFIGMAPS, configMapJson("late"));
    expect(late.status).toBe(504);
    expect(JSON.parse(late.text)).toMatchObject({ reason: "Timeout", code: 504 });
    // The create is still waiting on the store: it holds the mutating slot.
    expect(h.http.inFlight().mutating).toBe(1);
    expect((await call(h, "POST", CONFIGMAPS, configMapJson("other"))).status).toBe(429);
    h.store.open();
    await until(() => h.http.inFlight().mutating === 0, "the handler to finish");
    // As in kube-apiserver, a 504 does not say the write did not happen: it did.
    const read = await call(h, "GET", `${CONFIGMAPS}/late`);
    expect(read.status).toBe(200);
  });

  it("lets ?timeout= lower the deadline, and refuses a malformed one with kube's 400", async () => {
    const h = await start({ requestTimeoutMs: 60_000 });
    h.store.hold();
    const lowered = await call(h, "GET", `${CONFIGMAPS}?timeout=100ms`);
    expect(lowered.status).toBe(504);
    h.store.open();
    const bad = await call(h, "GET", `${CONFIGMAPS}?timeout=abc`);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({
      kind: "Status",
      reason: "BadRequest",
      message: 'invalid timeout specified in the request URL - time: invalid duration "abc"',
      code: 400,
    });
    // A longer ?timeout= than the server's, or 0, leaves the server's bound.
    expect((await call(h, "GET", `${CONFIGMAPS}?timeout=10h`)).status).toBe(200);
    expect((await call(h, "GET", `${CONFIGMAPS}?timeout=0`)).status).toBe(200);
  });

  it("never times out a watch", async () => {
    const h = await start({ requestTimeoutMs: 100 });
    const w = send(h, "GET", `${CONFIGMAPS}?watch=true&timeout=50ms`, "");
    w.answer.catch(() => {});
    const res = await new Promise<IncomingMessage>((resolve) => w.req.once("response", resolve));
    expect(res.statusCode).toBe(200);
    const seen: string[] = [];
    res.on("data", (c: Buffer) => seen.push(c.toString()));
    // Well past both deadlines, events still arrive.
    await new Promise((r) => setTimeout(r, 300));
    await h.admin.create(CM, JSON.parse(configMapJson("after-deadline")));
    await until(() => seen.join("").includes("after-deadline"), "the event");
    w.req.destroy();
  });
});

describe("a watcher that does not read", () => {
  const BUFFER = 256 * 1024;
  const EVENT = 100_000;

  /** Updates one ConfigMap with EVENT bytes of data until `ended()` or 600 times (60 MB). */
  async function flood(h: Harness, ended: () => boolean): Promise<number> {
    let n = 0;
    for (; n < 600 && !ended(); n++) {
      const cm = await h.admin.get(CM, "default", "flood");
      await h.admin.update(CM, { ...cm, data: { blob: String(n).padEnd(EVENT, "y") } });
    }
    return n;
  }

  it("is cut off with a bounded backlog, and its connection closed after the grace", async () => {
    const h = await start({ watchBufferBytes: BUFFER, watchCloseGraceMs: 200 });
    const cm = await h.admin.create(CM, JSON.parse(configMapJson("flood")));
    const w = send(h, "GET", `${CONFIGMAPS}?watch=true&resourceVersion=${cm.metadata.resourceVersion}`, "");
    w.answer.catch(() => {});
    const res = await new Promise<IncomingMessage>((resolve) => w.req.once("response", resolve));
    res.pause();
    let socketClosed = false;
    (res.socket as TLSSocket).once("close", () => (socketClosed = true));
    const cutOff = (): Record<string, unknown> | undefined =>
      h.warnings().find((l) => l.msg === "watch client too slow, ending the watch");
    await flood(h, () => cutOff() !== undefined);
    const cut = cutOff();
    expect(cut).toBeDefined();
    // Nobody reads, so the grace runs out and the server closes the connection.
    await until(() => h.http.inFlight().longRunning === 0, "the watch to end");
    // Never more than the limit, the first batch and one more batch were waiting (a batch is an
    // event or a few): a few events past the limit, where before a watcher could hold 64 MiB.
    expect(cut!.unread as number).toBeLessThanOrEqual(BUFFER + 10 * EVENT);
    // The server let go of the socket; the client notices once it reads again.
    res.resume();
    res.on("error", () => {});
    await until(() => socketClosed, "the client's socket to close");
  });

  it("gets everything it had not read, then an ERROR event, when it reads again within the grace", async () => {
    const h = await start({ watchBufferBytes: BUFFER, watchCloseGraceMs: 60_000 });
    const cm = await h.admin.create(CM, JSON.parse(configMapJson("flood")));
    const w = send(h, "GET", `${CONFIGMAPS}?watch=true&resourceVersion=${cm.metadata.resourceVersion}`, "");
    const res = await new Promise<IncomingMessage>((resolve) => w.req.once("response", resolve));
    res.pause();
    const cutOff = (): boolean =>
      h.warnings().some((l) => l.msg === "watch client too slow, ending the watch");
    await flood(h, cutOff);
    expect(cutOff()).toBe(true);
    res.resume();
    const { text } = await w.answer;
    const events = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; object: Record<string, unknown> });
    const last = events.pop()!;
    expect(last).toMatchObject({ type: "ERROR", object: { kind: "Status", code: 410, reason: "Expired" } });
    expect(events.length).toBeGreaterThan(0);
    // What it got is the stream's beginning, in order, with no gap.
    const versions = events.map((e) => (e.object.data as { blob: string }).blob.replace(/y+$/, ""));
    expect(versions).toEqual(versions.map((_, i) => String(i)));
    expect(h.http.inFlight().longRunning).toBe(0);
  });
});

describe("clients back off", () => {
  it("an HttpClient told 429 waits Retry-After and tries again", async () => {
    const h = await start({ inflight: { readOnly: 1, mutating: 1 } });
    h.store.hold();
    // A list waiting on the store holds the one read-only slot.
    const holder = call(h, "GET", CONFIGMAPS);
    await until(() => h.http.inFlight().readOnly === 1, "the slot to be taken");
    const metrics = createMetricsRegistry();
    const client = new HttpClient({
      server: h.http.url,
      caData: h.alice.ca,
      certData: h.alice.cert,
      keyData: h.alice.key,
      metrics,
    });
    try {
      const list = client.list(CM, "default");
      const retries = async (): Promise<number> =>
        (await metrics.getSingleMetric("rest_client_request_retries_total")?.get())?.values.reduce(
          (sum, v) => sum + v.value,
          0,
        ) ?? 0;
      let retried = 0;
      for (let i = 0; i < 500 && retried === 0; i++) {
        retried = await retries();
        if (retried === 0) await new Promise((r) => setTimeout(r, 20));
      }
      expect(retried).toBeGreaterThan(0);
      h.store.open();
      expect((await list).kind).toBe("ConfigMapList");
      expect((await holder).status).toBe(200);
    } finally {
      client.close();
    }
  });
});

describe("karmada apiserver --request-timeout", () => {
  it("cuts off an anonymous client trickling its body once the flag's deadline passes", {
    timeout: 60_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "overload-"));
    const child = spawn(
      process.execPath,
      [
        BIN,
        "apiserver",
        "--storage=memory:",
        "--secure-port=0",
        `--cert-dir=${dir}`,
        "--request-timeout=300ms",
        "--log-level=error",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString();
          const m = /listening on (https:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once("exit", (code) => reject(new Error(`karmada apiserver exited with ${code}`)));
      });
      const { hostname, port } = new URL(url);
      const body = configMapJson("trickled");
      const answer = await new Promise<Answer>((resolve, reject) => {
        const req = request(
          {
            host: hostname,
            port,
            method: "POST",
            path: CONFIGMAPS,
            headers: { "Content-Type": "application/json", "Content-Length": String(body.length) },
            // The server's certificate is self-signed; this client is nobody, on purpose.
            rejectUnauthorized: false,
            agent: false,
          },
          (res) => {
            let text = "";
            res.on("data", (c: Buffer) => (text += c.toString()));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
          },
        );
        req.on("error", reject);
        let sent = 0;
        const trickle = setInterval(() => {
          if (sent < body.length - 1 && req.writable) req.write(body[sent++]!);
          else clearInterval(trickle);
        }, 10);
        req.on("close", () => clearInterval(trickle));
      });
      expect(answer.status).toBe(504);
      expect(JSON.parse(answer.text)).toEqual(requestTimeoutStatus());
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode === null ? child.once("exit", r) : r(undefined)));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
