/**
 * The API server the fuzzers attack: a real one over real HTTPS, the admin's client
 * certificate, a memory (or SQLite) store; raw requests with any bytes, any headers; and the
 * properties every answer must keep (no 5xx, a proper Status for errors, the server still
 * ready, a refused write leaves the stored object byte-identical).
 */
import { Agent, request } from "node:https";
import { afterAll, beforeAll, expect } from "vitest";
import type { Schema } from "../../src/api/schema.ts";
import type { Store } from "../../src/storage/store.ts";
import { startTestServer, type TestServer } from "../support/kubectl.ts";
import { TARGETS, type Target } from "./targets.ts";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface FuzzServer {
  server: TestServer;
  /** Sends exactly these bytes with exactly these headers (plus the client certificate). */
  send(
    method: string,
    path: string,
    body?: Buffer | string,
    headers?: Record<string, string>,
  ): Promise<RawResponse>;
  /** GET of one object's JSON text (the whole response body), to compare before and after. */
  snapshot(path: string): Promise<RawResponse>;
  close(): Promise<void>;
}

export async function startFuzzServer(opts: { store?: Store } = {}): Promise<FuzzServer> {
  const server = await startTestServer(opts.store ? { store: opts.store } : {});
  const conn = server.connection;
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 4,
    ca: conn.caData,
    cert: conn.certData,
    key: conn.keyData,
  });
  const send: FuzzServer["send"] = (method, path, body, headers = {}) =>
    new Promise((resolve, reject) => {
      // Concatenated, not resolved: a path starting with "//" is a path here, not a host.
      const url = new URL(`${conn.server}${path}`);
      const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
      const req = request(
        url,
        {
          method,
          agent,
          headers: {
            ...(payload ? { "Content-Length": String(payload.length) } : {}),
            ...headers,
          },
        },
        (res) => {
          const watching = String(res.headers["transfer-encoding"] ?? "") === "chunked";
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          const done = (): void =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString("utf8"),
            });
          res.on("end", done);
          // A watch (or a followed stream) that started is all we need to know: leave it.
          if (watching && res.statusCode === 200) {
            res.on("error", () => {});
            req.on("error", () => {});
            req.destroy();
            done();
          }
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  return {
    server,
    send,
    snapshot: (path) => send("GET", path, undefined, { Accept: "application/json" }),
    async close() {
      agent.destroy();
      await server.close();
    },
  };
}

/** The schema the server holds for a target's kind (built-in, Karmada's, or the CRD's). */
export function schemaOf(f: FuzzServer, t: Target): Schema {
  const parts = t.collection.split("/").filter(Boolean);
  const [group, version] = parts[0] === "api" ? ["", parts[1]!] : [parts[1]!, parts[2]!];
  const rt = f.server.api.handler.server.registry.get(group, version, parts[parts.length - 1]!);
  if (!rt) throw new Error(`no resource type for ${t.collection}`);
  return rt.schema;
}

/** Status reasons by HTTP code, as kube-apiserver pairs them. */
const REASONS: Record<number, string[]> = {
  400: ["BadRequest"],
  401: ["Unauthorized"],
  403: ["Forbidden"],
  404: ["NotFound"],
  405: ["MethodNotAllowed"],
  406: ["NotAcceptable"],
  409: ["AlreadyExists", "Conflict"],
  410: ["Gone", "Expired"],
  413: ["RequestEntityTooLarge"],
  415: ["UnsupportedMediaType"],
  422: ["Invalid"],
  429: ["TooManyRequests"],
};

/**
 * The properties of one answer: never a 5xx; an error is a `v1` Status whose code is the HTTP
 * status, with the reason kube-apiserver pairs with it, and a 422 names its field causes.
 */
export function expectWellFormed(res: RawResponse, what: string): void {
  const ctx = `${what} → ${res.status} ${res.text.slice(0, 400)}`;
  if (res.status === 504 && tooLargeResourceVersion(res)) return;
  expect(res.status, ctx).toBeLessThan(500);
  expect(res.status, ctx).toBeGreaterThanOrEqual(200);
  if (res.status < 400) return;
  expect(String(res.headers["content-type"]), ctx).toMatch(/^application\/json/);
  const body = JSON.parse(res.text) as Record<string, unknown>;
  expect(body.kind, ctx).toBe("Status");
  expect(body.apiVersion, ctx).toBe("v1");
  expect(body.status, ctx).toBe("Failure");
  expect(body.code, ctx).toBe(res.status);
  expect(typeof body.message, ctx).toBe("string");
  const reasons = REASONS[res.status];
  expect(reasons, ctx).toBeDefined();
  expect(reasons, ctx).toContain(body.reason);
  if (res.status === 422) {
    const causes = (body.details as { causes?: unknown[] } | undefined)?.causes;
    expect(Array.isArray(causes) && causes.length > 0, ctx).toBe(true);
  }
}

/**
 * A list or watch from a resourceVersion the store has not reached: kube-apiserver waits a
 * moment for it and then answers 504 with the ResourceVersionTooLarge cause, as we do. The one
 * 5xx that is the specified answer to client input.
 */
function tooLargeResourceVersion(res: RawResponse): boolean {
  const body = JSON.parse(res.text) as { reason?: string; details?: { causes?: { reason?: string }[] } };
  return body.reason === "Timeout" && body.details?.causes?.[0]?.reason === "ResourceVersionTooLarge";
}

/** The server still answers its readiness probe. */
export async function expectReady(f: FuzzServer): Promise<void> {
  const r = await f.send("GET", "/readyz");
  expect(r.status, r.text).toBe(200);
}

/**
 * A write that was refused left the object as it was (byte-identical GET), and one that
 * succeeded left a readable object.
 */
export async function expectUnchangedUnlessWritten(
  f: FuzzServer,
  objectPath: string,
  before: RawResponse,
  res: RawResponse,
  what: string,
): Promise<void> {
  const after = await f.snapshot(objectPath);
  if (res.status >= 400) {
    expect(after.status, `${what}: ${res.status} ${res.text.slice(0, 300)}`).toBe(before.status);
    expect(after.text, `${what}: refused with ${res.status} but the object changed`).toBe(before.text);
  } else if (after.status !== 404) {
    // Written (a delete may have removed it): what was stored reads back in every shape kubectl asks for.
    expect(after.status, `${what}: ${res.status} then GET`).toBeLessThan(300);
    await expectReadable(f, objectPath, what);
  }
}

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
const PARTIAL = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json";

/** A stored object reads back as kubectl reads it: as a Table (printer columns), as metadata only, in its list. */
export async function expectReadable(f: FuzzServer, objectPath: string, what: string): Promise<void> {
  const collection = objectPath.slice(0, objectPath.lastIndexOf("/"));
  for (const [path, accept] of [
    [objectPath, TABLE],
    [objectPath, PARTIAL],
    [collection, TABLE],
  ] as const) {
    const r = await f.send("GET", path, undefined, { Accept: accept });
    expect(r.status, `${what}: then GET ${path} as ${accept.split(";")[1]}: ${r.text.slice(0, 300)}`).toBe(
      200,
    );
  }
}

/** Whether a query string asks for a dry run (every `dryRun` is "All"; anything else is refused). */
export function isDryRun(query: string): boolean {
  const values = new URLSearchParams(query).getAll("dryRun");
  return values.length > 0 && values.every((v) => v === "All");
}

/** A dry run that succeeded wrote nothing either. */
export async function expectNothingWritten(
  f: FuzzServer,
  objectPath: string,
  before: RawResponse,
  what: string,
): Promise<void> {
  const after = await f.snapshot(objectPath);
  expect(after.status, `${what}: a dry run changed the object`).toBe(before.status);
  expect(after.text, `${what}: a dry run changed the object`).toBe(before.text);
}

/** Creates the namespace, the CRD and one seeded object per target (what updates and patches hit). */
export async function seedTargets(f: FuzzServer): Promise<void> {
  for (const ns of ["fuzz", "karmada-es-member1"]) {
    const r = await f.send(
      "POST",
      "/api/v1/namespaces",
      JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }),
      { "Content-Type": "application/json" },
    );
    expect(r.status, r.text).toBe(201);
  }
  const crd = await f.send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD_JSON, {
    "Content-Type": "application/json",
  });
  expect(crd.status, crd.text).toBe(201);
  for (const t of TARGETS) await resetTarget(f, t);
}

