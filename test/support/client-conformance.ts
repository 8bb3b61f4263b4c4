/**
 * The one client test suite both transports must pass, against a real API server: each
 * transport's test file calls `runClientConformance` with a fixture (a client and the
 * server's store, to force history compaction). Assertions are about what a caller sees:
 * objects, ApiErrors and their predicates, watch events and how `done` settles.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject, StoredObject } from "../../src/api/meta.ts";
import { startHttpServer } from "../../src/apiserver/http.ts";
import { secureServingFrom } from "../../src/apiserver/secure-serving.ts";
import { ApiServer } from "../../src/apiserver/server.ts";
import {
  type Client,
  RESOURCES,
  type ResourceRef,
  type WatchEvent,
  type WatchOptions,
} from "../../src/client/client.ts";
import type { ClusterConnection } from "../../src/client/http.ts";
import { silentLogger } from "../../src/log.ts";
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  type Status,
} from "../../src/machinery/errors.ts";
import { type ClusterPki, createClusterPki } from "../../src/pki/cluster-pki.ts";
import { MemoryStore } from "../../src/storage/memory/store.ts";
import type { Store } from "../../src/storage/store.ts";

export interface ClientFixture {
  client: Client;
  /** The server's store (the suite compacts its history once). */
  store: Store;
  close(): Promise<void>;
}

/** An API server in process with a memory store, served on a free loopback port. */
export interface ConformanceServer {
  api: ApiServer;
  store: MemoryStore;
  url: string;
  /** The admin's connection: URL, CA and client certificate. */
  connection: ClusterConnection;
  close(): Promise<void>;
}

let pkiOnce: Promise<ClusterPki> | undefined;
function conformancePki(): Promise<ClusterPki> {
  pkiOnce ??= createClusterPki({ caName: "conformance" });
  return pkiOnce;
}

/**
 * A server for client tests: HTTPS with a CA of its own, the admin's client certificate in
 * `connection`. `insecure` serves plain HTTP, everyone admin: for the transport's own tests
 * (proxies and fronts that relay plain HTTP); `http` options override (a custom authenticator).
 */
export async function startConformanceServer(
  opts: { insecure?: boolean; http?: Partial<Parameters<typeof startHttpServer>[1]> } = {},
): Promise<ConformanceServer> {
  const store = new MemoryStore();
  const pki = await conformancePki();
  const serving = opts.insecure ? undefined : secureServingFrom(pki);
  const api = await ApiServer.start({
    store,
    log: silentLogger,
    compactionIntervalMs: 0,
    ...(serving ? serving.api : { authorization: "AlwaysAllow" as const }),
  });
  const http = await startHttpServer(api.handler, {
    host: "127.0.0.1",
    port: 0,
    log: silentLogger,
    ...(serving ? { tls: serving.tls, authenticate: api.authenticate! } : {}),
    ...opts.http,
  });
  const connection: ClusterConnection = serving
    ? { server: http.url, caData: pki.ca.certPem, certData: pki.admin.certPem, keyData: pki.admin.keyPem }
    : { server: http.url };
  return {
    api,
    store,
    url: http.url,
    connection,
    async close() {
      await http.close();
      await api.close();
      await store.close();
    },
  };
}

/** Polls until `cond` holds (bounded by count, not by a time threshold). */
export async function until(
  cond: () => boolean | Promise<boolean>,
  what: string,
  tries = 1000,
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Awaits a call that must fail; returns its error. */
export async function failure(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error("expected the call to fail");
}

export interface Watching {
  events: WatchEvent[];
  stop(): void;
  /** "resolved", or the error `done` rejected with. */
  outcome: Promise<"resolved" | unknown>;
}

export function watching(
  client: Client,
  res: ResourceRef,
  namespace: string | undefined,
  opts: WatchOptions,
): Watching {
  const events: WatchEvent[] = [];
  const handle = client.watch(res, namespace, opts, (e) => events.push(e));
  return {
    events,
    stop: () => handle.stop(),
    outcome: handle.done.then(
      () => "resolved" as const,
      (err: unknown) => err,
    ),
  };
}

function summary(events: WatchEvent[]): string[] {
  return events.map((e) => `${e.type} ${(e.object as StoredObject).metadata?.name ?? ""}`);
}

const NS = "conformance";

function configMap(name: string, extra: Partial<KubeObject> = {}, namespace = NS): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    ...extra,
    metadata: { name, namespace, ...(extra.metadata ?? {}) },
  };
}

