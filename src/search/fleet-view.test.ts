/**
 * The registry reconciler against a real control plane and a real member API server, joined
 * by the in-process transport: which clusters and kinds get a cache, and what the registry's
 * status says (cached, not Ready, the cache limit).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NewObject, StoredObject } from "../api/meta.ts";
import { ApiServer } from "../apiserver/server.ts";
import type { ApiWatchEvent } from "../apiserver/verbs/watch.ts";
import { RESOURCES } from "../client/client.ts";
import { LocalClient } from "../client/local.ts";
import type { MemberConnections } from "../cluster/connections.ts";
import { silentLogger } from "../log.ts";
import { MemoryStore } from "../storage/memory/store.ts";
import { cachedGet, cachedList, cachedWatch, WatchRegistry } from "./cached-reads.ts";
import { FleetView, RESOURCE_REGISTRIES } from "./fleet-view.ts";

let controlPlane: ApiServer;
let memberApi: ApiServer;
let admin: LocalClient;
let view: FleetView | undefined;

const members: MemberConnections = {
  async connect() {
    return { client: new LocalClient(memberApi.context), getRaw: async () => ({ status: 200, body: "ok" }) };
  },
  forget() {},
};

async function addCluster(name: string, ready: boolean): Promise<void> {
  const created = await admin.create(RESOURCES.clusters, {
    apiVersion: "cluster.karmada.io/v1alpha1",
    kind: "Cluster",
    metadata: { name },
    spec: { apiEndpoint: "https://unused.invalid", syncMode: "Push" },
  });
  await admin.updateStatus(RESOURCES.clusters, {
    ...created,
    status: {
      conditions: [
        {
          type: "Ready",
          status: ready ? "True" : "False",
          reason: "R",
          message: "m",
          lastTransitionTime: "2026-01-01T00:00:00Z",
        },
      ],
    },
  });
}

async function registryCondition(name: string): Promise<{ status: string; reason: string; message: string }> {
  for (let i = 0; i < 300; i++) {
    const rr = await admin.get(RESOURCE_REGISTRIES, undefined, name);
    const c = ((
      rr.status as { conditions?: Array<{ status: string; reason: string; message: string }> } | undefined
    )?.conditions ?? [])[0];
    if (c && c.reason !== "Syncing") return c;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("no condition");
}

function startView(maxBytes = 0): FleetView {
  view = new FleetView({ client: admin, members, maxBytes, log: silentLogger });
  view.start();
  return view;
}

const registry = (name: string): NewObject => ({
  apiVersion: "search.karmada.io/v1alpha1",
  kind: "ResourceRegistry",
  metadata: { name },
  spec: { targetCluster: {}, resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap" }] },
});

beforeEach(async () => {
  controlPlane = await ApiServer.start({
    store: new MemoryStore(),
    authorization: "AlwaysAllow",
    log: silentLogger,
    compactionIntervalMs: 0,
  });
  memberApi = await ApiServer.start({
    store: new MemoryStore(),
    karmada: false,
    authorization: "AlwaysAllow",
    log: silentLogger,
    compactionIntervalMs: 0,
  });
  admin = new LocalClient(controlPlane.context);
  for (let i = 0; i < 20; i++) {
    await new LocalClient(memberApi.context).create(RESOURCES.configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: "default", name: `cm-${i}` },
      data: { payload: "x".repeat(200) },
    });
  }
});

afterEach(async () => {
  view?.stop();
  view = undefined;
  await controlPlane.close();
  await memberApi.close();
});

describe("the fleet view", () => {
  it("caches Ready clusters only and says which are left out", async () => {
    await addCluster("member1", true);
    await addCluster("member2", false);
    const v = startView();
    await admin.create(RESOURCE_REGISTRIES, registry("rr"));
    const c = await registryCondition("rr");
    expect(c).toMatchObject({ status: "True", reason: "Cached" });
    expect(c.message).toBe("cached configmaps (member1); not cached: cluster member2 is not Ready");
    expect(v.cachesOf({ group: "", version: "v1", resource: "configmaps" }).map((x) => x.cluster)).toEqual([
      "member1",
    ]);
    expect(v.registered({ group: "", version: "v1", resource: "configmaps" })).toBeDefined();
  });

  it("drops a cache that would pass the limit and says so in the registry's status", async () => {
    await addCluster("member1", true);
    const v = startView(2000);
    await admin.create(RESOURCE_REGISTRIES, registry("rr"));
    const c = await registryCondition("rr");
    expect(c).toMatchObject({ status: "False", reason: "CacheLimitReached" });
    expect(c.message).toContain(
      "the search cache limit of 2000 bytes was reached: not caching configmaps from member1",
    );
    expect(v.cachesOf({ group: "", version: "v1", resource: "configmaps" })).toEqual([]);
    expect(v.budget.used).toBe(0);
  });

  it("stops caching when the registry goes", async () => {
    await addCluster("member1", true);
    const v = startView();
    await admin.create(RESOURCE_REGISTRIES, registry("rr"));
    await registryCondition("rr");
    await admin.delete(RESOURCE_REGISTRIES, undefined, "rr");
    for (let i = 0; i < 300 && v.allCaches().length > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(v.allCaches()).toEqual([]);
    expect(v.registered({ group: "", version: "v1", resource: "configmaps" })).toBeUndefined();
  });
});

describe("a selective watch through the view", () => {
  it("sees an object that stops matching as DELETED and one that starts as ADDED, and ends when a cache joins", async () => {
    await addCluster("member1", true);
    const v = startView();
    await admin.create(RESOURCE_REGISTRIES, registry("rr"));
    await registryCondition("rr");
    const rt = controlPlane.context.registry.get("", "v1", "configmaps")!;
    const watches = new WatchRegistry();
    v.onClusterAdded(() => watches.closeAll());
    const q = new URLSearchParams({ watch: "true", labelSelector: "app=web", resourceVersion: "0" });
    const response = cachedWatch(
      { server: controlPlane.context, view: v, minRequestTimeoutSeconds: 60 },
      watches,
      rt,
      {
        kind: "resource",
        verb: "watch",
        group: "",
        version: "v1",
        namespace: "default",
        resource: "configmaps",
        name: undefined,
        subresource: undefined,
      },
      q,
      undefined,
    );
    const seen: ApiWatchEvent[] = [];
    let closed = false;
    const watch = await response.watch!.start({ send: (e) => seen.push(...e), close: () => (closed = true) });
    const memberClient = new LocalClient(memberApi.context);
    await memberClient.patch(RESOURCES.configmaps, "default", "cm-1", "merge", {
      metadata: { labels: { app: "web" } },
    });
    await memberClient.patch(RESOURCES.configmaps, "default", "cm-2", "merge", {
      metadata: { labels: { app: "db" } },
    });
    await memberClient.patch(RESOURCES.configmaps, "default", "cm-1", "merge", {
      metadata: { labels: { app: "db" } },
    });
    for (let i = 0; i < 300 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen.map((e) => [e.type, (e.object as StoredObject).metadata.name])).toEqual([
      ["ADDED", "cm-1"],
      ["DELETED", "cm-1"],
    ]);
    await addCluster("member2", true);
    for (let i = 0; i < 300 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closed).toBe(true);
    watch.stop();
  });
});

describe("reads through the view", () => {
  const info = (name?: string) => ({
    kind: "resource" as const,
    verb: name ? ("get" as const) : ("list" as const),
    group: "",
    version: "v1",
    namespace: "default",
    resource: "configmaps",
    name,
    subresource: undefined,
  });

  it("answers 409 for a name two clusters hold, naming them, as upstream", async () => {
    // Both Clusters reach the same member here: every object is in two clusters.
    await addCluster("member1", true);
    await addCluster("member2", true);
    const v = startView();
    await admin.create(RESOURCE_REGISTRIES, registry("rr"));
    await registryCondition("rr");
    const rt = controlPlane.context.registry.get("", "v1", "configmaps")!;
    const deps = { server: controlPlane.context, view: v, minRequestTimeoutSeconds: 60 };
    expect(() => cachedGet(deps, rt, info("cm-1"), new URLSearchParams(), undefined)).toThrow(
      'Operation cannot be fulfilled on configmaps "cm-1": ambiguous objects in clusters [member1, member2]',
    );
    expect(() => cachedGet(deps, rt, info("nope"), new URLSearchParams(), undefined)).toThrow(
      'configmaps "nope" not found',
    );
    const list = JSON.parse(cachedList(deps, rt, info(), new URLSearchParams(), undefined).text!) as {
      items: unknown[];
    };
    expect(list.items).toHaveLength(40);
  });

  it("merges the namespaces two registries name for one kind", async () => {
    const member = new LocalClient(memberApi.context);
    for (const ns of ["ns1", "ns2", "ns3"]) {
      await member.create(RESOURCES.namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: ns },
      });
      await member.create(RESOURCES.configmaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: ns, name: `in-${ns}` },
      });
    }
    await addCluster("member1", true);
    const v = startView();
    for (const ns of ["ns1", "ns2"]) {
      const rr = registry(`rr-${ns}`);
      (rr.spec as { resourceSelectors: Array<Record<string, string>> }).resourceSelectors = [
        { apiVersion: "v1", kind: "ConfigMap", namespace: ns },
      ];
      await admin.create(RESOURCE_REGISTRIES, rr);
    }
    await registryCondition("rr-ns1");
    await registryCondition("rr-ns2");
    const [cache] = v.cachesOf({ group: "", version: "v1", resource: "configmaps" });
    expect([...cache!.namespaces].sort()).toEqual(["ns1", "ns2"]);
    expect(cache!.list(undefined).map((e) => e.key)).toEqual(["ns1/in-ns1", "ns2/in-ns2"]);
    expect(cache!.covers("ns3")).toBe(false);
  });
});
