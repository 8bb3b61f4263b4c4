import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../test/support/api.ts";
import type { StoredObject } from "../api/meta.ts";
import type { ApiServer } from "../apiserver/server.ts";
import { RESOURCES } from "../client/client.ts";
import { LocalClient } from "../client/local.ts";
import { generationChanged, runController } from "./controller.ts";
import { Informer, InformerFactory } from "./informer.ts";
import { objectKey } from "./keys.ts";

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function cm(name: string, labels: Record<string, string> = {}): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels } };
}

describe("informers and controllers", () => {
  let api: TestApi;
  let server: ApiServer;
  let client: LocalClient;
  beforeAll(async () => {
    api = await startTestApi();
    server = api.server;
    client = new LocalClient(server.context);
  });
  afterAll(async () => {
    await api.close();
  });

  it("caches what its transform keeps, from the list and from the watch, deletes included", async () => {
    await client.create(RESOURCES.configmaps, { ...cm("t1"), data: { big: "x".repeat(100) } });
    const inf = new Informer(client, RESOURCES.configmaps, {
      namespace: "default",
      transform: (o) => ({ ...o, data: { size: String(JSON.stringify(o.data ?? {}).length) } }),
    });
    const deleted: unknown[] = [];
    inf.addHandler({ onDelete: (o) => deleted.push(o.data) });
    inf.start();
    await inf.waitForSync();
    expect(inf.get("default", "t1")?.data).toEqual({ size: "110" });
    await client.create(RESOURCES.configmaps, { ...cm("t2"), data: { a: "b" } });
    await until(() => inf.get("default", "t2") !== undefined, "the watched add");
    expect(inf.get("default", "t2")?.data).toEqual({ size: "9" });
    await client.delete(RESOURCES.configmaps, "default", "t2");
    await until(() => deleted.length === 1, "the delete");
    expect(deleted).toEqual([{ size: "9" }]);
    inf.stop();
    await client.delete(RESOURCES.configmaps, "default", "t1");
  });

  it("lists, then follows changes, with indexes and frozen objects", async () => {
    await client.create(RESOURCES.configmaps, cm("i1", { team: "a" }));
    const inf = new Informer(client, RESOURCES.configmaps, {
      namespace: "default",
      freeze: true,
      indexers: { team: (o) => (o.metadata.labels?.team ? [o.metadata.labels.team] : []) },
    });
    const seen: string[] = [];
    inf.addHandler({
      onAdd: (o) => seen.push(`add ${o.metadata.name}`),
      onUpdate: (_o, n) => seen.push(`update ${n.metadata.name}`),
      onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
    });
    inf.start();
    await inf.waitForSync();
    expect(inf.get("default", "i1")?.metadata.labels).toEqual({ team: "a" });
    expect(() => {
      (inf.get("default", "i1")!.metadata as { name: string }).name = "x";
    }).toThrow();
    await client.create(RESOURCES.configmaps, cm("i2", { team: "a" }));
    await client.patch(RESOURCES.configmaps, "default", "i1", "merge", {
      metadata: { labels: { team: "b" } },
    });
    await client.delete(RESOURCES.configmaps, "default", "i2");
    await until(() => seen.includes("delete i2"), "the delete");
    expect(seen).toEqual(["add i1", "add i2", "update i1", "delete i2"]);
    expect(inf.byIndex("team", "b").map((o) => o.metadata.name)).toEqual(["i1"]);
    expect(inf.byIndex("team", "a")).toEqual([]);
    inf.stop();
  });

  it("relists after its history expired and tells handlers only what changed", async () => {
    const inf = new Informer(client, RESOURCES.configmaps, { namespace: "default" });
    const deleted: string[] = [];
    const added: string[] = [];
    inf.addHandler({
      onAdd: (o) => added.push(o.metadata.name),
      onDelete: (o) => deleted.push(o.metadata.name),
    });
    inf.start();
    await inf.waitForSync();
    // Stop the informer's watch feed (as if the server restarted), change things, compact, resume.
    inf.stop();
    await client.create(RESOURCES.configmaps, cm("while-away"));
    await client.delete(RESOURCES.configmaps, "default", "i1");
    await server.context.store.compact(await server.context.store.currentRevision());
    inf.start();
    await until(() => added.includes("while-away") && deleted.includes("i1"), "the relist");
    expect(inf.get("default", "i1")).toBeUndefined();
    inf.stop();
  });

  it("relists when a re-watch finds its revision compacted away (410)", async () => {
    const inf = new Informer(client, RESOURCES.configmaps, { namespace: "default", watchTimeoutSeconds: 1 });
    const added: string[] = [];
    inf.addHandler({ onAdd: (o) => added.push(o.metadata.name) });
    inf.start();
    await inf.waitForSync();
    const before = inf.resourceVersion;
    // Writes elsewhere move the store on; compaction then leaves the informer's revision behind.
    await client.create(RESOURCES.secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "elsewhere", namespace: "default" },
    });
    const compacted = await server.context.store.currentRevision();
    await server.context.store.compact(compacted);
    // No configmap changed, so only a relist (after the re-watch's 410) can move the informer on.
    for (let i = 0; i < 60 && Number(inf.resourceVersion) < compacted; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(Number(inf.resourceVersion)).toBeGreaterThanOrEqual(compacted);
    expect(Number(before)).toBeLessThan(compacted);
    await client.create(RESOURCES.configmaps, cm("after-compaction"));
    await until(() => added.includes("after-compaction"), "the object created after compaction");
    inf.stop();
  });

  it("runs a controller: keys from the primary and mapped from watched resources, requeue, retries", async () => {
    const factory = new InformerFactory(client);
    const cms = factory.informer(RESOURCES.configmaps, { namespace: "default" });
    const secrets = factory.informer(RESOURCES.secrets, { namespace: "default" });
    const reconciled: string[] = [];
    let failOnce = true;
    const running = runController({
      name: "test",
      for: cms,
      watches: [{ informer: secrets, map: (s: StoredObject) => [`default/${s.metadata.name}`] }],
      reconcile: async (_ctx, key) => {
        if (key === "default/flaky" && failOnce) {
          failOnce = false;
          throw new Error("transient");
        }
        reconciled.push(key);
        return undefined;
      },
    });
    factory.start();
    await factory.waitForSync();
    await client.create(RESOURCES.configmaps, cm("flaky"));
    await client.create(RESOURCES.secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "from-secret", namespace: "default" },
    });
    await until(
      () => reconciled.includes("default/flaky") && reconciled.includes("default/from-secret"),
      "reconciles",
    );
    expect(objectKey(cms.get("default", "flaky")!)).toBe("default/flaky");
    running.stop();
    factory.stop();
  });

  it("an update filter (generationChanged) skips status writes but not spec changes", async () => {
    const factory = new InformerFactory(client);
    const deployments = factory.informer(RESOURCES.deployments, { namespace: "default" });
    const generations: number[] = [];
    const running = runController({
      name: "generation-test",
      for: deployments,
      updateFilter: generationChanged,
      reconcile: async (_ctx, key) => {
        const [ns, name] = key.split("/");
        generations.push(deployments.get(ns, name!)?.metadata.generation ?? 0);
        return undefined;
      },
    });
    factory.start();
    await factory.waitForSync();
    const created = await client.create(RESOURCES.deployments, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "gen", namespace: "default" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "gen" } },
        template: { metadata: { labels: { app: "gen" } }, spec: { containers: [{ name: "c", image: "x" }] } },
      },
    });
    await until(() => generations.length === 1, "the add");
    const withStatus = await client.updateStatus(RESOURCES.deployments, {
      ...created,
      status: { replicas: 1 },
    });
    await client.patch(RESOURCES.deployments, "default", "gen", "merge", {
      metadata: { labels: { a: "b" } },
    });
    await client.patch(RESOURCES.deployments, "default", "gen", "merge", { spec: { replicas: 2 } });
    await until(() => generations.length === 2, "the spec change");
    expect(withStatus.metadata.generation).toBe(1);
    expect(generations).toEqual([1, 2]);
    running.stop();
    factory.stop();
  });
});