function deployment(name: string): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "main", image: "nginx:1.27" }] },
      },
    },
  };
}

function crd(plural: string, kind: string): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.conformance.example.com` },
    spec: {
      group: "conformance.example.com",
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
}

const CM = RESOURCES.configmaps;

export function runClientConformance(name: string, setup: () => Promise<ClientFixture>): void {
  describe(`client conformance: ${name}`, () => {
    let fixture: ClientFixture;
    let client: Client;
    beforeAll(async () => {
      fixture = await setup();
      client = fixture.client;
      await client.create(RESOURCES.namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: NS },
      });
    });
    afterAll(async () => {
      await fixture?.close();
    });

    it("creates, reads, updates and deletes; a stale resourceVersion is a 409 Conflict", async () => {
      const created = await client.create(CM, configMap("crud", { data: { a: "1" } }));
      expect(created.metadata.uid).toBeTruthy();
      expect(created.kind).toBe("ConfigMap");
      const got = await client.get(CM, NS, "crud");
      expect(got.data).toEqual({ a: "1" });
      expect(got.metadata.resourceVersion).toBe(created.metadata.resourceVersion);

      const updated = await client.update(CM, { ...got, data: { a: "2" } });
      expect(updated.data).toEqual({ a: "2" });
      expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(got.metadata.resourceVersion));

      const stale = await failure(client.update(CM, { ...got, data: { a: "3" } }));
      expect(isConflict(stale)).toBe(true);
      expect(stale.code).toBe(409);
      expect(stale.message).toContain("the object has been modified");

      const dup = await failure(client.create(CM, configMap("crud")));
      expect(isAlreadyExists(dup)).toBe(true);
      expect(dup.code).toBe(409);

      expect(await client.delete(CM, NS, "crud")).toBeUndefined();
      const gone = await failure(client.get(CM, NS, "crud"));
      expect(isNotFound(gone)).toBe(true);
      expect(gone.code).toBe(404);
      expect(gone.status.details?.name).toBe("crud");
      expect(isNotFound(await failure(client.delete(CM, NS, "crud")))).toBe(true);
      expect(isNotFound(await failure(client.update(CM, { ...got, metadata: { ...got.metadata } })))).toBe(
        true,
      );
    });

    it("generates names, honours dryRun and serves get with a resourceVersion and /status", async () => {
      const gen = await client.create(CM, configMap("", { metadata: { generateName: "gen-" } }));
      expect(gen.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
      const dry = await client.create(CM, configMap("dry"), { dryRun: true });
      expect(dry.metadata.name).toBe("dry");
      expect(isNotFound(await failure(client.get(CM, NS, "dry")))).toBe(true);

      const dep = await client.create(RESOURCES.deployments, deployment("with-status"));
      const viaStatus = await client.get(RESOURCES.deployments, NS, "with-status", { subresource: "status" });
      expect(viaStatus.metadata.uid).toBe(dep.metadata.uid);
      const atRv = await client.get(RESOURCES.deployments, NS, "with-status", {
        resourceVersion: dep.metadata.resourceVersion!,
      });
      expect(atRv.metadata.name).toBe("with-status");
    });

    it("fails with NotFound for a missing namespace and an unknown resource", async () => {
      const err = await failure(client.create(CM, configMap("x", {}, "no-such-namespace")));
      expect(isNotFound(err)).toBe(true);
      expect(err.message).toContain("no-such-namespace");
      const unknown: ResourceRef = {
        group: "nope.example.com",
        version: "v1",
        resource: "things",
        namespaced: true,
      };
      expect(isNotFound(await failure(client.list(unknown, NS)))).toBe(true);
      expect(isNotFound(await failure(client.get(unknown, NS, "x")))).toBe(true);
      // Bad calls reject; they never throw before a promise exists.
      const calls: Array<() => Promise<unknown>> = [
        () => client.update(unknown, configMap("x")),
        () => client.updateStatus(unknown, configMap("x")),
        () => client.update(CM, configMap("")),
        () => client.get(CM, NS, ""),
        () => client.patch(unknown, NS, "x", "merge", {}),
        () => client.delete(unknown, NS, "x"),
        () => client.create(unknown, configMap("x")),
        () => client.resourceFor("nope.example.com/v1", "Thing"),
      ];
      for (const call of calls) {
        let pending: Promise<unknown> | undefined;
        expect(() => {
          pending = call();
        }).not.toThrow();
        expect(isNotFound(await failure(pending!))).toBe(true);
      }
    });

    it("updateStatus changes only status; update leaves status alone", async () => {
      const dep = await client.create(RESOURCES.deployments, deployment("status-only"));
      const withStatus = await client.updateStatus(RESOURCES.deployments, {
        ...dep,
        metadata: { ...dep.metadata, labels: { changed: "yes" } },
        spec: { ...(dep.spec as object), replicas: 5 },
        status: { observedGeneration: 1, replicas: 1 },
      });
      expect(withStatus.status).toMatchObject({ observedGeneration: 1, replicas: 1 });
      expect((withStatus.spec as { replicas: number }).replicas).toBe(1);
      expect(withStatus.metadata.labels ?? {}).not.toHaveProperty("changed");

      const stale = await failure(client.updateStatus(RESOURCES.deployments, { ...dep, status: {} }));
      expect(isConflict(stale)).toBe(true);

      const specChange = await client.update(RESOURCES.deployments, {
        ...withStatus,
        spec: { ...(withStatus.spec as object), replicas: 3 },
        status: { replicas: 99 },
      });
      expect((specChange.spec as { replicas: number }).replicas).toBe(3);
      expect(specChange.status).toMatchObject({ replicas: 1 });
      expect(specChange.metadata.generation).toBe(2);
    });

    it("patches with JSON patch, merge patch, strategic merge patch and on /status", async () => {
      await client.create(CM, configMap("patched", { data: { a: "1", b: "2" } }));
      const merged = await client.patch(CM, NS, "patched", "merge", { data: { b: null, c: "3" } });
      expect(merged.data).toEqual({ a: "1", c: "3" });
      const json = await client.patch(CM, NS, "patched", "json", [
        { op: "test", path: "/data/a", value: "1" },
        { op: "replace", path: "/data/a", value: "10" },
      ]);
      expect(json.data).toEqual({ a: "10", c: "3" });
      const failedTest = await failure(
        client.patch(CM, NS, "patched", "json", [{ op: "test", path: "/data/a", value: "1" }]),
      );
      expect(isInvalid(failedTest)).toBe(true);

      await client.create(RESOURCES.deployments, deployment("smp"));
      const sidecar = {
        spec: { template: { spec: { containers: [{ name: "side", image: "busybox:1" }] } } },
      };
      const strategic = await client.patch(RESOURCES.deployments, NS, "smp", "strategic", sidecar);
      const names = (s: StoredObject): string[] =>
        (
          s.spec as { template: { spec: { containers: Array<{ name: string }> } } }
        ).template.spec.containers.map((c) => c.name);
      // Merged by name (patch items first, as Kubernetes orders them without $setElementOrder).
      expect(names(strategic).sort()).toEqual(["main", "side"]);
      const replaced = await client.patch(RESOURCES.deployments, NS, "smp", "merge", sidecar);
      expect(names(replaced)).toEqual(["side"]);

      const status = await client.patch(
        RESOURCES.deployments,
        NS,
        "smp",
        "merge",
        { spec: { replicas: 7 }, status: { replicas: 4 } },
        { subresource: "status" },
      );
      expect(status.status).toMatchObject({ replicas: 4 });
      expect((status.spec as { replicas: number }).replicas).toBe(1);

      expect(isNotFound(await failure(client.patch(CM, NS, "no-such", "merge", { data: {} })))).toBe(true);
    });

    it("applies server-side: creates, reports conflicts between managers, forces", async () => {
      const cfg = (value: string): KubeObject => configMap("applied", { data: { owned: value } });
      const created = await client.patch(CM, NS, "applied", "apply", cfg("a"), { fieldManager: "first" });
      expect(created.data).toEqual({ owned: "a" });
      expect(created.metadata.managedFields?.map((m) => m.manager)).toContain("first");

      const conflict = await failure(
        client.patch(CM, NS, "applied", "apply", cfg("b"), { fieldManager: "second" }),
      );
      expect(isConflict(conflict)).toBe(true);
      expect(conflict.status.details?.causes?.[0]).toMatchObject({
        reason: "FieldManagerConflict",
        field: ".data.owned",
      });

      const forced = await client.patch(CM, NS, "applied", "apply", cfg("b"), {
        fieldManager: "second",
        force: true,
      });
      expect(forced.data).toEqual({ owned: "b" });

      const noManager = await failure(client.patch(CM, NS, "applied", "apply", cfg("c")));
      expect(isInvalid(noManager)).toBe(true);
      const dry = await client.patch(CM, NS, "applied", "apply", cfg("d"), {
        fieldManager: "second",
        dryRun: true,
      });
      expect(dry.data).toEqual({ owned: "d" });
      expect((await client.get(CM, NS, "applied")).data).toEqual({ owned: "b" });
    });

    it("delete: gone (undefined) vs kept by finalizers (the object), preconditions, dryRun", async () => {
      await client.create(CM, configMap("plain"));
      expect(await client.delete(CM, NS, "plain")).toBeUndefined();

      await client.create(
        CM,
        configMap("held", { metadata: { finalizers: ["conformance.example.com/hold"] } }),
      );
      const held = await client.delete(CM, NS, "held");
      expect(held?.metadata.name).toBe("held");
      expect(held?.metadata.deletionTimestamp).toBeTruthy();
      expect((await client.get(CM, NS, "held")).metadata.deletionTimestamp).toBeTruthy();
      await client.patch(CM, NS, "held", "merge", { metadata: { finalizers: null } });
      expect(isNotFound(await failure(client.get(CM, NS, "held")))).toBe(true);

      const kept = await client.create(CM, configMap("guarded"));
      const wrongUid = await failure(client.delete(CM, NS, "guarded", { preconditions: { uid: "not-it" } }));
      expect(isConflict(wrongUid)).toBe(true);
      expect(await client.delete(CM, NS, "guarded", { dryRun: true })).toBeUndefined();
      expect((await client.get(CM, NS, "guarded")).metadata.uid).toBe(kept.metadata.uid);
      expect(
        await client.delete(CM, NS, "guarded", { preconditions: { uid: kept.metadata.uid } }),
      ).toBeUndefined();

      // Pods and Namespaces answer with the object: gone for an unscheduled pod, kept for a namespace.
      await client.create(RESOURCES.pods, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "unscheduled", namespace: NS },
        spec: { containers: [{ name: "main", image: "nginx:1.27" }] },
      });
      expect(await client.delete(RESOURCES.pods, NS, "unscheduled")).toBeUndefined();
      await client.create(RESOURCES.namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "conformance-doomed" },
      });
      const ns = await client.delete(RESOURCES.namespaces, undefined, "conformance-doomed");
      expect(ns?.metadata.deletionTimestamp).toBeTruthy();
      expect(ns?.status).toMatchObject({ phase: "Terminating" });
    });

    it("lists with label and field selectors and pages with limit/continue", async () => {
      for (let i = 0; i < 5; i++) {
        await client.create(
          CM,
          configMap(`list-${i}`, { metadata: { labels: { set: "list", tier: i < 2 ? "x" : "y" } } }),
        );
      }
      const all = await client.list(CM, NS, { labelSelector: "set=list" });
      expect(all.kind).toBe("ConfigMapList");
      expect(all.metadata.resourceVersion).toBeTruthy();
      expect(all.items.map((o) => o.metadata.name)).toEqual([
        "list-0",
        "list-1",
        "list-2",
        "list-3",
        "list-4",
      ]);
      expect(all.items.every((o) => o.kind === "ConfigMap" && o.apiVersion === "v1")).toBe(true);

      const tierX = await client.list(CM, NS, { labelSelector: "set=list,tier=x" });
      expect(tierX.items.map((o) => o.metadata.name)).toEqual(["list-0", "list-1"]);
      const notX = await client.list(CM, NS, { labelSelector: "set=list,tier!=x" });
      expect(notX.items).toHaveLength(3);
      const byName = await client.list(CM, NS, { fieldSelector: "metadata.name=list-3" });
      expect(byName.items.map((o) => o.metadata.name)).toEqual(["list-3"]);
      const anywhere = await client.list(CM, undefined, { labelSelector: "set=list" });
      expect(anywhere.items).toHaveLength(5);

      const pages: string[][] = [];
      let cont: string | undefined;
      do {
        const page = await client.list(CM, NS, {
          labelSelector: "set=list",
          limit: 2,
          ...(cont ? { continue: cont } : {}),
        });
        pages.push(page.items.map((o) => o.metadata.name));
        cont = page.metadata.continue;
      } while (cont);
      expect(pages).toEqual([["list-0", "list-1"], ["list-2", "list-3"], ["list-4"]]);
    });

    it("watches from a resourceVersion: ADDED, MODIFIED, DELETED in order", async () => {
      const start = await client.list(CM, NS, { labelSelector: "watch=rv" });
      const w = watching(client, CM, NS, {
        resourceVersion: start.metadata.resourceVersion!,
        labelSelector: "watch=rv",
      });
      await client.create(CM, configMap("watched", { metadata: { labels: { watch: "rv" } } }));
      await client.patch(CM, NS, "watched", "merge", { data: { x: "1" } });
      await client.delete(CM, NS, "watched");
      await until(() => w.events.length >= 3, "three events");
      expect(summary(w.events)).toEqual(["ADDED watched", "MODIFIED watched", "DELETED watched"]);
      const rvs = w.events.map((e) => Number((e.object as StoredObject).metadata.resourceVersion));
      expect(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!).toBe(true);
      expect((w.events[1]!.object as StoredObject).data).toEqual({ x: "1" });
      expect((w.events[0]!.object as StoredObject).kind).toBe("ConfigMap");
      w.stop();
      expect(await w.outcome).toBe("resolved");
    });

    it('watches with resourceVersion unset or "0": the current objects first as ADDED', async () => {
      await client.create(CM, configMap("initial-a", { metadata: { labels: { watch: "initial" } } }));
      await client.create(CM, configMap("initial-b", { metadata: { labels: { watch: "initial" } } }));
      for (const opts of [{}, { resourceVersion: "0" }] as WatchOptions[]) {
        const w = watching(client, CM, NS, { ...opts, labelSelector: "watch=initial" });
        await until(() => w.events.length >= 2, "initial events");
        expect(summary(w.events).sort()).toEqual(["ADDED initial-a", "ADDED initial-b"]);
        w.stop();
        expect(await w.outcome).toBe("resolved");
      }
    });

    it("watches with a selector: an object leaving it is DELETED", async () => {
      const start = await client.list(CM, NS, { labelSelector: "watch=sel" });
      const w = watching(client, CM, NS, {
        resourceVersion: start.metadata.resourceVersion!,
        labelSelector: "watch=sel",
      });
      await client.create(CM, configMap("sel-other"));
      await client.create(CM, configMap("sel", { metadata: { labels: { watch: "sel" } } }));
      await client.patch(CM, NS, "sel", "merge", { metadata: { labels: { watch: "gone" } } });
      await until(() => w.events.length >= 2, "two events");
      expect(summary(w.events)).toEqual(["ADDED sel", "DELETED sel"]);
      w.stop();
      await w.outcome;
    });

    it("sends initial events and a bookmark for sendInitialEvents with bookmarks", async () => {
      await client.create(CM, configMap("bookmarked", { metadata: { labels: { watch: "bookmark" } } }));
      const w = watching(client, CM, NS, {
        labelSelector: "watch=bookmark",
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
      });
      await until(() => w.events.length >= 2, "initial events and the bookmark");
      expect(w.events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"]);
      const bookmark = w.events[1]!.object as StoredObject;
      expect(bookmark.metadata.annotations?.["k8s.io/initial-events-end"]).toBe("true");
      expect(Number(bookmark.metadata.resourceVersion)).toBeGreaterThan(0);
      w.stop();
      expect(await w.outcome).toBe("resolved");
    });

    it("stop() ends a watch: done resolves and no event follows", async () => {
      const start = await client.list(CM, NS, { labelSelector: "watch=stop" });
      const w = watching(client, CM, NS, {
        resourceVersion: start.metadata.resourceVersion!,
        labelSelector: "watch=stop",
      });
      await client.create(CM, configMap("stop-1", { metadata: { labels: { watch: "stop" } } }));
      await until(() => w.events.length >= 1, "the first event");
      w.stop();
      expect(await w.outcome).toBe("resolved");
      await client.create(CM, configMap("stop-2", { metadata: { labels: { watch: "stop" } } }));
      // A second watch from the same point sees both; the stopped one saw only the first.
      const check = watching(client, CM, NS, {
        resourceVersion: start.metadata.resourceVersion!,
        labelSelector: "watch=stop",
      });
      await until(() => check.events.length >= 2, "both events on a new watch");
      check.stop();
      await check.outcome;
      expect(summary(w.events)).toEqual(["ADDED stop-1"]);
    });

    it("resolves done when the server ends the watch (timeoutSeconds)", async () => {
      const start = await client.list(CM, NS, { labelSelector: "watch=timeout" });
      const w = watching(client, CM, NS, {
        resourceVersion: start.metadata.resourceVersion!,
        labelSelector: "watch=timeout",
        timeoutSeconds: 1,
      });
      expect(await w.outcome).toBe("resolved");
      expect(w.events).toEqual([]);
    });

    it("rejects done with an ApiError when the watch cannot start", async () => {
      const unknown: ResourceRef = {
        group: "nope.example.com",
        version: "v1",
        resource: "things",
        namespaced: true,
      };
      const missing = await watching(client, unknown, NS, {}).outcome;
      expect(isNotFound(missing)).toBe(true);
      const invalidOpts = await watching(client, CM, NS, { resourceVersionMatch: "NotOlderThan" }).outcome;
      expect(invalidOpts).toBeInstanceOf(ApiError);
      expect(isInvalid(invalidOpts)).toBe(true);
    });

    it("resolves the kinds of built-ins, Karmada and a CRD created meanwhile", async () => {
      expect(await client.resourceFor("apps/v1", "Deployment")).toMatchObject({
        group: "apps",
        version: "v1",
        resource: "deployments",
        namespaced: true,
        kind: "Deployment",
      });
      expect(await client.resourceFor("v1", "Namespace")).toMatchObject({
        group: "",
        resource: "namespaces",
        namespaced: false,
      });
      expect(await client.resourceFor("policy.karmada.io/v1alpha1", "PropagationPolicy")).toMatchObject({
        resource: "propagationpolicies",
        namespaced: true,
      });
      expect(await client.resourceFor("cluster.karmada.io/v1alpha1", "Cluster")).toMatchObject({
        resource: "clusters",
        namespaced: false,
      });
      expect(isNotFound(await failure(client.resourceFor("v1", "NoSuchKind")))).toBe(true);
      expect(isNotFound(await failure(client.resourceFor("conformance.example.com/v1", "Gadget")))).toBe(
        true,
      );

      await client.create(RESOURCES.customresourcedefinitions, crd("gadgets", "Gadget"));
      let gadgets: ResourceRef | undefined;
      await until(async () => {
        gadgets = await client.resourceFor("conformance.example.com/v1", "Gadget").catch(() => undefined);
        return gadgets !== undefined;
      }, "the Gadget CRD to be served");
      expect(gadgets).toMatchObject({ resource: "gadgets", namespaced: true, kind: "Gadget" });

      // A second kind in a group-version already looked up: found after a refresh.
      await client.create(RESOURCES.customresourcedefinitions, crd("gizmos", "Gizmo"));
      let gizmos: ResourceRef | undefined;
      await until(async () => {
        gizmos = await client.resourceFor("conformance.example.com/v1", "Gizmo").catch(() => undefined);
        return gizmos !== undefined;
      }, "the Gizmo CRD to be served");
      expect(gizmos).toMatchObject({ resource: "gizmos", kind: "Gizmo" });

      const made = await client.create(gizmos!, {
        apiVersion: "conformance.example.com/v1",
        kind: "Gizmo",
        metadata: { name: "g1", namespace: NS },
        spec: { size: 1 },
      });
      expect(made.metadata.uid).toBeTruthy();
      const smp = await failure(client.patch(gizmos!, NS, "g1", "strategic", { spec: { size: 2 } }));
      expect(smp.code).toBe(415);
      const merged = await client.patch(gizmos!, NS, "g1", "merge", { spec: { size: 2 } });
      expect(merged.spec).toEqual({ size: 2 });
      expect((await client.list(gizmos!, NS)).items.map((o) => o.kind)).toEqual(["Gizmo"]);
    });

    // Compacts the server's history: keep it last.
    it("sends an ERROR 410 event for a resourceVersion compacted away, then ends", async () => {
      const old = await client.create(CM, configMap("compacted", { metadata: { labels: { watch: "410" } } }));
      await client.patch(CM, NS, "compacted", "merge", { data: { x: "1" } });
      await fixture.store.compact(await fixture.store.currentRevision());
      const w = watching(client, CM, NS, {
        resourceVersion: old.metadata.resourceVersion!,
        labelSelector: "watch=410",
      });
      expect(await w.outcome).toBe("resolved");
      expect(w.events.map((e) => e.type)).toEqual(["ERROR"]);
      const status = w.events[0]!.object as Status;
      expect(status).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });
    });
  });
}
