import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiServer } from "../apiserver/server.ts";
import { RESOURCES } from "../client/client.ts";
import { LocalClient } from "../client/local.ts";
import { silentLogger } from "../log.ts";
import { MemoryStore } from "../storage/memory/store.ts";
import { CACHED_FROM_CLUSTER, CacheBudget, type CacheEvent, ResourceCache } from "./resource-cache.ts";

let api: ApiServer;
let member: LocalClient;

const pod = (namespace: string, name: string, labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { namespace, name, labels },
  spec: { containers: [{ name: "c", image: "nginx" }] },
});

function cache(opts: { namespaces?: string[]; budget?: CacheBudget; onOverflow?: () => void } = {}) {
  return new ResourceCache({
    cluster: "member1",
    resource: RESOURCES.pods,
    namespaces: new Set(opts.namespaces ?? []),
    client: member,
    budget: opts.budget ?? new CacheBudget(0),
    log: silentLogger,
    ...(opts.onOverflow ? { onOverflow: opts.onOverflow } : {}),
  });
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeEach(async () => {
  api = await ApiServer.start({
    store: new MemoryStore(),
    karmada: false,
    authorization: "AlwaysAllow",
    log: silentLogger,
    compactionIntervalMs: 0,
  });
  member = new LocalClient(api.context);
  await member.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: "a" } });
  await member.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: "b" } });
});

afterEach(async () => {
  await api.close();
});

describe("a member cache", () => {
  it("keeps each object as served: annotated with its cluster, without managedFields, labels shared", async () => {
    await member.create(RESOURCES.pods, pod("a", "p1", { app: "web" }));
    await member.create(RESOURCES.pods, pod("a", "p2", { app: "web" }));
    const c = cache();
    c.start();
    await c.waitForSync();
    const p1 = c.get("a", "p1")!;
    const obj = JSON.parse(p1.json) as { metadata: Record<string, unknown> };
    expect((obj.metadata.annotations as Record<string, string>)[CACHED_FROM_CLUSTER]).toBe("member1");
    expect(obj.metadata.managedFields).toBeUndefined();
    expect(c.get("a", "p2")!.labels).toBe(p1.labels);
    expect(c.list(undefined).map((e) => e.key)).toEqual(["a/p1", "a/p2"]);
    expect(c.list(undefined, "a/p1").map((e) => e.key)).toEqual(["a/p2"]);
    c.stop();
  });

  it("caches only the namespaces named, and follows changes", async () => {
    await member.create(RESOURCES.pods, pod("a", "p1"));
    await member.create(RESOURCES.pods, pod("b", "p2"));
    const c = cache({ namespaces: ["b"] });
    c.start();
    await c.waitForSync();
    expect(c.list(undefined).map((e) => e.key)).toEqual(["b/p2"]);
    await member.create(RESOURCES.pods, pod("b", "p3"));
    await until(() => c.get("b", "p3") !== undefined, "the new pod");
    await member.delete(RESOURCES.pods, "b", "p2", { gracePeriodSeconds: 0 });
    await until(() => c.get("b", "p2") === undefined, "the deleted pod gone");
    c.stop();
  });

  it("replays events after a resourceVersion, and answers 410 for one older than it keeps", async () => {
    const c = cache();
    c.start();
    await c.waitForSync();
    const start = c.resourceVersion;
    await member.create(RESOURCES.pods, pod("a", "p1"));
    await until(() => c.get("a", "p1") !== undefined, "p1 cached");
    const seen: CacheEvent[] = [];
    const handle = c.watch(start, { events: (e) => seen.push(...e), progress: () => {}, closed: () => {} });
    expect(seen.map((e) => [e.type, e.entry.key])).toEqual([["ADDED", "a/p1"]]);
    handle.stop();
    expect(() => c.watch("1", { events: () => {}, progress: () => {}, closed: () => {} })).toThrow(
      /too old resource version/,
    );
    c.stop();
  });

  it("stops and empties itself when the budget runs out, and gives the bytes back", async () => {
    for (let i = 0; i < 5; i++) await member.create(RESOURCES.pods, pod("a", `p${i}`));
    const budget = new CacheBudget(1500);
    let overflowed = false;
    const c = cache({ budget, onOverflow: () => (overflowed = true) });
    c.start();
    await until(() => overflowed, "the overflow");
    expect(c.overflowed).toBe(true);
    expect(c.size).toBe(0);
    expect(budget.used).toBe(0);
  });
});
