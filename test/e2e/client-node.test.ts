/**
 * A second, independent client suite: @kubernetes/client-node 1.x (node-fetch based, the
 * line that runs on Node 20) against the API server over real loopback HTTP. Typed
 * CoreV1Api/AppsV1Api calls with every patch type, paging, the generic KubernetesObjectApi
 * (per-group-version discovery), Watch, makeInformer/ListWatch and error surfaces.
 *
 * Only client-node's own APIs talk to the server; the harness's store is used directly only
 * to force history compaction.
 */
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  ListWatch,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
  type V1Deployment,
  type V1Status,
  Watch,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestServer, type TestServer } from "../support/kubectl.ts";

/**
 * Loads the harness's kubeconfig. client-node 1.x refuses a plain `http://` server unless the
 * cluster says `insecure-skip-tls-verify: true` ("HTTP protocol is not allowed when
 * skipTLSVerify is not set or false"), which the harness file (written for kubectl) does not
 * set, so the flag is added after loading.
 */
function loadKubeConfig(path: string): KubeConfig {
  const file = new KubeConfig();
  file.loadFromFile(path);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: file.clusters.map((c) => ({ ...c, skipTLSVerify: true })),
    users: file.users,
    contexts: file.contexts,
    currentContext: file.currentContext,
  });
  return kc;
}

/** Awaits a call that must fail with an ApiException; returns it with the Status body parsed. */
async function apiError(call: Promise<unknown>): Promise<{ code: number; status: V1Status }> {
  try {
    await call;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiException);
    const e = err as ApiException<unknown>;
    // client-node 1.x passes the error body through as text.
    const body = typeof e.body === "string" ? (JSON.parse(e.body) as V1Status) : (e.body as V1Status);
    return { code: e.code, status: body };
  }
  throw new Error("expected the call to fail");
}

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const strategic = setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch);
const apply = setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply);

interface WatchEventRecord {
  type: string;
  object: KubernetesObject & { code?: number; reason?: string };
}

interface Watching {
  events: WatchEventRecord[];
  /** Settles with the `done` callback's argument (null for a clean end). */
  done: Promise<unknown>;
  stop(): void;
}

async function startWatch(
  kc: KubeConfig,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
): Promise<Watching> {
  const events: WatchEventRecord[] = [];
  let settle: (err: unknown) => void = () => {};
  const done = new Promise<unknown>((resolve) => {
    settle = resolve;
  });
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object: WatchEventRecord["object"]) => {
      events.push({ type, object });
    },
    (err: unknown) => settle(err),
  );
  return { events, done, stop: () => controller.abort() };
}

const rvOf = (o: KubernetesObject): number => Number(o.metadata?.resourceVersion);

