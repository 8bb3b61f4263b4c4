/**
 * The HTTP transport: the shared conformance suite over loopback HTTP, then what only HTTP
 * has: kubeconfigs (tokens, token files, contexts, TLS with CA data, client certificates,
 * insecure-skip-tls-verify, tls-server-name, proxies), exec credential plugins, the
 * per-client concurrency limit, transport errors and watch streams cut or split anywhere.
 * Every server is a real one on a free loopback port; nothing is mocked.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConformanceServer,
  failure,
  runClientConformance,
  startConformanceServer,
  until,
  watching,
} from "../../test/support/client-conformance.ts";
import type { StoredObject } from "../api/meta.ts";
import { SYSTEM_ADMIN } from "../apiserver/context.ts";
import { ApiError, isNotFound, unauthorized } from "../machinery/errors.ts";
import { RESOURCES } from "./client.ts";
import {
  HttpClient,
  isTransportError,
  Reachability,
  retryAfterSeconds,
  retryDelayMs,
  TransportError,
} from "./http.ts";
import {
  httpClientFor,
  httpClientFromKubeconfig,
  type KubeconfigSpec,
  loadKubeconfig,
  renderKubeconfig,
  writeKubeconfig,
} from "./kubeconfig.ts";

runClientConformance("http", async () => {
  const server = await startConformanceServer();
  const client = new HttpClient(server.connection);
  return {
    client,
    store: server.store,
    async close() {
      client.close();
      await server.close();
    },
  };
});

// --- test servers ------------------------------------------------------------------------

interface Listening {
  url: string;
  port: number;
  close(): Promise<void>;
}

function listen(server: http.Server | https.Server | net.Server, scheme = "http"): Promise<Listening> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `${scheme}://127.0.0.1:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            if ("closeAllConnections" in server) server.closeAllConnections();
          }),
      });
    });
  });
}

interface SeenRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  /** The CN of the client certificate presented over TLS, if any. */
  clientCN: string | undefined;
}

interface Front extends Listening {
  seen: SeenRequest[];
}

/**
 * A reverse proxy in front of the API server, over HTTP or HTTPS: records what clients send
 * (Authorization, client certificate) and may refuse requests with a 401 Status.
 */
async function startFront(
  backend: string,
  opts: { tls?: https.ServerOptions; authorize?: (authorization: string | undefined) => boolean } = {},
): Promise<Front> {
  const seen: SeenRequest[] = [];
  const target = new URL(backend);
  const handler: http.RequestListener = (req, res) => {
    const socket = req.socket as TLSSocket;
    const peer = typeof socket.getPeerCertificate === "function" ? socket.getPeerCertificate() : undefined;
    const cn = peer?.subject?.CN;
    seen.push({
      method: req.method ?? "",
      url: req.url ?? "",
      authorization: req.headers.authorization,
      clientCN: Array.isArray(cn) ? cn[0] : cn,
    });
    if (opts.authorize && !opts.authorize(req.headers.authorization)) {
      req.resume();
      res.writeHead(401, { "Content-Type": "application/json" });
      res.end(JSON.stringify(unauthorized().status));
      return;
    }
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  };
  const server = opts.tls ? https.createServer(opts.tls, handler) : http.createServer(handler);
  const listening = await listen(server, opts.tls ? "https" : "http");
  return { ...listening, seen };
}

/** A forward proxy: absolute-form requests for http:// targets and CONNECT tunnels. */
async function startProxy(): Promise<Listening & { seen: string[] }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? "");
    const upstream = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: url.pathname + url.search,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  server.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? "").split(":");
    const upstream = net.connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
  });
  return { ...(await listen(server)), seen };
}

const CM = RESOURCES.configmaps;

function configMap(name: string): StoredObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default", uid: `uid-${name}` },
  };
}

// --- kubeconfigs, tokens, exec plugins ---------------------------------------------------

