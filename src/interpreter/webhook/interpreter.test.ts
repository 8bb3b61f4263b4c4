/**
 * The webhook interpreter against real HTTPS servers on 127.0.0.1 with certificates made by the
 * openssl CLI: a small interpreter for `workload.example.io/v1alpha1 Workload` (the kind of
 * upstream's examples/customresourceinterpreter), answering as upstream's example server does
 * (no apiVersion/kind in the answer, patches as base64 JSON patches).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject, StoredObject } from "../../api/meta.ts";
import { WebhookCallError, WebhookInterpreter } from "./interpreter.ts";

const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;

interface Pki {
  ca: string;
  cert: string;
  key: string;
}

/** A CA named `name` and a server certificate it signs for 127.0.0.1 and localhost. */
function makePki(dir: string, name: string): Pki {
  const run = (args: string[]): void => {
    execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  run([
    "req",
    "-x509",
    ...ec,
    "-keyout",
    `${name}-ca.key`,
    "-out",
    `${name}-ca.crt`,
    "-days",
    "2",
    "-subj",
    `/CN=${name}-ca`,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  run(["req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", "/CN=interpreter"]);
  writeFileSync(join(dir, `${name}.ext`), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  run([
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    `${name}-ca.crt`,
    "-CAkey",
    `${name}-ca.key`,
    "-CAcreateserial",
    "-out",
    `${name}.crt`,
    "-days",
    "2",
    "-extfile",
    `${name}.ext`,
  ]);
  const read = (f: string): string => readFileSync(join(dir, f), "utf8");
  return { ca: read(`${name}-ca.crt`), cert: read(`${name}.crt`), key: read(`${name}.key`) };
}

interface Seen {
  path: string;
  timeout: string | null;
  contentType: string | undefined;
  body: Record<string, unknown>;
}

interface Server {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

type Request = {
  uid: string;
  operation: string;
  object: KubeObject;
  observedObject?: KubeObject;
  replicas?: number;
  aggregatedStatus?: Array<{ clusterName: string; status?: { readyReplicas?: number } }>;
};

type Answer = Record<string, unknown> | "hang" | { httpStatus: number; text: string };

const jsonPatch = (ops: unknown[]) => ({
  patch: Buffer.from(JSON.stringify(ops)).toString("base64"),
  patchType: "JSONPatch",
});

/** Our small Workload interpreter; `offset` is added to the replicas it reports. */
function workloadInterpreter(req: Request, offset = 0): Record<string, unknown> {
  const spec = (req.object.spec ?? {}) as {
    replicas?: number;
    template?: { spec?: { containers?: Array<{ resources?: { requests?: Record<string, string> } }> } };
    paused?: boolean;
  };
  const status = (req.object.status ?? {}) as { readyReplicas?: number };
  switch (req.operation) {
    case "InterpretReplica":
      return {
        replicas: (spec.replicas ?? 1) + offset,
        replicaRequirements: {
          resourceRequest: spec.template?.spec?.containers?.[0]?.resources?.requests ?? {},
        },
      };
    case "ReviseReplica":
      return jsonPatch([{ op: "replace", path: "/spec/replicas", value: req.replicas }]);
    case "Retain": {
      const observed = (req.observedObject?.spec ?? {}) as { paused?: boolean };
      return jsonPatch([{ op: "add", path: "/spec/paused", value: observed.paused ?? false }]);
    }
    case "AggregateStatus": {
      const ready = (req.aggregatedStatus ?? []).reduce(
        (n, item) => n + (item.status?.readyReplicas ?? 0),
        0,
      );
      return jsonPatch([{ op: "add", path: "/status", value: { readyReplicas: ready } }]);
    }
    case "InterpretStatus":
      return { rawStatus: { readyReplicas: status.readyReplicas ?? 0 } };
    case "InterpretHealth":
      return { healthy: status.readyReplicas === spec.replicas };
    case "InterpretDependency":
      return {
        dependencies: [
          {
            apiVersion: "v1",
            kind: "ConfigMap",
            namespace: req.object.metadata?.namespace,
            name: "workload-config",
          },
        ],
      };
    default:
      return { successful: false, status: { code: 400, message: `unexpected operation ${req.operation}` } };
  }
}

async function startServer(pki: Pki, answer: (path: string, req: Request) => Answer): Promise<Server> {
  const seen: Seen[] = [];
  const server = https.createServer(
    { cert: pki.cert, key: pki.key },
    (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "https://127.0.0.1");
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { request: Request };
        seen.push({
          path: url.pathname,
          timeout: url.searchParams.get("timeout"),
          contentType: req.headers["content-type"],
          body,
        });
        const out = answer(url.pathname, body.request);
        if (out === "hang") return;
        if ("httpStatus" in out) {
          res.writeHead(out.httpStatus as number, { "Content-Type": "text/plain" });
          res.end(out.text);
          return;
        }
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ response: { uid: body.request.uid, successful: true, ...out } }));
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ALL = [
  "InterpretReplica",
  "ReviseReplica",
  "Retain",
  "AggregateStatus",
  "InterpretHealth",
  "InterpretStatus",
  "InterpretDependency",
];
const WORKLOAD_RULE = {
  operations: ALL,
  apiGroups: ["workload.example.io"],
  apiVersions: ["v1alpha1"],
  kinds: ["Workload"],
};

function configuration(name: string, webhooks: Array<Record<string, unknown>>): StoredObject {
  return {
    apiVersion: "config.karmada.io/v1alpha1",
    kind: "ResourceInterpreterWebhookConfiguration",
    metadata: { name, uid: `uid-${name}` },
    webhooks,
  };
}

function webhook(
  name: string,
  clientConfig: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    rules: [WORKLOAD_RULE],
    clientConfig,
    interpreterContextVersions: ["v1alpha1"],
    timeoutSeconds: 5,
    ...extra,
  };
}

const workload: KubeObject = {
  apiVersion: "workload.example.io/v1alpha1",
  kind: "Workload",
  metadata: { name: "sample", namespace: "default", labels: { app: "sample" } },
  spec: {
    replicas: 3,
    paused: false,
    template: {
      spec: { containers: [{ name: "c", resources: { requests: { cpu: "100m", memory: "64Mi" } } }] },
    },
  },
  status: { readyReplicas: 3 },
};

async function failure(p: Promise<unknown>): Promise<WebhookCallError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookCallError);
    return err as WebhookCallError;
  }
  throw new Error("expected the call to fail");
}