/** `p`, or a rejection after `ms` (the timer is always cleared). */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("@kubernetes/client-node 1.x against the API server", () => {
  let s: TestServer;
  let kc: KubeConfig;
  let core: CoreV1Api;
  let apps: AppsV1Api;

  beforeAll(async () => {
    s = await startTestServer();
    kc = loadKubeConfig(s.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
    for (const name of ["typed", "paging", "generic", "watching", "errors"]) {
      await core.createNamespace({ body: { metadata: { name } } });
    }
  });
  afterAll(async () => {
    await s?.close();
  });

  describe("typed CoreV1Api / AppsV1Api", () => {
    const namespace = "typed";

    it("creates, reads, replaces and deletes a ConfigMap", async () => {
      const created = await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: "cm", labels: { app: "x" } }, data: { a: "1" } },
      });
      expect(created.metadata?.uid).toBeTruthy();
      expect(created.metadata?.namespace).toBe(namespace);
      expect(rvOf(created)).toBeGreaterThan(0);

      const read = await core.readNamespacedConfigMap({ namespace, name: "cm" });
      expect(read.data).toEqual({ a: "1" });
      expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);

      read.data = { a: "2", b: "3" };
      const replaced = await core.replaceNamespacedConfigMap({ namespace, name: "cm", body: read });
      expect(replaced.data).toEqual({ a: "2", b: "3" });
      expect(rvOf(replaced)).toBeGreaterThan(rvOf(created));
      expect(replaced.metadata?.uid).toBe(created.metadata?.uid);

      // A replace carrying the stale resourceVersion loses: 409 Conflict.
      const stale = await apiError(
        core.replaceNamespacedConfigMap({ namespace, name: "cm", body: { ...read, data: { a: "stale" } } }),
      );
      expect(stale.code).toBe(409);
      expect(stale.status.reason).toBe("Conflict");

      const deleted = await core.deleteNamespacedConfigMap({ namespace, name: "cm" });
      expect(deleted).toBeTruthy();
      const gone = await apiError(core.readNamespacedConfigMap({ namespace, name: "cm" }));
      expect(gone.code).toBe(404);
    });

    it("patches with JSON patch (the generated default), merge patch, strategic merge patch and apply", async () => {
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: "p" }, data: { a: "1" } },
      });

      // Without a header option the generated client sends application/json-patch+json.
      const jp = await core.patchNamespacedConfigMap({
        namespace,
        name: "p",
        body: [
          { op: "test", path: "/data/a", value: "1" },
          { op: "add", path: "/data/b", value: "2" },
        ],
      });
      expect(jp.data).toEqual({ a: "1", b: "2" });

      const mp = await core.patchNamespacedConfigMap(
        { namespace, name: "p", body: { data: { a: null, c: "3" }, metadata: { labels: { m: "y" } } } },
        merge,
      );
      expect(mp.data).toEqual({ b: "2", c: "3" });
      expect(mp.metadata?.labels).toEqual({ m: "y" });

      const smp = await core.patchNamespacedConfigMap(
        { namespace, name: "p", body: { data: { d: "4" } } },
        strategic,
      );
      expect(smp.data).toEqual({ b: "2", c: "3", d: "4" });

      // A failing JSON patch test operation is rejected and changes nothing.
      const failed = await apiError(
        core.patchNamespacedConfigMap({
          namespace,
          name: "p",
          body: [{ op: "test", path: "/data/b", value: "no" }],
        }),
      );
      expect(failed.code).toBe(422);
      expect((await core.readNamespacedConfigMap({ namespace, name: "p" })).data).toEqual({
        b: "2",
        c: "3",
        d: "4",
      });

      // Server-side apply creates when absent and updates when present.
      const applied = await core.patchNamespacedConfigMap(
        {
          namespace,
          name: "applied",
          fieldManager: "client-node-test",
          body: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "applied", namespace },
            data: { x: "1" },
          },
        },
        apply,
      );
      expect(applied.data).toEqual({ x: "1" });
      const reapplied = await core.patchNamespacedConfigMap(
        {
          namespace,
          name: "applied",
          fieldManager: "client-node-test",
          force: true,
          body: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "applied", namespace },
            data: { x: "2" },
          },
        },
        apply,
      );
      expect(reapplied.data).toEqual({ x: "2" });
      expect(reapplied.metadata?.uid).toBe(applied.metadata?.uid);

      // Apply without a fieldManager is invalid; force on a non-apply patch too.
      const noManager = await apiError(
        core.patchNamespacedConfigMap(
          {
            namespace,
            name: "applied",
            body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" } },
          },
          apply,
        ),
      );
      expect(noManager.code).toBe(422);
      const forced = await apiError(
        core.patchNamespacedConfigMap({ namespace, name: "applied", force: true, body: { data: {} } }, merge),
      );
      expect(forced.code).toBe(422);
    });

    it("creates, strategic-merge-patches, applies, lists and deletes Deployments", async () => {
      const body: V1Deployment = {
        metadata: { name: "web", labels: { tier: "front" } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: {
              containers: [
                { name: "main", image: "nginx:1", env: [{ name: "A", value: "1" }] },
                { name: "side", image: "busybox:1" },
              ],
            },
          },
        },
      };
      const created = await apps.createNamespacedDeployment({ namespace, body });
      expect(created.metadata?.generation).toBe(1);
      expect(created.spec?.template.spec?.containers.map((c) => c.name)).toEqual(["main", "side"]);

      // Strategic merge: containers merge by name, so the other container and env stay.
      const smp = await apps.patchNamespacedDeployment(
        {
          namespace,
          name: "web",
          body: { spec: { template: { spec: { containers: [{ name: "side", image: "busybox:2" }] } } } },
        },
        strategic,
      );
      const containers = smp.spec?.template.spec?.containers ?? [];
      expect(containers.map((c) => `${c.name}=${c.image}`)).toEqual(["main=nginx:1", "side=busybox:2"]);
      expect(containers[0]?.env).toEqual([{ name: "A", value: "1" }]);
      expect(smp.metadata?.generation).toBe(2);

      // The same body as a JSON merge patch replaces the whole list.
      const mp = await apps.patchNamespacedDeployment(
        {
          namespace,
          name: "web",
          body: { spec: { template: { spec: { containers: [{ name: "only", image: "x:1" }] } } } },
        },
        merge,
      );
      expect(mp.spec?.template.spec?.containers.map((c) => c.name)).toEqual(["only"]);

      const applied = await apps.patchNamespacedDeployment(
        {
          namespace,
          name: "web",
          fieldManager: "client-node-test",
          force: true,
          body: {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "web" },
            spec: { replicas: 5 },
          },
        },
        apply,
      );
      expect(applied.spec?.replicas).toBe(5);

      const fresh = await apps.readNamespacedDeployment({ namespace, name: "web" });
      fresh.spec!.replicas = 3;
      const replaced = await apps.replaceNamespacedDeployment({ namespace, name: "web", body: fresh });
      expect(replaced.spec?.replicas).toBe(3);

      await apps.createNamespacedDeployment({
        namespace,
        body: { ...body, metadata: { name: "api", labels: { tier: "back" } } },
      });
      const front = await apps.listNamespacedDeployment({ namespace, labelSelector: "tier=front" });
      expect(front.items.map((d) => d.metadata?.name)).toEqual(["web"]);
      const all = await apps.listNamespacedDeployment({ namespace });
      expect(all.items.map((d) => d.metadata?.name).sort()).toEqual(["api", "web"]);

      await apps.deleteNamespacedDeployment({ namespace, name: "web" });
      await apps.deleteNamespacedDeployment({ namespace, name: "api" });
      await eventually(
        async () => (await apps.listNamespacedDeployment({ namespace })).items.length === 0,
        "deployments gone",
      );
    });
  });

  describe("lists: selectors and paging", () => {
    const namespace = "paging";
    const names = Array.from({ length: 25 }, (_, i) => `cm-${String(i).padStart(2, "0")}`);

    beforeAll(async () => {
      for (const [i, name] of names.entries()) {
        await core.createNamespacedConfigMap({
          namespace,
          body: { metadata: { name, labels: { parity: i % 2 === 0 ? "even" : "odd", index: String(i) } } },
        });
      }
    });

    it("filters with labelSelector and fieldSelector", async () => {
      const even = await core.listNamespacedConfigMap({ namespace, labelSelector: "parity=even" });
      expect(even.items).toHaveLength(13);
      expect(even.items.every((c) => c.metadata?.labels?.parity === "even")).toBe(true);

      const set = await core.listNamespacedConfigMap({
        namespace,
        labelSelector: "index in (1,2,3),parity!=odd",
      });
      expect(set.items.map((c) => c.metadata?.name)).toEqual(["cm-02"]);

      const one = await core.listNamespacedConfigMap({ namespace, fieldSelector: "metadata.name=cm-07" });
      expect(one.items.map((c) => c.metadata?.name)).toEqual(["cm-07"]);

      const notOne = await core.listNamespacedConfigMap({
        namespace,
        fieldSelector: "metadata.name!=cm-07",
        labelSelector: "parity=odd",
      });
      expect(notOne.items).toHaveLength(11);

      // Across namespaces with a namespace field selector.
      const cluster = await core.listConfigMapForAllNamespaces({
        fieldSelector: `metadata.namespace=${namespace}`,
      });
      expect(cluster.items).toHaveLength(25);

      const bad = await apiError(core.listNamespacedConfigMap({ namespace, fieldSelector: "data.x=1" }));
      expect(bad.code).toBe(400);
      const badLabel = await apiError(core.listNamespacedConfigMap({ namespace, labelSelector: "a=(b" }));
      expect(badLabel.code).toBe(400);
    });

    it("pages with limit and _continue: every object once, a consistent snapshot while others write", async () => {
      const seen: string[] = [];
      const pageSizes: number[] = [];
      let token: string | undefined;
      let firstRv: string | undefined;
      let page = 0;
      do {
        const list = await core.listNamespacedConfigMap({
          namespace,
          limit: 10,
          ...(token && { _continue: token }),
        });
        pageSizes.push(list.items.length);
        seen.push(...list.items.map((c) => c.metadata!.name!));
        firstRv ??= list.metadata?.resourceVersion;
        // Every page is served at the revision of the first one.
        expect(list.metadata?.resourceVersion).toBe(firstRv);
        token = list.metadata?._continue || undefined;
        if (token) expect(list.metadata?.remainingItemCount).toBe(25 - seen.length);
        if (page === 0) {
          // Writes between pages: a new object sorting into the unread range, one after
          // everything, and a deletion of an unread one. The pages keep showing the snapshot.
          await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "cm-15x" } } });
          await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "cm-99" } } });
          await core.deleteNamespacedConfigMap({ namespace, name: "cm-20" });
        }
        page++;
      } while (token && page < 10);
      expect(pageSizes).toEqual([10, 10, 5]);
      expect(seen).toEqual(names);
      expect(new Set(seen).size).toBe(25);

      const now = await core.listNamespacedConfigMap({ namespace });
      const current = now.items.map((c) => c.metadata?.name);
      expect(current).toContain("cm-15x");
      expect(current).toContain("cm-99");
      expect(current).not.toContain("cm-20");
      expect(current).toHaveLength(26);

      const invalidToken = await apiError(
        core.listNamespacedConfigMap({ namespace, limit: 10, _continue: "%%%" }),
      );
      expect(invalidToken.code).toBe(400);
    });
  });

  describe("KubernetesObjectApi (generic, discovery-driven)", () => {
    let objects: KubernetesObjectApi;
    beforeAll(() => {
      objects = KubernetesObjectApi.makeApiClient(kc);
    });

    it("creates, reads, patches, lists and deletes a built-in object", async () => {
      const spec = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "generic-cm", namespace: "generic" },
        data: { a: "1" },
      };
      const created = await objects.create<KubernetesObject & { data?: Record<string, string> }>(spec);
      expect(created.kind).toBe("ConfigMap");
      expect(created.data).toEqual({ a: "1" });

      const header = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "generic-cm", namespace: "generic" },
      };
      const read = await objects.read<KubernetesObject & { data?: Record<string, string> }>(header);
      expect(read.metadata?.uid).toBe(created.metadata?.uid);

      // KubernetesObjectApi.patch defaults to strategic merge patch, fine for built-ins.
      const patched = await objects.patch<KubernetesObject & { data?: Record<string, string> }>({
        ...header,
        data: { b: "2" },
      });
      expect(patched.data).toEqual({ a: "1", b: "2" });

      const applied = await objects.patch<KubernetesObject & { data?: Record<string, string> }>(
        { ...header, data: { a: "applied" } },
        undefined,
        undefined,
        "generic-test",
        true,
        PatchStrategy.ServerSideApply,
      );
      expect(applied.data?.a).toBe("applied");

      const deployment = await objects.create({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "generic-dep", namespace: "generic" },
        spec: {
          selector: { matchLabels: { app: "g" } },
          template: { metadata: { labels: { app: "g" } }, spec: { containers: [{ name: "c", image: "x" }] } },
        },
      } as KubernetesObject);
      expect(deployment.kind).toBe("Deployment");

      const list = await objects.list("v1", "ConfigMap", "generic");
      expect(list.items.map((o) => o.metadata?.name)).toContain("generic-cm");
      // A cluster-scoped kind: discovery says so, the path has no namespace.
      const nsList = await objects.list("v1", "Namespace");
      expect(nsList.items.map((o) => o.metadata?.name)).toContain("generic");

      await objects.delete(header);
      await objects.delete({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "generic-dep", namespace: "generic" },
      });
      expect((await apiError(objects.read(header))).code).toBe(404);
    });

    it("creates, reads, patches and deletes Karmada policies (policy.karmada.io/v1alpha1)", async () => {
      type Policy = KubernetesObject & {
        spec: {
          resourceSelectors: Array<{ apiVersion: string; kind: string; name?: string }>;
          placement?: { clusterAffinity?: { clusterNames?: string[] } };
          priority?: number;
        };
      };
      const policy: Policy = {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "nginx-pp", namespace: "generic" },
        spec: {
          resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }],
          placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } },
        },
      };
      const created = await objects.create(policy);
      expect(created.kind).toBe("PropagationPolicy");
      expect(created.apiVersion).toBe("policy.karmada.io/v1alpha1");
      expect(created.metadata?.uid).toBeTruthy();

      const header = {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "nginx-pp", namespace: "generic" },
      };
      const read = await objects.read<Policy>(header);
      expect(read.spec.placement?.clusterAffinity?.clusterNames).toEqual(["member1", "member2"]);

      // Custom resources take no strategic merge patch (KubernetesObjectApi's default): 415.
      const smp = await apiError(objects.patch({ ...header, spec: { priority: 5 } }));
      expect(smp.code).toBe(415);
      expect(smp.status.reason).toBe("UnsupportedMediaType");

      const patched = await objects.patch<Policy>(
        {
          ...header,
          spec: { priority: 5, placement: { clusterAffinity: { clusterNames: ["member3"] } } },
        } as Policy,
        undefined,
        undefined,
        undefined,
        undefined,
        PatchStrategy.MergePatch,
      );
      expect(patched.spec.priority).toBe(5);
      expect(patched.spec.placement?.clusterAffinity?.clusterNames).toEqual(["member3"]);
      // Karmada's mutating admission fills each selector's namespace with the policy's.
      expect(patched.spec.resourceSelectors).toEqual(
        policy.spec.resourceSelectors.map((sel) => ({ ...sel, namespace: "generic" })),
      );

      // Cluster-scoped sibling: no namespace in the path.
      const cpp = await objects.create<Policy>({
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "ClusterPropagationPolicy",
        metadata: { name: "cluster-pp" },
        spec: { resourceSelectors: [{ apiVersion: "v1", kind: "Namespace", name: "generic" }] },
      });
      expect(cpp.metadata?.namespace).toBeUndefined();

      const list = await objects.list<Policy>("policy.karmada.io/v1alpha1", "PropagationPolicy", "generic");
      expect(list.items.map((p) => p.metadata?.name)).toEqual(["nginx-pp"]);

      await objects.delete(header);
      await objects.delete({
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "ClusterPropagationPolicy",
        metadata: { name: "cluster-pp" },
      });
      const gone = await apiError(objects.read(header));
      expect(gone.code).toBe(404);
      expect(gone.status.reason).toBe("NotFound");
      expect(gone.status.details?.group).toBe("policy.karmada.io");
    });
  });

  describe("Watch", () => {
    const namespace = "watching";
    const path = `/api/v1/namespaces/${namespace}/configmaps`;

    it("streams ADDED, MODIFIED, DELETED in order with increasing resourceVersions", async () => {
      const rv = (await core.listNamespacedConfigMap({ namespace })).metadata!.resourceVersion!;
      const w = await startWatch(kc, path, { resourceVersion: rv });
      try {
        const created = await core.createNamespacedConfigMap({
          namespace,
          body: { metadata: { name: "w1" } },
        });
        const patched = await core.patchNamespacedConfigMap(
          { namespace, name: "w1", body: { data: { a: "1" } } },
          merge,
        );
        await core.deleteNamespacedConfigMap({ namespace, name: "w1" });
        await eventually(async () => w.events.length >= 3, "three watch events");
        expect(w.events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
        expect(w.events.map((e) => e.object.metadata?.name)).toEqual(["w1", "w1", "w1"]);
        const rvs = w.events.map((e) => rvOf(e.object));
        expect(rvs[0]).toBe(rvOf(created));
        expect(rvs[1]).toBe(rvOf(patched));
        expect(rvs[0]!).toBeGreaterThan(Number(rv));
        expect(rvs[1]!).toBeGreaterThan(rvs[0]!);
        expect(rvs[2]!).toBeGreaterThan(rvs[1]!);
        // DELETED carries the last state of the object.
        expect((w.events[2]!.object as V1ConfigMap).data).toEqual({ a: "1" });
      } finally {
        w.stop();
        await within(w.done, 10_000, "the watch to close");
      }
    });

    it("starts with synthetic ADDED events when no resourceVersion is given", async () => {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "pre-1" } } });
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "pre-2" } } });
      const w = await startWatch(kc, path, {});
      try {
        await eventually(async () => w.events.length >= 2, "initial events");
        expect(w.events.map((e) => `${e.type} ${e.object.metadata?.name}`).sort()).toEqual([
          "ADDED pre-1",
          "ADDED pre-2",
        ]);
        await core.deleteNamespacedConfigMap({ namespace, name: "pre-1" });
        await eventually(async () => w.events.length >= 3, "the deletion");
        expect(w.events[2]?.type).toBe("DELETED");
      } finally {
        w.stop();
        await within(w.done, 10_000, "the watch to close");
        await core.deleteNamespacedConfigMap({ namespace, name: "pre-2" });
      }
    });

    it("a label-selector watch sees DELETED when an object stops matching and ADDED when it matches again", async () => {
      const rv = (await core.listNamespacedConfigMap({ namespace })).metadata!.resourceVersion!;
      const w = await startWatch(kc, path, { resourceVersion: rv, labelSelector: "team=blue" });
      try {
        await core.createNamespacedConfigMap({
          namespace,
          body: { metadata: { name: "other", labels: { team: "red" } } },
        });
        await core.createNamespacedConfigMap({
          namespace,
          body: { metadata: { name: "sel", labels: { team: "blue" } } },
        });
        const moved = await core.patchNamespacedConfigMap(
          { namespace, name: "sel", body: { metadata: { labels: { team: "red" } } } },
          merge,
        );
        await core.patchNamespacedConfigMap(
          { namespace, name: "sel", body: { data: { ignored: "yes" } } },
          merge,
        );
        const back = await core.patchNamespacedConfigMap(
          { namespace, name: "sel", body: { metadata: { labels: { team: "blue" } } } },
          merge,
        );
        await core.deleteNamespacedConfigMap({ namespace, name: "sel" });
        await eventually(async () => w.events.length >= 4, "four selected events");
        expect(w.events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual([
          "ADDED sel",
          "DELETED sel",
          "ADDED sel",
          "DELETED sel",
        ]);
        // Leaving the selection: the previous (matching) content at the new resourceVersion.
        const left = w.events[1]!.object;
        expect(left.metadata?.labels).toEqual({ team: "blue" });
        expect(rvOf(left)).toBe(rvOf(moved));
        expect(rvOf(w.events[2]!.object)).toBe(rvOf(back));
        expect((w.events[2]!.object as V1ConfigMap).data).toEqual({ ignored: "yes" });
      } finally {
        w.stop();
        await within(w.done, 10_000, "the watch to close");
        await core.deleteNamespacedConfigMap({ namespace, name: "other" });
      }
    });

    it("a field-selector watch follows one object", async () => {
      const rv = (await core.listNamespacedConfigMap({ namespace })).metadata!.resourceVersion!;
      const w = await startWatch(kc, path, { resourceVersion: rv, fieldSelector: "metadata.name=one" });
      try {
        await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "two" } } });
        await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "one" } } });
        await core.deleteNamespacedConfigMap({ namespace, name: "two" });
        await core.deleteNamespacedConfigMap({ namespace, name: "one" });
        await eventually(async () => w.events.length >= 2, "events for one");
        expect(w.events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual([
          "ADDED one",
          "DELETED one",
        ]);
      } finally {
        w.stop();
        await within(w.done, 10_000, "the watch to close");
      }
    });

    it("a watch from a compacted resourceVersion gets HTTP 200 and one ERROR event with code 410, then ends", async () => {
      const first = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "old" } } });
      await core.patchNamespacedConfigMap({ namespace, name: "old", body: { data: { v: "2" } } }, merge);
      await s.store.compact(await s.store.currentRevision());
      const w = await startWatch(kc, path, { resourceVersion: first.metadata!.resourceVersion! });
      // Our server answers 200 and streams the error, as kube-apiserver's watch cache does;
      // client-node hands the Status to the event callback and then calls done(null).
      // (An HTTP 410 would instead reach `done` as an Error with statusCode 410.)
      const doneErr = await within(w.done, 10_000, "the watch to end");
      expect(doneErr).toBeNull();
      expect(w.events).toHaveLength(1);
      const [event] = w.events;
      expect(event?.type).toBe("ERROR");
      expect(event?.object.kind).toBe("Status");
      expect(event?.object.code).toBe(410);
      expect(event?.object.reason).toBe("Expired");
      await core.deleteNamespacedConfigMap({ namespace, name: "old" });
    });
  });

  describe("errors as ApiException", () => {
    const namespace = "errors";

    it("404 on read carries a NotFound Status", async () => {
      const e = await apiError(core.readNamespacedConfigMap({ namespace, name: "missing" }));
      expect(e.code).toBe(404);
      expect(e.status.kind).toBe("Status");
      expect(e.status.status).toBe("Failure");
      expect(e.status.reason).toBe("NotFound");
      expect(e.status.code).toBe(404);
      expect(e.status.message).toBe('configmaps "missing" not found');
      expect(e.status.details).toMatchObject({ name: "missing", kind: "configmaps" });

      const dep = await apiError(apps.readNamespacedDeployment({ namespace, name: "missing" }));
      expect(dep.status.message).toBe('deployments.apps "missing" not found');
      expect(dep.status.details?.group).toBe("apps");

      const del = await apiError(core.deleteNamespacedConfigMap({ namespace, name: "missing" }));
      expect(del.code).toBe(404);
    });

    it("409 AlreadyExists on a second create", async () => {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "dup" } } });
      const e = await apiError(
        core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "dup" } } }),
      );
      expect(e.code).toBe(409);
      expect(e.status.reason).toBe("AlreadyExists");
      expect(e.status.message).toBe('configmaps "dup" already exists');
    });

    it("422 Invalid with details.causes", async () => {
      const e = await apiError(
        core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "Bad_Name" } } }),
      );
      expect(e.code).toBe(422);
      expect(e.status.reason).toBe("Invalid");
      expect(e.status.details?.kind).toBe("ConfigMap");
      expect(e.status.details?.name).toBe("Bad_Name");
      const causes = e.status.details?.causes ?? [];
      expect(causes.length).toBeGreaterThan(0);
      expect(causes[0]).toMatchObject({ reason: "FieldValueInvalid", field: "metadata.name" });
    });

    it("422 Invalid for a Deployment spec that breaks the kind's own rules", async () => {
      const dep = await apiError(
        apps.createNamespacedDeployment({
          namespace,
          body: {
            metadata: { name: "bad" },
            spec: {
              replicas: -1,
              selector: { matchLabels: { app: "a" } },
              template: { metadata: { labels: { app: "b" } }, spec: { containers: [] } },
            },
          },
        }),
      );
      expect(dep.code).toBe(422);
      expect(dep.status.details?.kind).toBe("Deployment");
      const fields = (dep.status.details?.causes ?? []).map((c) => c.field);
      expect(fields).toContain("spec.replicas");
    });

    it("404 for a namespace that does not exist, on create", async () => {
      const e = await apiError(
        core.createNamespacedConfigMap({ namespace: "nowhere", body: { metadata: { name: "x" } } }),
      );
      expect(e.code).toBe(404);
      expect(e.status.reason).toBe("NotFound");
    });
  });
});

