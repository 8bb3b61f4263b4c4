import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredObject } from "../api/meta.ts";
import { ApiServer } from "../apiserver/server.ts";
import { RESOURCES } from "../client/client.ts";
import { LocalClient } from "../client/local.ts";
import { silentLogger } from "../log.ts";
import { isConflict } from "../machinery/errors.ts";
import { MemoryStore } from "../storage/memory/store.ts";
import { addFinalizer, commit, removeFinalizer } from "./commit.ts";

const FINALIZER = "example.io/cleanup";
let api: ApiServer;
let client: LocalClient;

beforeAll(async () => {
  api = await ApiServer.start({
    store: new MemoryStore(),
    log: silentLogger,
    compactionIntervalMs: 0,
    authorization: "AlwaysAllow",
  });
  client = new LocalClient(api.context);
});
afterAll(() => api.close());

let n = 0;
async function deployment(): Promise<StoredObject> {
  const name = `web-${++n}`;
  return client.create(RESOURCES.deployments, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default", labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "x" }] } },
    },
  });
}

describe("commit", () => {
  it("writes nothing when the copy is unchanged", async () => {
    const obj = await deployment();
    expect(await commit(client, RESOURCES.deployments, obj, structuredClone(obj))).toBe(obj);
    const now = await client.get(RESOURCES.deployments, "default", obj.metadata.name);
    expect(now.metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
  });

  it("writes spec and metadata, then status through /status", async () => {
    const obj = await deployment();
    const next = structuredClone(obj);
    (next.spec as { replicas: number }).replicas = 3;
    next.metadata.labels = { tier: "web" };
    addFinalizer(next, FINALIZER);
    next.status = { observedGeneration: 2, replicas: 3 };
    const written = await commit(client, RESOURCES.deployments, obj, next);
    expect(written?.metadata.labels).toEqual({ tier: "web" });
    expect(written?.metadata.finalizers).toEqual([FINALIZER]);
    expect(written?.spec).toMatchObject({ replicas: 3 });
    expect(written?.status).toMatchObject({ observedGeneration: 2, replicas: 3 });
  });

  it("writes only status when only status changed", async () => {
    const obj = await deployment();
    const next = structuredClone(obj);
    next.status = { replicas: 1 };
    const written = await commit(client, RESOURCES.deployments, obj, next);
    expect(written?.metadata.generation).toBe(obj.metadata.generation);
    expect(written?.status).toMatchObject({ replicas: 1 });
  });

  it("refuses to write over a change it has not seen (409), so the loop retries from the newer object", async () => {
    const obj = await deployment();
    await client.patch(RESOURCES.deployments, "default", obj.metadata.name, "merge", {
      metadata: { labels: { x: "y" } },
    });
    const next = structuredClone(obj);
    (next.spec as { replicas: number }).replicas = 5;
    const err = await commit(client, RESOURCES.deployments, obj, next).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
  });

  it("lets a deleting object go when its last finalizer is removed, and reports it gone", async () => {
    const obj = await deployment();
    const withFinalizer = structuredClone(obj);
    addFinalizer(withFinalizer, FINALIZER);
    await commit(client, RESOURCES.deployments, obj, withFinalizer);
    const deleting = await client.delete(RESOURCES.deployments, "default", obj.metadata.name);
    expect(deleting?.metadata.deletionTimestamp).toBeTruthy();
    const next = structuredClone(deleting!);
    expect(removeFinalizer(next, FINALIZER)).toBe(true);
    next.status = { replicas: 0 };
    await commit(client, RESOURCES.deployments, deleting!, next);
    const gone = await client.get(RESOURCES.deployments, "default", obj.metadata.name).catch(() => undefined);
    expect(gone).toBeUndefined();
  });

  it("ends quietly when the object was deleted meanwhile", async () => {
    const obj = await deployment();
    await client.delete(RESOURCES.deployments, "default", obj.metadata.name);
    const next = structuredClone(obj);
    next.metadata.labels = { gone: "yes" };
    expect(await commit(client, RESOURCES.deployments, obj, next)).toBeUndefined();
  });

  it("writes with update and updateStatus when asked (identities allowed to update, not patch)", async () => {
    const obj = await deployment();
    const next = structuredClone(obj);
    addFinalizer(next, FINALIZER);
    next.status = { replicas: 1 };
    const written = await commit(client, RESOURCES.deployments, obj, next, { update: true });
    expect(written?.metadata.finalizers).toEqual([FINALIZER]);
    expect(written?.status).toMatchObject({ replicas: 1 });
    const stale = structuredClone(obj);
    stale.metadata.labels = { stale: "yes" };
    expect(
      isConflict(await commit(client, RESOURCES.deployments, obj, stale, { update: true }).catch((e) => e)),
    ).toBe(true);
  });

  it("writes status with the rest for a resource without a status subresource", async () => {
    const cm = await client.create(RESOURCES.configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "plain", namespace: "default" },
      data: { a: "1" },
    });
    const next = structuredClone(cm);
    next.data = { b: "2" };
    const written = await commit(client, RESOURCES.configmaps, cm, next, { statusSubresource: false });
    expect(written?.data).toEqual({ b: "2" });
  });
});

describe("finalizers on a copy", () => {
  it("adds once and removes what is there", () => {
    const obj = { metadata: { finalizers: ["a"] } };
    expect(addFinalizer(obj, "b")).toBe(true);
    expect(addFinalizer(obj, "b")).toBe(false);
    expect(obj.metadata.finalizers).toEqual(["a", "b"]);
    expect(removeFinalizer(obj, "a")).toBe(true);
    expect(removeFinalizer(obj, "a")).toBe(false);
    expect(removeFinalizer(obj, "b")).toBe(true);
    expect(obj.metadata).toEqual({});
  });
});