describe.skipIf(!hasOpenssl)(
  hasOpenssl
    ? "WebhookInterpreter over HTTPS"
    : "WebhookInterpreter over HTTPS: SKIPPED, openssl not found to make test certificates",
  () => {
    let dir: string;
    let pki: Pki;
    let foreignPki: Pki;
    let main: Server;
    let second: Server;
    let foreign: Server;
    let caBundle: string;
    const interpreters: WebhookInterpreter[] = [];
    const interpreterWith = (...configs: StoredObject[]): WebhookInterpreter => {
      const i = new WebhookInterpreter();
      i.setConfigurations(configs);
      interpreters.push(i);
      return i;
    };

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "karmada-ts-interpreter-webhook-"));
      pki = makePki(dir, "main");
      foreignPki = makePki(dir, "foreign");
      caBundle = Buffer.from(pki.ca).toString("base64");
      main = await startServer(pki, (path, req) => {
        switch (path) {
          case "/interpreter-workload":
            return workloadInterpreter(req);
          case "/hang":
            return "hang";
          case "/unsuccessful":
            return { successful: false, status: { code: 500, message: "workload interpreter is broken" } };
          case "/wrong-uid":
            return { uid: "not-the-request-uid", healthy: true };
          case "/http-error":
            return { httpStatus: 503, text: "upstream unavailable" };
          default:
            return { httpStatus: 404, text: "no such path" };
        }
      });
      second = await startServer(pki, (_path, req) => workloadInterpreter(req, 100));
      foreign = await startServer(foreignPki, (_path, req) => workloadInterpreter(req));
    });

    afterAll(async () => {
      for (const i of interpreters) i.close();
      await Promise.all([main?.close(), second?.close(), foreign?.close()]);
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const mainHook = (extra: Record<string, unknown> = {}) =>
      webhook("workloads.example.com", { url: `${main.url}/interpreter-workload`, caBundle }, extra);

    it("answers every operation through the webhook", async () => {
      const wi = interpreterWith(configuration("examples", [mainHook()]));

      expect(await wi.getReplicas(workload)).toEqual({
        replicas: 3,
        requirements: { resourceRequest: { cpu: "100m", memory: "64Mi" } },
      });

      const revised = await wi.reviseReplica(workload, 7);
      expect((revised.spec as { replicas: number }).replicas).toBe(7);
      expect((workload.spec as { replicas: number }).replicas).toBe(3);

      const observed = { ...workload, spec: { ...(workload.spec as object), paused: true } };
      const retained = await wi.retain(workload, observed);
      expect((retained.spec as { paused: boolean }).paused).toBe(true);
      expect(retained.metadata).toEqual(workload.metadata);

      const aggregated = await wi.aggregateStatus(workload, [
        { clusterName: "member1", applied: true, status: { readyReplicas: 2 } },
        { clusterName: "member2", applied: true, status: { readyReplicas: 1 } },
        { clusterName: "member3", applied: false },
      ]);
      expect(aggregated.status).toEqual({ readyReplicas: 3 });

      expect(await wi.reflectStatus(workload)).toEqual({ readyReplicas: 3 });
      expect(await wi.interpretHealth(workload)).toBe("Healthy");
      expect(await wi.interpretHealth({ ...workload, status: { readyReplicas: 1 } })).toBe("Unhealthy");
      expect(await wi.getDependencies(workload)).toEqual([
        { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "workload-config" },
      ]);
    });

    it("sends a ResourceInterpreterContext with a fresh uid per call", async () => {
      const wi = interpreterWith(configuration("examples", [mainHook({ timeoutSeconds: 4 })]));
      const before = main.seen.length;
      const observed = { ...workload, spec: { ...(workload.spec as object), paused: true } };
      await wi.getReplicas(workload);
      await wi.reviseReplica(workload, 5);
      await wi.retain(workload, observed);
      await wi.aggregateStatus(workload, [{ clusterName: "member1", status: { readyReplicas: 1 } }]);
      const seen = main.seen.slice(before);
      expect(seen).toHaveLength(4);
      for (const s of seen) {
        expect(s.path).toBe("/interpreter-workload");
        expect(s.contentType).toBe("application/json");
        expect(s.timeout).toBe("4s");
        expect(s.body.apiVersion).toBe("config.karmada.io/v1alpha1");
        expect(s.body.kind).toBe("ResourceInterpreterContext");
      }
      const requests = seen.map((s) => s.body.request as Record<string, unknown>);
      expect(requests[0]).toEqual({
        uid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        kind: { group: "workload.example.io", version: "v1alpha1", kind: "Workload" },
        name: "sample",
        namespace: "default",
        operation: "InterpretReplica",
        object: workload,
        replicas: 0,
      });
      expect(requests[1]).toMatchObject({ operation: "ReviseReplica", replicas: 5 });
      expect(requests[1]?.observedObject).toBeUndefined();
      expect(requests[2]).toMatchObject({ operation: "Retain", object: workload, observedObject: observed });
      expect(requests[3]).toMatchObject({
        operation: "AggregateStatus",
        aggregatedStatus: [{ clusterName: "member1", status: { readyReplicas: 1 } }],
      });
      expect(new Set(requests.map((r) => r.uid)).size).toBe(4);
    });

    it("handles only what the rules say, and `*`", () => {
      const wi = interpreterWith(
        configuration("examples", [
          mainHook({ rules: [{ ...WORKLOAD_RULE, operations: ["InterpretReplica", "InterpretHealth"] }] }),
          webhook(
            "everything.example.io",
            { url: `${main.url}/interpreter-workload`, caBundle },
            { rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], kinds: ["Gadget"] }] },
          ),
        ]),
      );
      const handles = (op: Parameters<WebhookInterpreter["handles"]>[0], apiVersion: string, kind: string) =>
        wi.handles(op, apiVersion, kind);
      expect(handles("InterpretReplica", "workload.example.io/v1alpha1", "Workload")).toBe(true);
      expect(handles("InterpretHealth", "workload.example.io/v1alpha1", "Workload")).toBe(true);
      expect(handles("Retain", "workload.example.io/v1alpha1", "Workload")).toBe(false);
      expect(handles("InterpretReplica", "workload.example.io/v1beta1", "Workload")).toBe(false);
      expect(handles("InterpretReplica", "apps/v1", "Deployment")).toBe(false);
      for (const op of ALL) {
        expect(
          handles(op as Parameters<WebhookInterpreter["handles"]>[0], "any.example.io/v9", "Gadget"),
        ).toBe(true);
        expect(handles(op as Parameters<WebhookInterpreter["handles"]>[0], "v1", "Gadget")).toBe(true);
      }
      // No method answers components, so it is never claimed.
      expect(handles("InterpretComponent", "any.example.io/v9", "Gadget")).toBe(false);
      // Before any configuration is set nothing is handled.
      expect(
        new WebhookInterpreter().handles("InterpretReplica", "workload.example.io/v1alpha1", "Workload"),
      ).toBe(false);
    });

    it("calls only the first matching webhook by <configuration>/<webhook>", async () => {
      const wi = interpreterWith(
        configuration("z-config", [mainHook()]),
        configuration("a-config", [webhook("second.example.io", { url: second.url, caBundle })]),
      );
      const mainBefore = main.seen.length;
      expect((await wi.getReplicas(workload)).replicas).toBe(103);
      expect(main.seen.length).toBe(mainBefore);
    });

    it("takes a changed URL into account on setConfigurations", async () => {
      const wi = interpreterWith(configuration("examples", [mainHook()]));
      expect((await wi.getReplicas(workload)).replicas).toBe(3);
      wi.setConfigurations([
        configuration("examples", [webhook("workloads.example.com", { url: second.url, caBundle })]),
      ]);
      expect((await wi.getReplicas(workload)).replicas).toBe(103);
      wi.setConfigurations([]);
      expect(wi.handles("InterpretReplica", "workload.example.io/v1alpha1", "Workload")).toBe(false);
    });

    it("verifies the server with caBundle", async () => {
      const otherCa = interpreterWith(
        configuration("examples", [webhook("workloads.example.com", { url: foreign.url, caBundle })]),
      );
      const err = await failure(otherCa.getReplicas(workload));
      expect(err.message).toContain('resource interpreter webhook "examples/workloads.example.com"');
      expect(err.message).toContain(`at ${foreign.url}/`);
      expect(err.message).toMatch(/TLS verification of the server certificate failed/);
      expect(err.message).toMatch(/clientConfig\.caBundle/);
      expect(foreign.seen).toHaveLength(0);
      expect(err).toMatchObject({ webhook: "examples/workloads.example.com", operation: "InterpretReplica" });

      const systemRoots = interpreterWith(
        configuration("examples", [
          webhook("workloads.example.com", { url: `${main.url}/interpreter-workload` }),
        ]),
      );
      const noCa = await failure(systemRoots.getReplicas(workload));
      expect(noCa.message).toMatch(
        /TLS verification .* no clientConfig\.caBundle is set, so the system roots were used/,
      );

      // The right CA for the foreign server works.
      const rightCa = interpreterWith(
        configuration("examples", [
          webhook("workloads.example.com", {
            url: foreign.url,
            caBundle: Buffer.from(foreignPki.ca).toString("base64"),
          }),
        ]),
      );
      expect((await rightCa.getReplicas(workload)).replicas).toBe(3);
    });

    it("fails after timeoutSeconds when the webhook never answers", async () => {
      const wi = interpreterWith(
        configuration("slow", [
          webhook("hang.example.io", { url: `${main.url}/hang`, caBundle }, { timeoutSeconds: 1 }),
        ]),
      );
      const err = await failure(wi.interpretHealth(workload));
      expect(err.message).toContain(
        `resource interpreter webhook "slow/hang.example.io" at ${main.url}/hang`,
      );
      expect(err.message).toContain(
        "InterpretHealth for workload.example.io/v1alpha1 Workload default/sample",
      );
      expect(err.message).toContain("no answer within the 1s timeout");
    });

    it("fails on successful: false, a wrong uid, and a non-2xx answer", async () => {
      const at = (path: string) =>
        interpreterWith(
          configuration("bad", [webhook("bad.example.io", { url: `${main.url}${path}`, caBundle })]),
        );
      const unsuccessful = await failure(at("/unsuccessful").interpretHealth(workload));
      expect(unsuccessful.message).toContain(
        "the webhook answered successful: false (code 500): workload interpreter is broken",
      );
      const wrongUid = await failure(at("/wrong-uid").interpretHealth(workload));
      expect(wrongUid.message).toMatch(
        /invalid answer: response\.uid is "not-the-request-uid", but the request's uid was/,
      );
      const httpError = await failure(at("/http-error").interpretHealth(workload));
      expect(httpError.message).toContain("answered HTTP 503: upstream unavailable");
    });

    it("refuses configurations it cannot call", async () => {
      const before = main.seen.length;
      const versions = interpreterWith(
        configuration("old", [mainHook({ interpreterContextVersions: ["v1beta9"] })]),
      );
      // The rules still match (as upstream), so the operation fails rather than falling back.
      expect(versions.handles("InterpretReplica", "workload.example.io/v1alpha1", "Workload")).toBe(true);
      const err = await failure(versions.getReplicas(workload));
      expect(err.message).toMatch(/interpreterContextVersions \[v1beta9\] include none .*\(v1alpha1\)/);

      const timeout = interpreterWith(configuration("slow", [mainHook({ timeoutSeconds: 60 })]));
      expect((await failure(timeout.getReplicas(workload))).message).toMatch(/timeoutSeconds is 60/);
      expect(main.seen.length).toBe(before);
    });

    it("resolves a service to <name>.<namespace>.svc and says which host it could not reach", async () => {
      const wi = interpreterWith(
        configuration("in-cluster", [
          webhook(
            "svc.example.io",
            {
              service: {
                namespace: "karmada-system",
                name: "workload-interpreter",
                port: 8443,
                path: "/interpret",
              },
              caBundle,
            },
            { timeoutSeconds: 5 },
          ),
        ]),
      );
      const err = await failure(wi.getDependencies(workload));
      expect(err.url).toBe("https://workload-interpreter.karmada-system.svc:8443/interpret");
      expect(err.message).toContain("workload-interpreter.karmada-system.svc");
    });
  },
);
