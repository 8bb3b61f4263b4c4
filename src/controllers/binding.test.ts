/**
 * The binding controller, one reconcile at a time: given a binding with target clusters and
 * its template, the Works it writes (one per cluster, upstream's names, labels and
 * annotations, the cluster's share of replicas, overrides applied), the Works it deletes, and
 * how a binding being deleted loses its Works before its finalizer.
 */
import { describe, expect, it } from "vitest";
import { createCluster, type ReconcileFixture, withReconcileFixture } from "../../test/support/reconcile.ts";
import { isObject, type KubeObject, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { ANNOTATION, FINALIZER, LABEL, workName } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { BindingSpec, OverrideSpec } from "../karmada/types.ts";
import { isNotFound } from "../machinery/errors.ts";
import type { ReconcileResult } from "../runtime/controller.ts";
import { bindingController } from "./binding.ts";

const KEY = "default/nginx-deployment";
const WORK = workName("Deployment", "nginx", "default");

function deployment(opts: { replicas?: number; annotations?: Record<string, string> } = {}): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "nginx",
      namespace: "default",
      labels: { app: "nginx" },
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
    },
    spec: {
      replicas: opts.replicas ?? 3,
      selector: { matchLabels: { app: "nginx" } },
      template: {
        metadata: { labels: { app: "nginx" } },
        spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
      },
    },
  };
}

function binding(template: StoredObject, spec: Partial<BindingSpec>, finalizer = false): KubeObject {
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: {
      name: "nginx-deployment",
      namespace: "default",
      labels: { [LABEL.ppPermanentId]: "pp-id" },
      ...(finalizer ? { finalizers: [FINALIZER.binding] } : {}),
    },
    spec: {
      resource: {
        apiVersion: template.apiVersion,
        kind: template.kind,
        namespace: "default",
        name: template.metadata.name,
        uid: template.metadata.uid,
        resourceVersion: template.metadata.resourceVersion,
      },
      replicas: 3,
      ...spec,
    },
  };
}

function overridePolicy(name: string, cluster: string, spec: Partial<OverrideSpec> = {}): KubeObject {
  return {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "OverridePolicy",
    metadata: { name, namespace: "default" },
    spec: {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }],
      overrideRules: [
        {
          targetCluster: { clusterNames: [cluster] },
          overriders: { imageOverrider: [{ component: "Tag", operator: "replace", value: "1.28" }] },
        },
      ],
      ...spec,
    },
  };
}

function clusterOverridePolicy(name: string, cluster: string): KubeObject {
  return {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "ClusterOverridePolicy",
    metadata: { name },
    spec: {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }],
      overrideRules: [
        {
          targetCluster: { clusterNames: [cluster] },
          overriders: {
            labelsOverrider: [{ operator: "add", value: { tier: "cluster-wide" } }],
          },
        },
      ],
    },
  };
}

const on = (...clusters: Array<[string, number]>) => clusters.map(([name, replicas]) => ({ name, replicas }));

type Manifest = KubeObject & {
  spec: { replicas?: number; template: { spec: { containers: Array<{ image: string }> } } };
};
const manifestOf = (w: StoredObject): Manifest =>
  ((w.spec as { workload: { manifests: unknown[] } }).workload.manifests[0] ?? {}) as Manifest;

/** What a cluster's Work should look like; `deleting`: deleted (its execution finalizer keeps it). */
interface WorkWant {
  replicas?: number;
  image?: string;
  deleting?: boolean;
  spec?: Record<string, unknown>;
  /** Work annotations that must be there (value) or not (null). */
  annotations?: Record<string, string | null>;
  /** Labels on the manifest that must be there. */
  manifestLabels?: Record<string, string>;
}