describe("@kubernetes/client-node informer (makeInformer / ListWatch)", () => {
  let s: TestServer;
  let kc: KubeConfig;
  let core: CoreV1Api;
  const namespace = "informed";

  beforeAll(async () => {
    // Watches on this server end after 1–2 s (the server's own request timeout; client-node
    // sends no timeoutSeconds), so the informer re-watches regularly, as it would against a
    // real kube-apiserver after 30–60 min.
    s = await startTestServer({ server: { watch: { minRequestTimeoutSeconds: 1 } } });
    kc = loadKubeConfig(s.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespace({ body: { metadata: { name: "elsewhere" } } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("lists, follows add/update/delete, and relists after a 410 from compacted history", async () => {
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "a0" }, data: { v: "0" } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "a1" }, data: { v: "0" } } });

    let lists = 0;
    const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace });
    });
    expect(informer).toBeInstanceOf(ListWatch);
    const cache = informer as ListWatch<V1ConfigMap>;
    const added: string[] = [];
    const updated: string[] = [];
    const deleted: string[] = [];
    const errors: unknown[] = [];
    let stopped = false;
    informer.on("add", (o) => added.push(o.metadata!.name!));
    informer.on("update", (o) => updated.push(`${o.metadata!.name!}=${o.data?.v}`));
    informer.on("delete", (o) => deleted.push(o.metadata!.name!));
    // Stopping aborts the watch request, which client-node reports as an error: ignore those.
    informer.on("error", (err) => {
      if (!stopped) errors.push(err);
    });
    const names = (): string[] =>
      cache
        .list(namespace)
        .map((o) => o.metadata!.name!)
        .sort();

    await informer.start();
    try {
      // The initial list populates the cache (and fires add for each item).
      expect(lists).toBe(1);
      expect(names()).toEqual(["a0", "a1"]);
      expect(added.sort()).toEqual(["a0", "a1"]);

      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: "a2" }, data: { v: "0" } },
      });
      await eventually(async () => added.includes("a2"), "add callback for a2");
      await core.patchNamespacedConfigMap({ namespace, name: "a0", body: { data: { v: "1" } } }, merge);
      await eventually(async () => updated.includes("a0=1"), "update callback for a0");
      await core.deleteNamespacedConfigMap({ namespace, name: "a1" });
      await eventually(async () => deleted.includes("a1"), "delete callback for a1");
      await eventually(
        async () => names().join() === "a0,a2" && cache.get("a0", namespace)?.data?.v === "1",
        "cache",
      );

      // Forcing a relist, deterministically: client-node re-watches from the resourceVersion
      // it remembers when a watch ends (1.1.2 keeps the list's resourceVersion: it reads
      // `metadata` off the event envelope instead of the object). Whatever it remembers is at
      // most the revision of the last change in this namespace. A write elsewhere moves the
      // store's revision past that; compacting at the new revision makes every revision the
      // informer can hold too old. The server then ends the informer's current watch at its
      // timeout (1–2 s here), the re-watch gets the ERROR event with code 410, client-node
      // clears its resourceVersion and lists again. (Cutting the connection instead is no
      // way to trigger this: node-fetch reports an abrupt close as "Premature close", which
      // ListWatch treats as a terminal error: it calls the error callbacks and stops.)
      await core.createNamespacedConfigMap({ namespace: "elsewhere", body: { metadata: { name: "bump" } } });
      const compactedAt = await s.store.currentRevision();
      await s.store.compact(compactedAt);
      const listsBefore = lists;
      await eventually(async () => lists > listsBefore, "a relist after 410", 200, 50);
      // `lists` counts when the list starts; its result lands in the cache a moment later.
      await eventually(
        async () => Number(cache.latestResourceVersion()) >= compactedAt,
        "the relist's resourceVersion in the cache",
        200,
        50,
      );
      expect(names()).toEqual(["a0", "a2"]);

      // And it keeps following changes after the relist.
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: "a3" }, data: { v: "0" } },
      });
      await eventually(async () => names().join() === "a0,a2,a3", "a3 in the cache after the relist");
      await core.deleteNamespacedConfigMap({ namespace, name: "a2" });
      await eventually(async () => names().join() === "a0,a3", "a2 gone from the cache after the relist");
      expect(errors).toEqual([]);
    } finally {
      stopped = true;
      await informer.stop();
    }
  });

  it("a label-selected informer drops objects that stop matching", async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: "l1", labels: { pick: "yes" } } },
    });
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: "l2", labels: { pick: "no" } } },
    });
    const informer = makeInformer<V1ConfigMap>(
      kc,
      `/api/v1/namespaces/${namespace}/configmaps`,
      () => core.listNamespacedConfigMap({ namespace, labelSelector: "pick=yes" }),
      "pick=yes",
    ) as ListWatch<V1ConfigMap>;
    const deleted: string[] = [];
    informer.on("delete", (o) => deleted.push(o.metadata!.name!));
    let stopped = false;
    const errors: unknown[] = [];
    informer.on("error", (err) => {
      if (!stopped) errors.push(err);
    });
    await informer.start();
    try {
      expect(informer.list(namespace).map((o) => o.metadata?.name)).toEqual(["l1"]);
      await core.patchNamespacedConfigMap(
        { namespace, name: "l1", body: { metadata: { labels: { pick: "no" } } } },
        merge,
      );
      await eventually(async () => deleted.includes("l1"), "l1 leaves the selection");
      expect(informer.list(namespace)).toEqual([]);
      await core.patchNamespacedConfigMap(
        { namespace, name: "l2", body: { metadata: { labels: { pick: "yes" } } } },
        merge,
      );
      await eventually(async () => informer.get("l2", namespace) !== undefined, "l2 enters the selection");
      expect(errors).toEqual([]);
    } finally {
      stopped = true;
      await informer.stop();
    }
  });
});
