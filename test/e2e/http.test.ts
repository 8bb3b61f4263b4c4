/**
 * What only shows over a socket: body limits, media types, watch streams that end when the
 * client leaves, and headers flushed before the first event. Over HTTPS as the admin.
 */
import { type RequestOptions, request } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/storage/memory/store.ts";
import type { Store, Watch, WatchHandlers } from "../../src/storage/store.ts";
import { eventually, startTestServer, type TestServer } from "../support/kubectl.ts";

/** A real memory store that counts the watches open on it. */
class CountingStore extends MemoryStore {
  open = 0;
  override watch(prefix: string, after: number, handlers: WatchHandlers): Watch {
    const w = super.watch(prefix, after, handlers);
    this.open++;
    let closed = false;
    return {
      close: () => {
        if (!closed) this.open--;
        closed = true;
        w.close();
      },
    };
  }
}

/** TLS and the admin's certificate for raw requests to a test server. */
function tlsOf(s: TestServer): RequestOptions {
  return { ca: s.connection.caData!, cert: s.connection.certData!, key: s.connection.keyData! };
}

function call(
  s: TestServer,
  method: string,
  path: string,
  body?: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers, ...tlsOf(s) }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("over HTTP", () => {
  let s: TestServer;
  let store: CountingStore;
  beforeAll(async () => {
    store = new CountingStore();
    s = await startTestServer({ store: store as Store });
  });
  afterAll(async () => {
    await s.close();
  });

  it("refuses bodies over 3 MiB with 413 and writes nothing", async () => {
    const huge = JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "huge" },
      data: { a: "x".repeat(3 * 1024 * 1024) },
    });
    const r = await call(s, "POST", "/api/v1/namespaces/default/configmaps", huge, {
      "Content-Type": "application/json",
    });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toMatchObject({ kind: "Status", reason: "RequestEntityTooLarge", code: 413 });
    expect((await call(s, "GET", "/api/v1/namespaces/default/configmaps/huge")).status).toBe(404);
  });

  it("answers 415 for media types it does not read, naming the ones it does", async () => {
    const r = await call(s, "POST", "/api/v1/namespaces/default/configmaps", "x", {
      "Content-Type": "text/plain",
    });
    expect(r.status).toBe(415);
    expect(JSON.parse(r.body).message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    );
    const patch = await call(
      s,
      "PATCH",
      "/apis/policy.karmada.io/v1alpha1/namespaces/default/propagationpolicies/x",
      "{}",
      {
        "Content-Type": "application/strategic-merge-patch+json",
      },
    );
    expect(patch.status).toBe(415);
  });

  it("accepts YAML bodies", async () => {
    const r = await call(
      s,
      "POST",
      "/api/v1/namespaces/default/configmaps",
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: yaml}\ndata: {a: b}\n",
      {
        "Content-Type": "application/yaml",
      },
    );
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body).data).toEqual({ a: "b" });
  });

  it("flushes watch headers at once and stops the watch when the client leaves", async () => {
    const before = store.open;
    const url = new URL(s.url);
    const { status, close } = await new Promise<{ status: number; close: () => void }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1",
          ...tlsOf(s),
        },
        (res) => resolve({ status: res.statusCode ?? 0, close: () => req.destroy() }),
      );
      req.on("error", () => {});
      req.on("timeout", () => reject(new Error("no headers")));
      req.end();
    });
    expect(status).toBe(200);
    await eventually(async () => store.open === before + 1, "the watch to open");
    close();
    await eventually(async () => store.open === before, "the watch to close after the client left");
  });

  it("answers a watch with bad parameters with a plain error response", async () => {
    const r = await call(s, "GET", "/api/v1/configmaps?watch=true&resourceVersionMatch=NotOlderThan");
    expect(r.status).toBe(422);
    expect(JSON.parse(r.body)).toMatchObject({ kind: "Status", reason: "Invalid" });
  });
});