interface Case {
  name: string;
  template?: KubeObject;
  spec: Partial<BindingSpec>;
  /** Created before the reconcile (override policies). */
  given?: KubeObject[];
  /** Reconcile once, then do this, then reconcile again (the case asserts on the second). */
  change?: (f: ReconcileFixture) => Promise<void>;
  result?: ReconcileResult;
  /** Every Work in an execution space afterwards, by cluster. */
  works: Record<string, WorkWant>;
  events: string[];
}

const SYNCED = [
  "ResourceBinding/default/nginx-deployment: SyncWorkSucceed",
  "Deployment/default/nginx: SyncWorkSucceed",
];

const cases: Case[] = [
  {
    name: "one Work per target cluster, each with its share of the replicas",
    spec: { clusters: on(["member1", 2], ["member2", 1]) },
    works: { member1: { replicas: 2, image: "nginx:1.27" }, member2: { replicas: 1, image: "nginx:1.27" } },
    events: SYNCED,
  },
  {
    name: "a non-workload binding (no replicas) keeps the template's replicas",
    spec: { replicas: 0, clusters: [{ name: "member1" }, { name: "member2" }] },
    works: { member1: { replicas: 3 }, member2: { replicas: 3 } },
    events: SYNCED,
  },
  {
    name: "an OverridePolicy tailors only its cluster's copy, and the Work records it",
    given: [overridePolicy("nginx-op", "member1")],
    spec: { clusters: on(["member1", 1], ["member2", 2]) },
    works: {
      member1: {
        image: "nginx:1.28",
        annotations: {
          [ANNOTATION.appliedOverrides]: expect.stringContaining(
            '"policyName":"nginx-op"',
          ) as unknown as string,
        },
      },
      member2: { image: "nginx:1.27", annotations: { [ANNOTATION.appliedOverrides]: null } },
    },
    events: SYNCED,
  },
  {
    name: "a ClusterOverridePolicy applies too, recorded apart",
    given: [clusterOverridePolicy("tiers", "member2")],
    spec: { clusters: on(["member1", 1], ["member2", 2]) },
    works: {
      member1: { annotations: { [ANNOTATION.appliedClusterOverrides]: null } },
      member2: {
        manifestLabels: { tier: "cluster-wide" },
        annotations: {
          [ANNOTATION.appliedClusterOverrides]: expect.stringContaining(
            '"policyName":"tiers"',
          ) as unknown as string,
        },
      },
    },
    events: SYNCED,
  },
  {
    name: "conflict resolution: the binding's Overwrite, unless the template's annotation says otherwise",
    template: deployment({ annotations: { [ANNOTATION.conflictResolution]: "abort" } }),
    spec: { conflictResolution: "Overwrite", clusters: on(["member1", 3]) },
    works: { member1: { annotations: { [ANNOTATION.conflictResolution]: "abort" } } },
    events: SYNCED,
  },
  {
    name: "dispatching suspended on one cluster, resources preserved on deletion",
    spec: {
      clusters: on(["member1", 1], ["member2", 2]),
      suspension: { dispatchingOnClusters: { clusterNames: ["member2"] } },
      preserveResourcesOnDeletion: true,
    },
    works: {
      member1: { spec: { preserveResourcesOnDeletion: true } },
      member2: { spec: { suspendDispatching: true, preserveResourcesOnDeletion: true } },
    },
    events: SYNCED,
  },
  {
    name: "clusters of the bindings that require this one get Works too",
    spec: {
      clusters: on(["member1", 3]),
      requiredBy: [{ namespace: "default", name: "app-deployment", clusters: on(["member2", 1]) }],
    },
    works: { member1: { replicas: 3 }, member2: { replicas: 1 } },
    events: SYNCED,
  },
  {
    name: "a cluster no longer targeted loses its Work",
    spec: { clusters: on(["member1", 2], ["member2", 1]) },
    async change(f) {
      await f.client.patch(KARMADA.resourceBindings, "default", "nginx-deployment", "merge", {
        spec: { clusters: on(["member1", 3]) },
      });
    },
    works: { member1: { replicas: 3 }, member2: { deleting: true } },
    events: SYNCED,
  },
  {
    name: "a cluster evicted gracefully keeps its copy until the task ends",
    spec: { clusters: on(["member1", 3]) },
    async change(f) {
      await f.client.patch(KARMADA.resourceBindings, "default", "nginx-deployment", "merge", {
        spec: {
          clusters: on(["member2", 3]),
          gracefulEvictionTasks: [
            { fromCluster: "member1", reason: "TaintUntolerated", producer: "TaintManager" },
          ],
        },
      });
    },
    works: { member1: { replicas: 3 }, member2: { replicas: 3 } },
    events: SYNCED,
  },
  {
    name: "a copy purged directly goes before the new ones are written",
    spec: { clusters: on(["member1", 3]) },
    async change(f) {
      await f.client.patch(KARMADA.resourceBindings, "default", "nginx-deployment", "merge", {
        spec: {
          clusters: on(["member2", 3]),
          gracefulEvictionTasks: [
            { fromCluster: "member1", reason: "ApplicationFailure", producer: "x", purgeMode: "Directly" },
          ],
        },
      });
    },
    result: { requeueAfterMs: 500 },
    works: { member1: { deleting: true } },
    events: SYNCED,
  },
  {
    name: "a template change reaches the Works, which keep their permanent ids",
    spec: { clusters: on(["member1", 3]) },
    async change(f) {
      await f.client.patch(RESOURCES.deployments, "default", "nginx", "merge", {
        spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.29" }] } } },
      });
    },
    works: { member1: { image: "nginx:1.29" } },
    events: SYNCED,
  },
  {
    name: "a binding whose template is gone writes nothing",
    spec: { clusters: on(["member1", 3]) },
    async change(f) {
      await f.client.delete(KARMADA.works, "karmada-es-member1", WORK);
      await f.client.delete(RESOURCES.deployments, "default", "nginx");
    },
    works: { member1: { deleting: true } },
    events: SYNCED,
  },
];

