import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../log.ts";
import { MemoryStore } from "../storage/memory/store.ts";
import { startHttpServer } from "./http.ts";
import { InflightLimiter, isLongRunning } from "./max-inflight.ts";
import { ApiServer } from "./server.ts";

const user = { name: "alice", groups: ["system:authenticated"] };
const admin = { name: "system:admin", groups: ["system:masters", "system:authenticated"] };
const url = (path: string) => new URL(path, "https://karmada");

describe("kube-apiserver's max-in-flight limits", () => {
  it("counts read-only and mutating requests apart, and gives slots back once", () => {
    const limiter = new InflightLimiter({ readOnly: 2, mutating: 1 });
    const r1 = limiter.admit("GET", url("/api/v1/pods"), user)!;
    const r2 = limiter.admit("GET", url("/api/v1/pods"), user)!;
    expect(limiter.admit("GET", url("/api/v1/pods"), user)).toBeUndefined();
    const w1 = limiter.admit("POST", url("/api/v1/namespaces/a/pods"), user)!;
    expect(limiter.admit("DELETE", url("/api/v1/namespaces/a/pods/p"), user)).toBeUndefined();
    expect(limiter.inFlight).toEqual({ readOnly: 2, mutating: 1, longRunning: 0 });
    r1();
    r1();
    expect(limiter.inFlight).toEqual({ readOnly: 1, mutating: 1, longRunning: 0 });
    expect(limiter.admit("GET", url("/api/v1/pods"), user)).toBeDefined();
    r2();
    w1();
  });

  it("never limits system:masters, long-running requests, or a limit of 0", () => {
    const limiter = new InflightLimiter({ readOnly: 1, mutating: 0 });
    limiter.admit("GET", url("/api/v1/pods"), user);
    expect(limiter.admit("GET", url("/api/v1/pods"), admin)).toBeDefined();
    expect(limiter.admit("GET", url("/api/v1/pods?watch=true"), user)).toBeDefined();
    for (let i = 0; i < 5; i++)
      expect(limiter.admit("PATCH", url("/api/v1/namespaces/a/pods/p"), user)).toBeDefined();
  });

  it("counts long-running requests apart, whoever sends them", () => {
    const limiter = new InflightLimiter({ readOnly: 1, mutating: 1 });
    const w1 = limiter.admit("GET", url("/api/v1/pods?watch=true"), user)!;
    const w2 = limiter.admit("GET", url("/api/v1/namespaces/a/pods/p/log?follow=1"), admin)!;
    expect(limiter.inFlight).toEqual({ readOnly: 0, mutating: 0, longRunning: 2 });
    w1();
    w1();
    w2();
    expect(limiter.inFlight).toEqual({ readOnly: 0, mutating: 0, longRunning: 0 });
  });

  it.each([
    ["GET", "/api/v1/pods?watch=1", true],
    ["GET", "/api/v1/watch/pods", true],
    ["GET", "/api/v1/namespaces/a/pods/p/log?follow=true", true],
    // kube-apiserver takes every log request as long-running, followed or not.
    ["GET", "/api/v1/namespaces/a/pods/p/log", true],
    ["GET", "/api/v1/namespaces/watch/pods", false],
    ["GET", "/api/v1/namespaces/a/pods/proxy", false],
    ["DELETE", "/api/v1/namespaces/a/configmaps/exec", false],
    ["PUT", "/api/v1/namespaces/a/pods/p/status", false],
    ["POST", "/api/v1/namespaces/a/pods/p/attach", true],
    ["GET", "/api/v1/namespaces/a/pods/p/portforward", true],
    ["POST", "/api/v1/namespaces/a/pods/p/exec", true],
    ["GET", "/apis/cluster.karmada.io/v1alpha1/clusters/m1/proxy/api/v1/nodes", true],
    ["GET", "/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy/api/v1/pods", true],
    ["GET", "/api/v1/pods?watch=false", false],
  ])("%s %s long-running: %s", (method, path, want) => {
    expect(isLongRunning(method, url(path))).toBe(want);
  });
});

describe("over HTTP", () => {
  it("answers 429 with Retry-After while the slots are taken, and serves again once they are free", async () => {
    const api = await ApiServer.start({
      store: new MemoryStore(),
      authorization: "AlwaysAllow",
      log: silentLogger,
      compactionIntervalMs: 0,
    });
    const http = await startHttpServer(api.handler, {
      host: "127.0.0.1",
      port: 0,
      log: silentLogger,
      authenticate: async () => ({ user }),
      inflight: { readOnly: 0, mutating: 1 },
    });
    const post = (body: string, declared: number, end: boolean) =>
      new Promise<{ status: number; retryAfter?: string; text: string }>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: http.port,
            method: "POST",
            path: "/api/v1/namespaces/default/configmaps",
            headers: { "Content-Type": "application/json", "Content-Length": String(declared) },
          },
          (res) => {
            let text = "";
            res.on("data", (c: Buffer) => (text += c.toString()));
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                retryAfter: res.headers["retry-after"] as string,
                text,
              }),
            );
          },
        );
        req.on("error", reject);
        if (end) req.end(body);
        else {
          req.write(body);
          holding.push(() => req.end(" ".repeat(declared - Buffer.byteLength(body))));
        }
      });
    const holding: Array<() => void> = [];
    try {
      const cm = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "slow" } });
      // A create whose body is still arriving holds the one mutating slot.
      const slow = post(cm, Buffer.byteLength(cm) + 10, false);
      await new Promise((r) => setTimeout(r, 100));
      const other = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "fast" } });
      const refused = await post(other, Buffer.byteLength(other), true);
      expect(refused).toEqual({
        status: 429,
        retryAfter: "1",
        text: "Too many requests, please try again later.\n",
      });
      holding.pop()!();
      expect((await slow).status).toBe(201);
      expect((await post(other, Buffer.byteLength(other), true)).status).toBe(201);
    } finally {
      for (const h of holding) h();
      await http.close();
      await api.close();
    }
  });
});