describe("http client: kubeconfigs and credentials", () => {
  let api: ConformanceServer;
  let dir: string;
  const authorizations: Array<string | undefined> = [];
  beforeAll(async () => {
    // Plain HTTP: fronts relay to it, and it takes any credential (what is sent is what is tested).
    api = await startConformanceServer({
      insecure: true,
      http: {
        authenticate: async (req) => {
          authorizations.push(req.headers.authorization);
          return { user: SYSTEM_ADMIN };
        },
      },
    });
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-client-"));
  });
  afterAll(async () => {
    await api?.close();
    await rm(dir, { recursive: true, force: true });
  });

  function spec(users: KubeconfigSpec["users"], current = "main"): KubeconfigSpec {
    return {
      clusters: [{ name: "local", server: api.url }],
      users,
      contexts: users.map((u) => ({ name: u.name, cluster: "local", user: u.name, namespace: "default" })),
      currentContext: current,
    };
  }

  it("renders a kubeconfig with several contexts and loads the current or a named one", async () => {
    const path = join(dir, "two-users.yaml");
    await writeKubeconfig(
      path,
      spec([
        { name: "main", token: "token-main" },
        { name: "other", token: "token-other" },
      ]),
    );
    const text = await readFile(path, "utf8");
    expect(text).toContain("current-context: main");

    const main = await httpClientFromKubeconfig({ path });
    const other = await httpClientFromKubeconfig({ path, context: "other" });
    authorizations.length = 0;
    await main.list(CM, "default");
    await other.list(CM, "default");
    expect(authorizations).toEqual(["Bearer token-main", "Bearer token-other"]);
    main.close();
    other.close();

    const loaded = await loadKubeconfig({ contents: text, context: "other" });
    expect(loaded).toMatchObject({ server: api.url, context: "other", user: "other", namespace: "default" });
    await expect(loadKubeconfig({ contents: text, context: "missing" })).rejects.toThrow(/context "missing"/);
    expect(() => renderKubeconfig({ ...spec([{ name: "main" }]), currentContext: "nope" })).toThrow(
      /current context/,
    );
  });

  it("reads token-file relative to the kubeconfig and again after a 401", async () => {
    await writeFile(join(dir, "token"), "from-file-1\n");
    const path = join(dir, "token-file.yaml");
    const text = renderKubeconfig(spec([{ name: "main" }])).replace(
      "user: {}",
      "user:\n      token-file: token",
    );
    await writeFile(path, text);
    const rotating = await startFront(api.url, {
      authorize: (a) => a === "Bearer from-file-2" || a === "Bearer from-file-1",
    });
    const conn = await loadKubeconfig({ path });
    const client = httpClientFor({ ...conn, server: rotating.url });
    await client.list(CM, "default");
    expect(rotating.seen.at(-1)?.authorization).toBe("Bearer from-file-1");
    client.close();
    await rotating.close();

    // The token rotated and the old one is refused: the 401 makes the client read the file again.
    await writeFile(join(dir, "token"), "from-file-2\n");
    const strict = await startFront(api.url, { authorize: (a) => a === "Bearer from-file-2" });
    const again = httpClientFor({ ...conn, server: strict.url });
    await again.list(CM, "default");
    expect(strict.seen.map((s) => s.authorization)).toEqual(["Bearer from-file-1", "Bearer from-file-2"]);
    again.close();
    await strict.close();
  });

  it("takes tokens from auth providers (client-node's, and the tokenFile provider)", async () => {
    await writeFile(join(dir, "provider-token"), "provider-file-token");
    const text = renderKubeconfig(spec([{ name: "main" }, { name: "other" }]))
      .replace("user: {}", "user:\n      auth-provider: {name: gcp, config: {access-token: gcp-token}}")
      .replace(
        "user: {}",
        `user:\n      auth-provider: {name: tokenFile, config: {tokenFile: ${JSON.stringify(join(dir, "provider-token"))}}}`,
      );
    const gcp = await httpClientFromKubeconfig({ contents: text });
    const file = await httpClientFromKubeconfig({ contents: text, context: "other" });
    authorizations.length = 0;
    await gcp.list(CM, "default");
    await file.list(CM, "default");
    expect(authorizations).toEqual(["Bearer gcp-token", "Bearer provider-file-token"]);
    gcp.close();
    file.close();
  });

  it("runs an exec credential plugin once, sends its token, and runs it again after a 401", async () => {
    const script = join(dir, "plugin.mjs");
    const counter = join(dir, "plugin-runs");
    await writeFile(counter, "");
    await writeFile(
      script,
      [
        'import { appendFileSync, readFileSync } from "node:fs";',
        `appendFileSync(${JSON.stringify(counter)}, "x");`,
        `const runs = readFileSync(${JSON.stringify(counter)}, "utf8").length;`,
        "const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);",
        'const status = { token: [process.env.PLUGIN_PREFIX, runs, info.spec.interactive].join("-") };',
        'if (process.env.PLUGIN_EXPIRED === "1") status.expirationTimestamp = "2000-01-01T00:00:00Z";',
        'process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: "ExecCredential", status }));',
        "",
      ].join("\n"),
    );
    const exec = (env: Record<string, string>) => ({
      command: process.execPath,
      args: [script],
      env: Object.entries(env).map(([name, value]) => ({ name, value })),
      apiVersion: "client.authentication.k8s.io/v1beta1",
    });
    const path = join(dir, "exec.yaml");
    await writeKubeconfig(path, spec([{ name: "main", exec: exec({ PLUGIN_PREFIX: "exec" }) }]));
    const runs = async (): Promise<number> => (await readFile(counter, "utf8")).length;

    const client = await httpClientFromKubeconfig({ path });
    authorizations.length = 0;
    await client.list(CM, "default");
    await client.get(RESOURCES.namespaces, undefined, "default");
    await client.create(CM, configMap("exec-made"));
    expect(authorizations).toEqual(["Bearer exec-1-false", "Bearer exec-1-false", "Bearer exec-1-false"]);
    expect(await runs()).toBe(1);
    expect(process.env.PLUGIN_PREFIX).toBeUndefined();
    client.close();

    // A server that refuses the first credential: the plugin runs again and the request is retried.
    const front = await startFront(api.url, { authorize: (a) => a === "Bearer exec-3-false" });
    const conn = await loadKubeconfig({ path });
    const retrying = httpClientFor({ ...conn, server: front.url });
    await retrying.list(CM, "default");
    expect(front.seen.map((s) => s.authorization)).toEqual(["Bearer exec-2-false", "Bearer exec-3-false"]);
    expect(await runs()).toBe(3);
    retrying.close();
    await front.close();

    // A credential that has expired is fetched anew for every request.
    await writeKubeconfig(
      path,
      spec([{ name: "main", exec: exec({ PLUGIN_PREFIX: "short", PLUGIN_EXPIRED: "1" }) }]),
    );
    const expiring = await httpClientFromKubeconfig({ path });
    authorizations.length = 0;
    await expiring.list(CM, "default");
    await expiring.list(CM, "default");
    expect(authorizations).toEqual(["Bearer short-4-false", "Bearer short-5-false"]);
    expiring.close();

    // A failing plugin is a transport error naming it.
    await writeKubeconfig(path, spec([{ name: "main", exec: { command: join(dir, "no-such-plugin") } }]));
    const broken = await httpClientFromKubeconfig({ path });
    const err = await failure(broken.list(CM, "default"));
    expect(isTransportError(err)).toBe(true);
    expect(err.message).toContain("no-such-plugin");
    broken.close();
  });

  it("goes through an http proxy (proxy-url)", async () => {
    const proxy = await startProxy();
    const path = join(dir, "proxied.yaml");
    await writeKubeconfig(path, {
      clusters: [{ name: "local", server: api.url, proxyUrl: proxy.url }],
      users: [{ name: "main", token: "via-proxy" }],
      contexts: [{ name: "main", cluster: "local", user: "main" }],
      currentContext: "main",
    });
    const client = await httpClientFromKubeconfig({ path });
    await client.get(RESOURCES.namespaces, undefined, "default");
    expect(proxy.seen).toEqual([`GET ${api.url}/api/v1/namespaces/default`]);
    client.close();
    await proxy.close();
    expect(() => new HttpClient({ server: api.url, proxyUrl: "socks5://127.0.0.1:1080" })).toThrow(/socks5/);
  });

  it("caches discovery per group-version", async () => {
    const front = await startFront(api.url);
    const client = new HttpClient({ server: front.url });
    await client.resourceFor("apps/v1", "Deployment");
    await client.resourceFor("apps/v1", "StatefulSet");
    await client.resourceFor("v1", "ConfigMap");
    expect(front.seen.map((s) => s.url)).toEqual(["/apis/apps/v1", "/api/v1"]);
    client.close();
    await front.close();
  });
});