/** Every Work in the execution spaces, by cluster. */
async function worksByCluster(f: ReconcileFixture): Promise<Map<string, StoredObject>> {
  const list = await f.client.list(KARMADA.works, undefined);
  return new Map(list.items.map((w) => [w.metadata.namespace!.replace("karmada-es-", ""), w]));
}

function checkWork(w: StoredObject, want: WorkWant, b: StoredObject, template: StoredObject): void {
  expect(w.metadata.name).toBe(WORK);
  expect(w.metadata.deletionTimestamp !== undefined).toBe(want.deleting ?? false);
  if (want.deleting) return;
  const rbId = b.metadata.labels?.[LABEL.rbPermanentId];
  const workId = w.metadata.labels?.[LABEL.workPermanentId];
  expect(rbId).toBeTruthy();
  expect(workId).toBeTruthy();
  expect(w.metadata.labels).toEqual({ [LABEL.rbPermanentId]: rbId, [LABEL.workPermanentId]: workId });
  expect(w.metadata.finalizers).toEqual([FINALIZER.execution]);
  expect(w.metadata.annotations).toMatchObject({
    [ANNOTATION.rbNamespace]: "default",
    [ANNOTATION.rbName]: "nginx-deployment",
    [ANNOTATION.conflictResolution]: "abort",
    ...Object.fromEntries(Object.entries(want.annotations ?? {}).filter(([, v]) => v !== null)),
  });
  for (const [k, v] of Object.entries(want.annotations ?? {}))
    if (v === null) expect(w.metadata.annotations).not.toHaveProperty([k]);
  const m = manifestOf(w);
  expect(m.metadata?.labels).toMatchObject({
    app: "nginx",
    [LABEL.rbPermanentId]: rbId,
    [LABEL.workPermanentId]: workId,
    [LABEL.managed]: "true",
    ...want.manifestLabels,
  });
  expect(m.metadata?.annotations).toMatchObject({
    [ANNOTATION.templateUid]: template.metadata.uid,
    [ANNOTATION.workName]: WORK,
    [ANNOTATION.workNamespace]: w.metadata.namespace,
    [ANNOTATION.rbName]: "nginx-deployment",
  });
  if (want.replicas !== undefined) expect(m.spec.replicas).toBe(want.replicas);
  if (want.image) expect(m.spec.template.spec.containers[0]?.image).toBe(want.image);
  if (want.spec) expect(w.spec).toMatchObject(want.spec);
  else expect(Object.keys(w.spec as object)).toEqual(["workload"]);
}