/** Puts a target's seeded object back to its valid base (recreating it when a fuzz run deleted it). */
export async function resetTarget(f: FuzzServer, t: Target): Promise<void> {
  const path = `${t.collection}/${t.seedName}`;
  await f.send("DELETE", `${path}?gracePeriodSeconds=0`);
  const r = await f.send("POST", t.collection, JSON.stringify(t.base(t.seedName)), {
    "Content-Type": "application/json",
  });
  expect(r.status, `${t.name}: ${r.text}`).toBe(201);
}

export const CRD_JSON = JSON.stringify({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.fuzz.example.com" },
  spec: {
    group: "fuzz.example.com",
    names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: {
            specReplicasPath: ".spec.replicas",
            statusReplicasPath: ".status.replicas",
            labelSelectorPath: ".status.selector",
          },
        },
        // Columns of every type, some pointing at free-form or list fields the fuzzers fill oddly.
        additionalPrinterColumns: [
          { name: "Size", type: "string", jsonPath: ".spec.size" },
          { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
          { name: "Ratio", type: "number", jsonPath: ".spec.ratio" },
          { name: "Tags", type: "string", jsonPath: ".spec.tags" },
          { name: "Free", type: "string", jsonPath: ".spec.free.x" },
          { name: "Port", type: "integer", jsonPath: ".spec.ports[0].port" },
          { name: "Ready", type: "boolean", jsonPath: ".status.ready" },
          { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
        ],
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                required: ["size"],
                properties: {
                  replicas: { type: "integer", format: "int32", minimum: 0 },
                  size: { type: "string", enum: ["S", "M", "L"] },
                  ratio: { type: "number" },
                  big: { type: "integer", format: "int64" },
                  tags: { type: "array", items: { type: "string" }, maxItems: 20 },
                  ports: {
                    type: "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    items: {
                      type: "object",
                      required: ["name"],
                      properties: { name: { type: "string" }, port: { type: "integer" } },
                    },
                  },
                  free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                },
              },
              status: {
                type: "object",
                properties: { replicas: { type: "integer" }, selector: { type: "string" } },
              },
            },
          },
        },
      },
    ],
  },
});

/** A fuzz server with the targets seeded before the file's (or describe's) tests, closed after. */
export function withSeededFuzzServer(use: (f: FuzzServer) => void): void {
  let server: FuzzServer | undefined;
  beforeAll(async () => {
    server = await startFuzzServer();
    await seedTargets(server);
    use(server);
  });
  afterAll(async () => {
    await server?.close();
  });
}
