import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../test/support/api.ts";

const CM = "/api/v1/namespaces/default/configmaps";

function cm(
  name: string,
  data: Record<string, string> = { a: "1" },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...extra }, data };
}

describe("API handler", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
  });

  describe("CRUD and errors", () => {
    it("creates, gets, updates and deletes", async () => {
      const created = await api.call("POST", CM, cm("crud"));
      expect(created.status).toBe(201);
      expect(created.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.body.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(created.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(created.body.metadata.generation).toBeUndefined();
      const got = await api.call("GET", `${CM}/crud`);
      expect(got.body).toEqual(created.body);
      const updated = await api.call("PUT", `${CM}/crud`, { ...created.body, data: { a: "2" } });
      expect(updated.status).toBe(200);
      expect(Number(updated.body.metadata.resourceVersion)).toBeGreaterThan(
        Number(created.body.metadata.resourceVersion),
      );
      const stale = await api.call("PUT", `${CM}/crud`, { ...created.body, data: { a: "3" } });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ kind: "Status", reason: "Conflict", code: 409 });
      expect(stale.body.message).toBe(
        'Operation cannot be fulfilled on configmaps "crud": the object has been modified; please apply your changes to the latest version and try again',
      );
      const unconditional = await api.call("PUT", `${CM}/crud`, cm("crud", { a: "4" }));
      expect(unconditional.status).toBe(200);
      const deleted = await api.call("DELETE", `${CM}/crud`);
      expect(deleted.body).toMatchObject({
        kind: "Status",
        status: "Success",
        details: { name: "crud", kind: "configmaps" },
      });
      const missing = await api.call("GET", `${CM}/crud`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({
        reason: "NotFound",
        message: 'configmaps "crud" not found',
        details: { name: "crud", kind: "configmaps" },
      });
    });

    it("answers 409 AlreadyExists, 400 for bad bodies, 415 for unknown media, 405 for verbs a resource lacks, 404 for unknown paths", async () => {
      await api.call("POST", CM, cm("dup"));
      const again = await api.call("POST", CM, cm("dup"));
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({
        reason: "AlreadyExists",
        message: 'configmaps "dup" already exists',
      });
      expect((await api.call("POST", CM, "{not json")).status).toBe(400);
      expect((await api.call("POST", CM, "{}", { "content-type": "text/plain" })).status).toBe(415);
      expect((await api.call("DELETE", "/api/v1/namespaces")).status).toBe(405);
      const unknown = await api.call("GET", "/apis/nope.io/v1/things");
      expect(unknown.status).toBe(404);
      expect(unknown.body.message).toBe("the server could not find the requested resource");
      const wrongKind = await api.call("POST", CM, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "x" },
      });
      expect(wrongKind.status).toBe(400);
    });

    it("rejects an invalid name with 422 and writes nothing", async () => {
      const bad = await api.call("POST", CM, cm("Not_Valid"));
      expect(bad.status).toBe(422);
      expect(bad.body).toMatchObject({
        reason: "Invalid",
        details: { name: "Not_Valid", kind: "ConfigMap" },
      });
      expect((bad.body.details as { causes: Array<{ field: string }> }).causes[0]!.field).toBe(
        "metadata.name",
      );
      expect((await api.call("GET", `${CM}/Not_Valid`)).status).toBe(404);
    });

    it("generates names", async () => {
      const r = await api.call("POST", CM, { ...cm(""), metadata: { generateName: "gen-" } });
      expect(r.status).toBe(201);
      expect(r.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    });

    it("does not persist dry runs", async () => {
      const r = await api.call("POST", `${CM}?dryRun=All`, cm("dry"));
      expect(r.status).toBe(201);
      expect((await api.call("GET", `${CM}/dry`)).status).toBe(404);
      expect((await api.call("POST", `${CM}?dryRun=Bogus`, cm("dry"))).status).toBe(400);
    });

    it("handles fieldValidation Strict, Warn and Ignore", async () => {
      const body = { ...cm("fv"), bogus: 1 };
      const strict = await api.call("POST", `${CM}?fieldValidation=Strict`, body);
      expect(strict.status).toBe(400);
      expect(strict.body.message).toBe(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
      );
      const warn = await api.call("POST", CM, body);
      expect(warn.status).toBe(201);
      expect(warn.headers.Warning).toBe('299 - "unknown field \\"bogus\\""');
      expect(warn.body.bogus).toBeUndefined();
    });

    it("skips writes that change nothing", async () => {
      const a = await api.call("POST", CM, cm("noop"));
      const b = await api.call("PUT", `${CM}/noop`, a.body);
      expect(b.body.metadata.resourceVersion).toBe(a.body.metadata.resourceVersion);
    });
  });

  describe("status, generation, scale", () => {
    const DEPLOY = "/apis/apps/v1/namespaces/default/deployments";
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "c", image: "nginx" }] },
        },
      },
      status: { replicas: 99 },
    };

    it("drops status on create, keeps it on main-resource updates, takes only status on /status", async () => {
      const created = await api.call("POST", DEPLOY, deployment);
      expect(created.body.status).toBeUndefined();
      expect(created.body.metadata.generation).toBe(1);
      const withStatus = await api.call("PUT", `${DEPLOY}/web/status`, {
        ...created.body,
        spec: { ...deployment.spec, replicas: 5 },
        status: { replicas: 1, observedGeneration: 1 },
      });
      expect(withStatus.status).toBe(200);
      expect(withStatus.body.status).toEqual({ replicas: 1, observedGeneration: 1 });
      expect((withStatus.body.spec as { replicas: number }).replicas).toBe(1);
      expect(withStatus.body.metadata.generation).toBe(1);
      const main = await api.call("PUT", `${DEPLOY}/web`, {
        ...withStatus.body,
        status: { replicas: 7 },
        spec: { ...deployment.spec, replicas: 2 },
      });
      expect(main.body.status).toEqual({ replicas: 1, observedGeneration: 1 });
      expect(main.body.metadata.generation).toBe(2);
      const labelOnly = await api.call(
        "PATCH",
        `${DEPLOY}/web`,
        { metadata: { labels: { x: "y" } } },
        { "content-type": "application/merge-patch+json" },
      );
      expect(labelOnly.body.metadata.generation).toBe(2);
    });

    it("serves /scale", async () => {
      const scale = await api.call("GET", `${DEPLOY}/web/scale`);
      expect(scale.body).toMatchObject({
        apiVersion: "autoscaling/v1",
        kind: "Scale",
        spec: { replicas: 2 },
        status: { selector: "app=web" },
      });
      const patched = await api.call(
        "PATCH",
        `${DEPLOY}/web/scale`,
        { spec: { replicas: 4 } },
        { "content-type": "application/merge-patch+json" },
      );
      expect(patched.body).toMatchObject({ spec: { replicas: 4 } });
      const stale = await api.call("PUT", `${DEPLOY}/web/scale`, { ...scale.body, spec: { replicas: 6 } });
      expect(stale.status).toBe(409);
      const deployment2 = await api.call("GET", `${DEPLOY}/web`);
      expect((deployment2.body.spec as { replicas: number }).replicas).toBe(4);
    });
  });

  describe("deletion", () => {
    it("keeps objects with finalizers until the last one is removed", async () => {
      await api.call("POST", CM, cm("fin", {}, { finalizers: ["example.com/keep"] }));
      const del = await api.call("DELETE", `${CM}/fin`);
      expect(del.status).toBe(200);
      expect(del.body.metadata.deletionTimestamp).toBeDefined();
      const addFinalizer = await api.call(
        "PATCH",
        `${CM}/fin`,
        { metadata: { finalizers: ["example.com/keep", "example.com/new"] } },
        { "content-type": "application/merge-patch+json" },
      );
      expect(addFinalizer.status).toBe(422);
      const release = await api.call(
        "PATCH",
        `${CM}/fin`,
        { metadata: { finalizers: null } },
        { "content-type": "application/merge-patch+json" },
      );
      expect(release.status).toBe(200);
      expect((await api.call("GET", `${CM}/fin`)).status).toBe(404);
    });

    it("checks delete preconditions", async () => {
      await api.call("POST", CM, cm("pre"));
      const r = await api.call("DELETE", `${CM}/pre`, { preconditions: { uid: "nope" } });
      expect(r.status).toBe(409);
    });

    async function family(prefix: string): Promise<string> {
      const owner = await api.call("POST", CM, cm(`${prefix}-owner`));
      const ref = {
        apiVersion: "v1",
        kind: "ConfigMap",
        name: `${prefix}-owner`,
        uid: owner.body.metadata.uid,
        blockOwnerDeletion: true,
      };
      for (const i of [1, 2])
        await api.call("POST", CM, cm(`${prefix}-child${i}`, {}, { ownerReferences: [ref] }));
      return owner.body.metadata.uid;
    }

    async function until(check: () => Promise<boolean>): Promise<void> {
      for (let i = 0; i < 200; i++) {
        if (await check()) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error("condition not met");
    }

    it("collects dependents in the background", async () => {
      await family("bg");
      await api.call("DELETE", `${CM}/bg-owner`, { propagationPolicy: "Background" });
      await until(
        async () =>
          (await api.call("GET", `${CM}/bg-child1`)).status === 404 &&
          (await api.call("GET", `${CM}/bg-child2`)).status === 404,
      );
    });

    it("orphans dependents", async () => {
      await family("or");
      await api.call("DELETE", `${CM}/or-owner`, { propagationPolicy: "Orphan" });
      await until(async () => (await api.call("GET", `${CM}/or-owner`)).status === 404);
      const child = await api.call("GET", `${CM}/or-child1`);
      expect(child.status).toBe(200);
      expect(child.body.metadata.ownerReferences ?? []).toEqual([]);
    });

    it("deletes in the foreground: dependents first, then the owner", async () => {
      await family("fg");
      const r = await api.call("DELETE", `${CM}/fg-owner`, { propagationPolicy: "Foreground" });
      expect(r.body.metadata.finalizers).toContain("foregroundDeletion");
      await until(async () => (await api.call("GET", `${CM}/fg-owner`)).status === 404);
      expect((await api.call("GET", `${CM}/fg-child1`)).status).toBe(404);
    });

    it("empties a namespace before removing it, and refuses new content meanwhile", async () => {
      await api.call("POST", "/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "doomed" },
      });
      const ns = await api.call("GET", "/api/v1/namespaces/doomed");
      expect(ns.body.spec).toEqual({ finalizers: ["kubernetes"] });
      expect(ns.body.status).toEqual({ phase: "Active" });
      await api.call(
        "POST",
        "/api/v1/namespaces/doomed/configmaps",
        cm("keep", {}, { finalizers: ["example.com/hold"] }),
      );
      await api.call("POST", "/api/v1/namespaces/doomed/configmaps", cm("plain"));
      const del = await api.call("DELETE", "/api/v1/namespaces/doomed");
      expect(del.body.status).toMatchObject({ phase: "Terminating" });
      const refused = await api.call("POST", "/api/v1/namespaces/doomed/configmaps", cm("late"));
      expect(refused.status).toBe(403);
      await until(
        async () => (await api.call("GET", "/api/v1/namespaces/doomed/configmaps/plain")).status === 404,
      );
      await until(async () => {
        const n = await api.call("GET", "/api/v1/namespaces/doomed");
        const conds =
          (n.body.status as { conditions?: Array<{ type: string; status: string }> }).conditions ?? [];
        return conds.some((c) => c.type === "NamespaceFinalizersRemaining" && c.status === "True");
      });
      await api.call(
        "PATCH",
        "/api/v1/namespaces/doomed/configmaps/keep",
        { metadata: { finalizers: null } },
        { "content-type": "application/merge-patch+json" },
      );
      await until(async () => (await api.call("GET", "/api/v1/namespaces/doomed")).status === 404);
      const missing = await api.call("POST", "/api/v1/namespaces/doomed/configmaps", cm("x"));
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe('namespaces "doomed" not found');
    });
  });

  describe("lists", () => {
    it("pages with limit and continue at a fixed revision, reporting what remains", async () => {
      await api.call("POST", "/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "paging" },
      });
      for (let i = 0; i < 7; i++)
        await api.call(
          "POST",
          "/api/v1/namespaces/paging/configmaps",
          cm(`p${i}`, {}, { labels: { i: String(i), even: String(i % 2 === 0) } }),
        );
      const first = await api.call("GET", "/api/v1/namespaces/paging/configmaps?limit=3");
      expect((first.body.items as unknown[]).length).toBe(3);
      expect(first.body.metadata.remainingItemCount).toBe(4);
      await api.call("POST", "/api/v1/namespaces/paging/configmaps", cm("p9"));
      const names: string[] = (first.body.items as Array<{ metadata: { name: string } }>).map(
        (i) => i.metadata.name,
      );
      let token = (first.body.metadata as { continue?: string }).continue;
      while (token) {
        const page = await api.call(
          "GET",
          `/api/v1/namespaces/paging/configmaps?limit=3&continue=${encodeURIComponent(token)}`,
        );
        names.push(...(page.body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name));
        token = (page.body.metadata as { continue?: string }).continue;
      }
      expect(names).toEqual(["p0", "p1", "p2", "p3", "p4", "p5", "p6"]);
    });

    it("filters by label and field selectors, and rejects bad ones", async () => {
      const even = await api.call(
        "GET",
        "/api/v1/namespaces/paging/configmaps?labelSelector=even%3Dtrue,i%20notin%20(4)",
      );
      expect((even.body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual([
        "p0",
        "p2",
        "p6",
      ]);
      const byName = await api.call(
        "GET",
        "/api/v1/namespaces/paging/configmaps?fieldSelector=metadata.name%3Dp3",
      );
      expect((byName.body.items as unknown[]).length).toBe(1);
      const limited = await api.call(
        "GET",
        "/api/v1/namespaces/paging/configmaps?labelSelector=even%3Dtrue&limit=2",
      );
      expect((limited.body.items as unknown[]).length).toBe(2);
      expect(limited.body.metadata.continue).toBeDefined();
      expect((await api.call("GET", "/api/v1/configmaps?labelSelector=a%20in%20b")).status).toBe(400);
      const badField = await api.call("GET", "/api/v1/configmaps?fieldSelector=spec.nope%3D1");
      expect(badField.status).toBe(400);
      expect(badField.body.message).toBe(
        '"spec.nope" is not a known field selector: only "metadata.name", "metadata.namespace"',
      );
    });

    it("answers 410 with a fresh token when the continue revision is compacted", async () => {
      const first = await api.call("GET", "/api/v1/namespaces/paging/configmaps?limit=2");
      await api.call("POST", "/api/v1/namespaces/paging/configmaps", cm("bump"));
      await api.server.context.store.compact(await api.server.context.store.currentRevision());
      const token = (first.body.metadata as { continue: string }).continue;
      const r = await api.call(
        "GET",
        `/api/v1/namespaces/paging/configmaps?limit=2&continue=${encodeURIComponent(token)}`,
      );
      expect(r.status).toBe(410);
      expect(r.body.reason).toBe("Expired");
      expect(r.body.metadata.continue).toBeDefined();
      const resumed = await api.call(
        "GET",
        `/api/v1/namespaces/paging/configmaps?limit=2&continue=${encodeURIComponent(r.body.metadata.continue as string)}`,
      );
      expect(resumed.status).toBe(200);
    });
  });

  describe("watch", () => {
    it("streams changes after a revision, with selector transitions", async () => {
      await api.call("POST", "/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "watched" },
      });
      const base = "/api/v1/namespaces/watched/configmaps";
      const start = await api.call("GET", base);
      const rv = start.body.metadata.resourceVersion;
      const all = await api.watch(`${base}?watch=true&resourceVersion=${rv}`);
      const selected = await api.watch(`${base}?watch=true&resourceVersion=${rv}&labelSelector=tier%3Dweb`);
      const created = await api.call("POST", base, cm("w1", {}, { labels: { tier: "web" } }));
      await api.call(
        "PATCH",
        `${base}/w1`,
        { metadata: { labels: { tier: "db" } } },
        { "content-type": "application/merge-patch+json" },
      );
      await api.call("DELETE", `${base}/w1`);
      const events = (await all.next(3)) as Array<{
        type: string;
        object: { metadata: { resourceVersion: string } };
      }>;
      expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
      expect(events[0]!.object.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
      const sel = (await selected.next(2)) as Array<{
        type: string;
        object: { metadata: { labels: Record<string, string> } };
      }>;
      expect(sel.map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
      expect(sel[1]!.object.metadata.labels.tier).toBe("web");
      all.stop();
      selected.stop();
    });

    it("starts with the current state for resourceVersion 0", async () => {
      const base = "/api/v1/namespaces/watched/configmaps";
      await api.call("POST", base, cm("w2"));
      const w = await api.watch(`${base}?watch=true&resourceVersion=0&fieldSelector=metadata.name%3Dw2`);
      const events = (await w.next(1)) as Array<{ type: string; object: { metadata: { name: string } } }>;
      expect(events[0]).toMatchObject({ type: "ADDED", object: { metadata: { name: "w2" } } });
      w.stop();
    });

    it("implements watch-list: initial events, then a bookmark marking their end", async () => {
      const base = "/api/v1/namespaces/watched/configmaps";
      const w = await api.watch(
        `${base}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      );
      const events = (await w.next(2)) as Array<{
        type: string;
        object: { metadata: { annotations?: Record<string, string> } };
      }>;
      const bookmark = events.find((e) => e.type === "BOOKMARK");
      expect(bookmark?.object.metadata.annotations).toEqual({ "k8s.io/initial-events-end": "true" });
      expect(events[events.length - 1]!.type).toBe("BOOKMARK");
      w.stop();
      const r = await api.call("GET", `${base}?watch=true&sendInitialEvents=true`);
      expect(r.status).toBe(200);
    });

    it("reports a compacted resourceVersion as 410 Expired", async () => {
      const base = "/api/v1/namespaces/watched/configmaps";
      await api.call("POST", base, cm("w3"));
      await api.server.context.store.compact(await api.server.context.store.currentRevision());
      const w = await api.watch(`${base}?watch=true&resourceVersion=2`);
      const events = (await w.next(1)) as Array<{ type: string; object: { code: number; reason: string } }>;
      expect(events[0]).toMatchObject({ type: "ERROR", object: { code: 410, reason: "Expired" } });
    });
  });

  describe("CRDs at run time", () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        names: {
          kind: "Widget",
          plural: "widgets",
          singular: "widget",
          shortNames: ["wd"],
          listKind: "WidgetList",
        },
        scope: "Namespaced",
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            subresources: { status: {} },
            additionalPrinterColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: {
                    type: "object",
                    required: ["size"],
                    properties: {
                      size: { type: "integer", minimum: 1 },
                      color: { type: "string", enum: ["red", "blue"], default: "red" },
                    },
                  },
                  status: { type: "object", x_unused: undefined, properties: { ready: { type: "boolean" } } },
                },
              },
            },
          },
        ],
      },
    };
    const W = "/apis/example.com/v1/namespaces/default/widgets";

    it("serves a new kind at once, validates and defaults it, and removes its objects with it", async () => {
      const created = await api.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
      expect(created.status).toBe(201);
      const w = await api.call("POST", W, {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "w" },
        spec: { size: 2, extra: 1 },
      });
      expect(w.status).toBe(201);
      expect(w.body.spec).toEqual({ size: 2, color: "red" });
      expect(w.body.metadata.generation).toBe(1);
      const invalid = await api.call("POST", W, {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "bad" },
        spec: { size: 0, color: "green" },
      });
      expect(invalid.status).toBe(422);
      expect(invalid.body.message).toBe(
        'Widget.example.com "bad" is invalid: [spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1, spec.color: Unsupported value: "green": supported values: "red", "blue"]',
      );
      const noRv = await api.call("PUT", `${W}/w`, {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "w" },
        spec: { size: 3 },
      });
      expect(noRv.status).toBe(422);
      const smp = await api.call(
        "PATCH",
        `${W}/w`,
        { spec: { size: 3 } },
        { "content-type": "application/strategic-merge-patch+json" },
      );
      expect(smp.status).toBe(415);
      const disc = await api.call("GET", "/apis/example.com/v1");
      expect(disc.body.resources).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: "widgets", shortNames: ["wd"], kind: "Widget", namespaced: true }),
        ]),
      );
      for (let i = 0; i < 100; i++) {
        const got = await api.call(
          "GET",
          "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com",
        );
        const conds =
          (got.body.status as { conditions?: Array<{ type: string; status: string }> })?.conditions ?? [];
        if (conds.some((c) => c.type === "Established" && c.status === "True")) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await api.call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com");
      for (let i = 0; i < 200; i++) {
        if (
          (
            await api.call(
              "GET",
              "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com",
            )
          ).status === 404
        )
          break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await api.call("GET", W)).status).toBe(404);
      const keys = await api.server.context.store.list("/registry/example.com/widgets/");
      expect(keys.kvs).toEqual([]);
    });
  });

  describe("Karmada kinds", () => {
    it("validates PropagationPolicy enums and required fields like upstream", async () => {
      const PP = "/apis/policy.karmada.io/v1alpha1/namespaces/default/propagationpolicies";
      const bad = await api.call("POST", PP, {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "bad" },
        spec: { conflictResolution: "Sometimes", placement: {} },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.message).toContain(
        'spec.conflictResolution: Unsupported value: "Sometimes": supported values: "Abort", "Overwrite"',
      );
      expect(bad.body.message).toContain("spec.resourceSelectors: Required value");
      const good = await api.call("POST", PP, {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "good" },
        spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }] },
      });
      expect(good.status).toBe(201);
      expect(good.body.spec).toMatchObject({ conflictResolution: "Abort", priority: 0 });
    });
  });

  describe("discovery and OpenAPI", () => {
    it("serves aggregated and legacy discovery", async () => {
      const agg = await api.call("GET", "/apis", undefined, {
        accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
      });
      expect(agg.headers["Content-Type"]).toBe(
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
      );
      const groups = (agg.body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name);
      expect(groups).toEqual(
        expect.arrayContaining(["apps", "policy.karmada.io", "work.karmada.io", "cluster.karmada.io"]),
      );
      const legacy = await api.call("GET", "/apis/policy.karmada.io/v1alpha1");
      const names = (legacy.body.resources as Array<{ name: string; shortNames?: string[] }>).map(
        (r) => `${r.name}:${(r.shortNames ?? []).join(",")}`,
      );
      expect(names).toEqual(
        expect.arrayContaining([
          "propagationpolicies:pp",
          "clusterpropagationpolicies:cpp",
          "overridepolicies:op",
          "clusteroverridepolicies:cop",
        ]),
      );
      const core = await api.call("GET", "/api/v1");
      expect((core.body.resources as Array<{ name: string }>).map((r) => r.name)).toEqual(
        expect.arrayContaining(["pods", "pods/status", "namespaces/finalize"]),
      );
    });

    it("serves OpenAPI v3 with hashed URLs and the fieldValidation parameter", async () => {
      const root = await api.call("GET", "/openapi/v3");
      const paths = root.body.paths as unknown as Record<string, { serverRelativeURL: string }>;
      const url = paths["apis/apps/v1"]!.serverRelativeURL;
      expect(url).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
      const doc = await api.call("GET", url);
      expect(doc.headers["Cache-Control"]).toBe("public, immutable");
      const item = (
        doc.body.paths as unknown as Record<
          string,
          { patch: { parameters: Array<{ name: string }>; "x-kubernetes-group-version-kind": unknown } }
        >
      )["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]!;
      expect(item.patch.parameters.map((p) => p.name)).toContain("fieldValidation");
      expect(item.patch["x-kubernetes-group-version-kind"]).toEqual({
        group: "apps",
        version: "v1",
        kind: "Deployment",
      });
      const stale = await api.call("GET", "/openapi/v3/apis/apps/v1?hash=OLD");
      expect(stale.status).toBe(301);
      expect(stale.headers.Location).toBe(url);
    });
  });
});