describe.concurrent("binding controller reconcile", () => {
  for (const c of cases) {
    it(c.name, () =>
      withReconcileFixture(
        (ctx) => bindingController(ctx, ctx.interpreter, false),
        {},
        async (f) => {
          await createCluster(f.client, "member1");
          await createCluster(f.client, "member2");
          for (const o of c.given ?? [])
            await f.client.create(
              o.kind === "OverridePolicy" ? KARMADA.overridePolicies : KARMADA.clusterOverridePolicies,
              o,
            );
          const template = await f.client.create(RESOURCES.deployments, c.template ?? deployment());
          const b = await f.client.create(KARMADA.resourceBindings, binding(template, c.spec));
          let result = await f.reconcile(KEY);
          if (c.change) {
            const before = await worksByCluster(f);
            await c.change(f);
            result = await f.reconcile(KEY);
            // Works that stay keep their permanent id.
            for (const [cluster, w] of await worksByCluster(f)) {
              const old = before.get(cluster);
              if (old)
                expect(w.metadata.labels?.[LABEL.workPermanentId]).toBe(
                  old.metadata.labels?.[LABEL.workPermanentId],
                );
            }
          }
          expect(result).toEqual(c.result);
          const works = await worksByCluster(f);
          expect([...works.keys()].sort()).toEqual(Object.keys(c.works).sort());
          const latest = await f.client.get(RESOURCES.deployments, "default", "nginx").catch(() => template);
          for (const [cluster, want] of Object.entries(c.works))
            checkWork(works.get(cluster)!, want, b, latest);
          expect((await f.events()).map((e) => `${e.object}: ${e.reason}`)).toEqual(c.events);
        },
      ),
    );
  }
});

describe("binding controller: resync", () => {
  it("a resync that finds every Work as it should be writes nothing, not even an Event", () => {
    const recorded: string[] = [];
    return withReconcileFixture(
      (ctx) =>
        bindingController(
          {
            ...ctx,
            recorder: (component) => {
              const inner = ctx.recorder(component);
              return {
                event(obj, type, reason, message) {
                  recorded.push(`${obj.kind}: ${reason}`);
                  inner.event(obj, type, reason, message);
                },
              };
            },
          },
          ctx.interpreter,
          false,
        ),
      {},
      async (f) => {
        await createCluster(f.client, "member1");
        await createCluster(f.client, "member2");
        const template = await f.client.create(RESOURCES.deployments, deployment());
        await f.client.create(
          KARMADA.resourceBindings,
          binding(template, { clusters: on(["member1", 1], ["member2", 2]) }),
        );
        await f.reconcile(KEY);
        const synced = await worksByCluster(f);
        expect(recorded).toEqual(["ResourceBinding: SyncWorkSucceed", "Deployment: SyncWorkSucceed"]);

        // As after a restart: the same binding again, every Work already right.
        await f.reconcile(KEY);
        const again = await worksByCluster(f);
        expect([...again].map(([c, w]) => [c, w.metadata.resourceVersion])).toEqual(
          [...synced].map(([c, w]) => [c, w.metadata.resourceVersion]),
        );
        expect(recorded).toHaveLength(2);

        // A cluster dropped is a change: its Work goes, and the sync says so.
        await f.client.patch(KARMADA.resourceBindings, "default", "nginx-deployment", "merge", {
          spec: { clusters: on(["member1", 1]) },
        });
        await f.reconcile(KEY);
        expect(recorded).toHaveLength(4);
      },
    );
  });
});