// --- TLS -----------------------------------------------------------------------------------

const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;

interface Certs {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** A CA, a server certificate for 127.0.0.1 and api.member.test, a client certificate CN=alice. */
function makeCerts(dir: string): Certs {
  const run = (args: string[]): void => {
    execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  run([
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "2",
    "-subj",
    "/CN=test-ca",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  const leaf = (name: string, subject: string, ext: string): void => {
    run(["req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject]);
    writeFileSync(join(dir, `${name}.ext`), `${ext}\n`);
    run([
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${name}.crt`,
      "-days",
      "2",
      "-extfile",
      `${name}.ext`,
    ]);
  };
  leaf("server", "/CN=api", "subjectAltName=IP:127.0.0.1,DNS:api.member.test");
  leaf("client", "/CN=alice/O=team", "extendedKeyUsage=clientAuth");
  const read = (f: string): string => readFileSync(join(dir, f), "utf8");
  return {
    ca: read("ca.crt"),
    serverCert: read("server.crt"),
    serverKey: read("server.key"),
    clientCert: read("client.crt"),
    clientKey: read("client.key"),
  };
}

describe.skipIf(!hasOpenssl)(
  hasOpenssl
    ? "http client over TLS (CA data, client certificates, tokens, skip-verify, server name, CONNECT proxy)"
    : "http client over TLS: SKIPPED, openssl not found to make test certificates",
  () => {
    let api: ConformanceServer;
    let front: Front;
    let certs: Certs;
    let dir: string;
    beforeAll(async () => {
      api = await startConformanceServer({ insecure: true });
      dir = await mkdtemp(join(tmpdir(), "karmada-ts-tls-"));
      certs = makeCerts(dir);
      front = await startFront(api.url, {
        tls: {
          cert: certs.serverCert,
          key: certs.serverKey,
          ca: certs.ca,
          requestCert: true,
          rejectUnauthorized: false,
        },
      });
    });
    afterAll(async () => {
      await front?.close();
      await api?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("verifies the server with CA data and presents a client certificate and a token", async () => {
      const path = join(dir, "tls.yaml");
      await writeKubeconfig(path, {
        clusters: [{ name: "member", server: front.url, caData: certs.ca }],
        users: [
          { name: "cert", certData: certs.clientCert, keyData: certs.clientKey },
          { name: "token", token: "tls-token" },
        ],
        contexts: [
          { name: "cert", cluster: "member", user: "cert" },
          { name: "token", cluster: "member", user: "token" },
        ],
        currentContext: "cert",
      });
      const byCert = await httpClientFromKubeconfig({ path });
      await byCert.create(CM, configMap("over-tls"));
      expect(front.seen.at(-1)).toMatchObject({
        method: "POST",
        clientCN: "alice",
        authorization: undefined,
      });

      const byToken = await httpClientFromKubeconfig({ path, context: "token" });
      expect((await byToken.get(CM, "default", "over-tls")).metadata.name).toBe("over-tls");
      expect(front.seen.at(-1)).toMatchObject({ clientCN: undefined, authorization: "Bearer tls-token" });

      // A watch over TLS streams too.
      const list = await byToken.list(CM, "default");
      const w = watching(byToken, CM, "default", { resourceVersion: list.metadata.resourceVersion! });
      await byCert.patch(CM, "default", "over-tls", "merge", { data: { a: "1" } });
      await until(() => w.events.length >= 1, "a watch event over TLS");
      expect(w.events[0]?.type).toBe("MODIFIED");
      w.stop();
      expect(await w.outcome).toBe("resolved");
      byCert.close();
      byToken.close();
    });

    it("refuses an unknown CA unless insecure-skip-tls-verify, and checks tls-server-name", async () => {
      const noCa = new HttpClient({ server: front.url, token: "x" });
      const err = await failure(noCa.list(CM, "default"));
      expect(err).toBeInstanceOf(TransportError);
      expect(err).toMatchObject({ code: 503, reason: "ServiceUnavailable" });
      expect(err.message).toMatch(/certificate/);
      noCa.close();

      const path = join(dir, "insecure.yaml");
      await writeKubeconfig(path, {
        clusters: [{ name: "member", server: front.url, insecureSkipTLSVerify: true }],
        users: [{ name: "u", token: "insecure" }],
        contexts: [{ name: "c", cluster: "member", user: "u" }],
        currentContext: "c",
      });
      const insecure = await httpClientFromKubeconfig({ path });
      expect((await insecure.list(CM, "default")).kind).toBe("ConfigMapList");
      insecure.close();

      const named = httpClientFor({ server: front.url, caData: certs.ca, tlsServerName: "api.member.test" });
      expect((await named.list(CM, "default")).kind).toBe("ConfigMapList");
      named.close();
      const wrongName = httpClientFor({ server: front.url, caData: certs.ca, tlsServerName: "other.test" });
      const mismatch = await failure(wrongName.list(CM, "default"));
      expect(isTransportError(mismatch)).toBe(true);
      expect(mismatch.message).toContain("other.test");
      wrongName.close();

      // base64 CA data, as in a Cluster's secret.
      const fromSecret = httpClientFor({
        server: front.url,
        caData: Buffer.from(certs.ca).toString("base64"),
        token: "from-secret",
      });
      expect((await fromSecret.list(CM, "default")).kind).toBe("ConfigMapList");
      expect(front.seen.at(-1)?.authorization).toBe("Bearer from-secret");
      fromSecret.close();
    });

    it("tunnels through an http proxy with CONNECT", async () => {
      const proxy = await startProxy();
      const client = httpClientFor({ server: front.url, caData: certs.ca, proxyUrl: proxy.url });
      expect((await client.list(CM, "default")).kind).toBe("ConfigMapList");
      expect(proxy.seen).toEqual([`CONNECT 127.0.0.1:${front.port}`]);
      client.close();
      await proxy.close();
    });
  },
);

// --- limits, transport errors, raw watch streams ---------------------------------------

describe("http client: concurrency, transport errors and watch streams", () => {
  it("never has more than maxConcurrent requests in flight; other clients are not stalled", async () => {
    let active = 0;
    let maxActive = 0;
    let served = 0;
    const parked: http.ServerResponse[] = [];
    const slow = await listen(
      http.createServer((_req, res) => {
        active++;
        maxActive = Math.max(maxActive, active);
        parked.push(res);
        res.on("close", () => {
          active--;
        });
      }),
    );
    const fast = await startConformanceServer();
    const client = new HttpClient({ server: slow.url, maxConcurrent: 3 });
    const other = new HttpClient(fast.connection);

    const total = 10;
    const calls = Array.from({ length: total }, (_, i) => client.get(CM, "default", `slow-${i}`));
    const answer = (): void => {
      const res = parked.shift()!;
      served++;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(configMap(`served-${served}`)));
    };
    await until(() => parked.length === 3, "three parked requests");
    // The slow server holds every slot of `client`; a client of another server goes on.
    expect((await other.list(CM, "default")).kind).toBe("ConfigMapList");
    while (served < total) {
      await until(() => parked.length === Math.min(3, total - served), "the queue to refill the slots");
      answer();
    }
    const results = await Promise.all(calls);
    expect(results).toHaveLength(total);
    expect(maxActive).toBe(3);
    client.close();
    other.close();
    await slow.close();
    await fast.close();
  });

  it("reads and patches /scale as a Scale", async () => {
    const server = await startConformanceServer();
    const client = new HttpClient(server.connection);
    await client.create(RESOURCES.deployments, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "scaled", namespace: "default" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "scaled" } },
        template: {
          metadata: { labels: { app: "scaled" } },
          spec: { containers: [{ name: "c", image: "x" }] },
        },
      },
    });
    const scale = await client.get(RESOURCES.deployments, "default", "scaled", { subresource: "scale" });
    expect(scale).toMatchObject({ apiVersion: "autoscaling/v1", kind: "Scale", spec: { replicas: 2 } });
    const patched = await client.patch(
      RESOURCES.deployments,
      "default",
      "scaled",
      "merge",
      { spec: { replicas: 4 } },
      { subresource: "scale" },
    );
    expect(patched).toMatchObject({ kind: "Scale", spec: { replicas: 4 } });
    expect((await client.get(RESOURCES.deployments, "default", "scaled")).spec).toMatchObject({
      replicas: 4,
    });
    client.close();
    await server.close();
  });

  it("lets watches release their slot once streaming", async () => {
    const server = await startConformanceServer();
    const client = new HttpClient({ ...server.connection, maxConcurrent: 1 });
    const list = await client.list(CM, "default");
    const a = watching(client, CM, "default", { resourceVersion: list.metadata.resourceVersion! });
    const b = watching(client, CM, "default", { resourceVersion: list.metadata.resourceVersion! });
    await client.create(CM, configMap("with-watches"));
    await until(() => a.events.length === 1 && b.events.length === 1, "both watches to see the create");
    client.close();
    expect(await a.outcome).toBe("resolved");
    expect(await b.outcome).toBe("resolved");
    await server.close();
  });

  it("turns a refused connection into a 503 TransportError, for requests and watches", async () => {
    const gone = await listen(http.createServer());
    await gone.close();
    const client = new HttpClient({ server: gone.url });
    const err = await failure(client.get(CM, "default", "x"));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ code: 503, reason: "ServiceUnavailable" });
    expect(err.message).toContain("ECONNREFUSED");
    expect(err.message).toContain(`GET ${gone.url}/api/v1/namespaces/default/configmaps/x`);
    expect((err.cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    const watchErr = await watching(client, CM, "default", {}).outcome;
    expect(isTransportError(watchErr)).toBe(true);
    client.close();
  });

  it("times out a request that gets no answer", async () => {
    const held: http.ServerResponse[] = [];
    const silent = await listen(http.createServer((_req, res) => held.push(res)));
    const client = new HttpClient({ server: silent.url, timeoutMs: 100 });
    const err = await failure(client.list(CM, "default"));
    expect(isTransportError(err)).toBe(true);
    expect(err.message).toContain("no response within 100 ms");
    client.close();
    await silent.close();
  });

  it("rebuilds Status errors and reports other error bodies with their code", async () => {
    const server = await listen(
      http.createServer((req, res) => {
        if (req.url?.includes("status")) {
          res.writeHead(403, { "Content-Type": "application/json" });
          res.end(
            JSON.stringify({
              kind: "Status",
              apiVersion: "v1",
              status: "Failure",
              reason: "Forbidden",
              message: "no",
              code: 403,
            }),
          );
        } else if (req.url?.includes("html")) {
          res.writeHead(502, { "Content-Type": "text/html" });
          res.end("<html>bad gateway</html>");
        } else {
          res.writeHead(200, { "Content-Type": "text/plain" });
          res.end("not json");
        }
      }),
    );
    const client = new HttpClient({ server: server.url });
    expect(await failure(client.get(CM, "default", "status"))).toMatchObject({
      code: 403,
      reason: "Forbidden",
    });
    const html = await failure(client.get(CM, "default", "html"));
    expect(html).toMatchObject({ code: 502, message: "<html>bad gateway</html>" });
    expect((await failure(client.get(CM, "default", "text"))).code).toBe(500);
    client.close();
    await server.close();
  });

  it("parses events split across chunks and many per chunk; done resolves when the stream ends", async () => {
    const ev = (name: string, type = "ADDED"): string =>
      `${JSON.stringify({ type, object: { ...configMap(name), data: { text: "ünïcødé ✓" } } })}\n`;
    const server = await listen(
      http.createServer((_req, res) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.flushHeaders();
        const all = Buffer.from(ev("a") + ev("b") + ev("c", "MODIFIED") + ev("d", "DELETED"));
        // Cut inside a multi-byte character and inside JSON, then several events at once.
        const cuts = [5, all.indexOf("ü") + 1, all.indexOf("✓") + 2, all.length - 20];
        let from = 0;
        const writeNext = (i: number): void => {
          if (i > cuts.length) {
            res.end();
            return;
          }
          const to = cuts[i] ?? all.length;
          res.write(all.subarray(from, to));
          from = to;
          setImmediate(() => writeNext(i + 1));
        };
        writeNext(0);
      }),
    );
    const client = new HttpClient({ server: server.url });
    const w = watching(client, CM, "default", {});
    expect(await w.outcome).toBe("resolved");
    expect(w.events.map((e) => `${e.type} ${(e.object as StoredObject).metadata.name}`)).toEqual([
      "ADDED a",
      "ADDED b",
      "MODIFIED c",
      "DELETED d",
    ]);
    expect(
      w.events.every((e) => ((e.object as StoredObject).data as { text?: string }).text === "ünïcødé ✓"),
    ).toBe(true);
    client.close();
    await server.close();
  });

  it("rejects done when the server dies in the middle of a watch", async () => {
    const server = await listen(
      http.createServer((_req, res) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.write(`${JSON.stringify({ type: "ADDED", object: configMap("before") })}\n`);
        res.write('{"type":"MODIFIED","obj');
        setImmediate(() => res.socket?.destroy());
      }),
    );
    const client = new HttpClient({ server: server.url });
    const w = watching(client, CM, "default", {});
    const outcome = await w.outcome;
    expect(isTransportError(outcome)).toBe(true);
    expect(w.events.map((e) => e.type)).toEqual(["ADDED"]);
    client.close();
    await server.close();
  });

  it("rejects done with the Status of a watch refused before streaming, and on a handler error", async () => {
    const server = await startConformanceServer();
    const client = new HttpClient(server.connection);
    const missing = await watching(client, { ...CM, resource: "nothings" }, "default", {}).outcome;
    expect(isNotFound(missing)).toBe(true);

    await client.create(CM, configMap("boom"));
    const boom = new Error("handler failed");
    const handle = client.watch(CM, "default", {}, () => {
      throw boom;
    });
    await expect(handle.done).rejects.toBe(boom);
    client.close();
    await server.close();
  });
});

describe("http client: backing off when told to come back later", () => {
  /**
   * A server answering each request with the next of `answers` (status, Retry-After), then
   * 200 with a ConfigMap; it records the method and body of every request it got.
   */
  async function busyServer(answers: Array<[number, string | undefined]>) {
    const seen: Array<{ method: string; body: string }> = [];
    const server = await listen(
      http.createServer((req, res) => {
        let body = "";
        req.on("data", (c: Buffer) => (body += c.toString()));
        req.on("end", () => {
          seen.push({ method: req.method ?? "", body });
          const next = answers.shift();
          if (next) {
            const [status, retryAfter] = next;
            res.writeHead(status, {
              "Content-Type": "application/json",
              ...(retryAfter !== undefined ? { "Retry-After": retryAfter } : {}),
            });
            res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: status }));
            return;
          }
          res.writeHead(req.method === "POST" ? 201 : 200, { "Content-Type": "application/json" });
          res.end(JSON.stringify(configMap("answered")));
        });
      }),
    );
    return { server, seen };
  }

  it.each([
    [429, "1", 1],
    [429, "0", 0],
    [429, "-3", 0],
    [429, "120", 60],
    [429, undefined, undefined],
    [429, "Wed, 21 Oct 2015 07:28:00 GMT", undefined],
    [503, "2", 2],
    [500, "0", 0],
    [504, undefined, undefined],
    [409, "1", undefined],
    [200, "1", undefined],
  ])("status %i with Retry-After %s: wait %s s", (status, header, want) => {
    expect(retryAfterSeconds(status, header)).toBe(want);
  });

  it("adds up to half the wait as jitter", () => {
    expect(retryDelayMs(1, () => 0)).toBe(1000);
    expect(retryDelayMs(2, () => 0.5)).toBe(2500);
    expect(retryDelayMs(0, () => 0.9)).toBe(0);
  });

  it("retries a 429 and a 5xx with Retry-After, every verb, the same body each time", async () => {
    const { server, seen } = await busyServer([
      [429, "0"],
      [503, "0"],
    ]);
    const client = new HttpClient({ server: server.url });
    const created = await client.create(CM, configMap("posted"));
    expect(created.metadata.name).toBe("answered");
    expect(seen.map((s) => s.method)).toEqual(["POST", "POST", "POST"]);
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    client.close();
    await server.close();
  });

  it("is what every component's client does (httpClientFor, as the agent and controller manager build theirs)", async () => {
    const { server, seen } = await busyServer([[429, "0"]]);
    const client = httpClientFor({ server: server.url }, { userAgent: "karmada-agent" });
    expect((await client.get(CM, "default", "x")).metadata.name).toBe("answered");
    expect(seen).toHaveLength(2);
    client.close();
    await server.close();
  });

  it("does not retry a 5xx without Retry-After, and gives up after maxRetries", async () => {
    const plain = await busyServer([[500, undefined]]);
    const client = new HttpClient({ server: plain.server.url });
    expect((await failure(client.get(CM, "default", "x"))).code).toBe(500);
    expect(plain.seen).toHaveLength(1);
    client.close();
    await plain.server.close();

    const busy = await busyServer(Array.from({ length: 10 }, () => [429, "0"] as [number, string]));
    const bounded = new HttpClient({ server: busy.server.url, maxRetries: 3 });
    expect((await failure(bounded.list(CM, "default"))).code).toBe(429);
    expect(busy.seen).toHaveLength(4);
    bounded.close();
    await busy.server.close();
  });

  it("opens a watch again when told to come back later", async () => {
    let opened = 0;
    const server = await listen(
      http.createServer((_req, res) => {
        opened++;
        if (opened === 1) {
          res.writeHead(429, { "Retry-After": "0", "Content-Type": "text/plain" });
          res.end("Too many requests, please try again later.\n");
          return;
        }
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(`${JSON.stringify({ type: "ADDED", object: configMap("watched") })}\n`);
      }),
    );
    const client = new HttpClient({ server: server.url });
    const w = watching(client, CM, "default", {});
    expect(await w.outcome).toBe("resolved");
    expect(w.events.map((e) => (e.object as StoredObject).metadata.name)).toEqual(["watched"]);
    expect(opened).toBe(2);
    client.close();
    await server.close();
  });
});

describe("reachability", () => {
  it("tells its listeners once per recovery, on the first answer that is not a 5xx or 429", () => {
    const r = new Reachability();
    let recovered = 0;
    const unsubscribe = r.onRecovered(() => recovered++);
    r.answered(200); // never unreachable: nothing to tell
    r.failed();
    r.failed();
    r.answered(503); // a server starting up
    r.answered(429); // or overloaded
    expect(recovered).toBe(0);
    r.answered(404); // an answer all the same
    r.answered(200);
    expect(recovered).toBe(1);
    unsubscribe();
    r.failed();
    r.answered(200);
    expect(recovered).toBe(1);
  });

  it("is shared by the clients of one server: a probe's answer ends the failures the main client met", async () => {
    const server = http.createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    // A port nothing listens on: the main client fails to connect.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const reachability = new Reachability();
    const main = new HttpClient({ server: `http://127.0.0.1:${deadPort}`, reachability });
    const probe = new HttpClient({ server: `http://127.0.0.1:${port}`, reachability });
    let recovered = 0;
    main.onRecovered(() => recovered++);
    try {
      await expect(main.getRaw("/readyz")).rejects.toBeInstanceOf(TransportError);
      expect(recovered).toBe(0);
      await probe.getRaw("/readyz");
      expect(recovered).toBe(1);
    } finally {
      main.close();
      probe.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