describe("binding controller: deletion", () => {
  it("a binding being deleted loses its Works first, then its finalizer", () =>
    withReconcileFixture(
      (ctx) => bindingController(ctx, ctx.interpreter, false),
      {},
      async (f) => {
        await createCluster(f.client, "member1");
        await createCluster(f.client, "member2");
        const template = await f.client.create(RESOURCES.deployments, deployment());
        await f.client.create(
          KARMADA.resourceBindings,
          binding(template, { clusters: on(["member1", 1], ["member2", 2]) }, true),
        );
        await f.reconcile(KEY);
        expect((await worksByCluster(f)).size).toBe(2);

        await f.client.delete(KARMADA.resourceBindings, "default", "nginx-deployment");
        // The Works are deleted; the binding waits for them to be gone.
        expect(await f.reconcile(KEY)).toEqual({ requeueAfterMs: 1_000 });
        const deleting = await worksByCluster(f);
        expect([...deleting.values()].map((w) => w.metadata.deletionTimestamp !== undefined)).toEqual([
          true,
          true,
        ]);
        const b = await f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment");
        expect(b.metadata.finalizers).toEqual([FINALIZER.binding]);

        // The execution controller's part: the member copies are gone.
        for (const w of deleting.values())
          await f.client.patch(KARMADA.works, w.metadata.namespace, w.metadata.name!, "merge", {
            metadata: { finalizers: null },
          });
        expect(await f.reconcile(KEY)).toBeUndefined();
        await expect(f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment")).rejects.toSatisfy(
          isNotFound,
        );
      },
    ));

  it("a ClusterResourceBinding's Works carry its name; a binding without clusters writes nothing", () =>
    withReconcileFixture(
      (ctx) => bindingController(ctx, ctx.interpreter, true),
      {},
      async (f) => {
        await createCluster(f.client, "member1");
        const role = await f.client.create(
          { group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterroles", namespaced: false },
          {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRole",
            metadata: { name: "reader" },
            rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
          },
        );
        const crb = (clusters?: Array<{ name: string }>): KubeObject => ({
          apiVersion: "work.karmada.io/v1alpha2",
          kind: "ClusterResourceBinding",
          metadata: { name: "reader-clusterrole", labels: { [LABEL.cppPermanentId]: "cpp-id" } },
          spec: {
            resource: {
              apiVersion: "rbac.authorization.k8s.io/v1",
              kind: "ClusterRole",
              name: "reader",
              uid: role.metadata.uid,
            },
            ...(clusters ? { clusters } : {}),
          },
        });
        await f.client.create(KARMADA.clusterResourceBindings, crb());
        expect(await f.reconcile("reader-clusterrole")).toBeUndefined();
        expect((await worksByCluster(f)).size).toBe(0);

        await f.client.patch(KARMADA.clusterResourceBindings, undefined, "reader-clusterrole", "merge", {
          spec: { clusters: [{ name: "member1" }] },
        });
        await f.reconcile("reader-clusterrole");
        const w = (await worksByCluster(f)).get("member1")!;
        expect(w.metadata.name).toBe(workName("ClusterRole", "reader"));
        expect(w.metadata.labels?.[LABEL.crbPermanentId]).toBeTruthy();
        expect(w.metadata.annotations).toMatchObject({ [ANNOTATION.crbName]: "reader-clusterrole" });
        expect(isObject(manifestOf(w).metadata) && manifestOf(w).metadata?.annotations).toMatchObject({
          [ANNOTATION.crbName]: "reader-clusterrole",
        });
        expect((await f.events()).map((e) => `${e.object}: ${e.reason}`)).toEqual([
          "ClusterResourceBinding/reader-clusterrole: SyncWorkSucceed",
          "ClusterRole/reader: SyncWorkSucceed",
        ]);
      },
    ));
});
