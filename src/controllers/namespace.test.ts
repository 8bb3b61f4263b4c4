/**
 * Namespace auto-propagation, one reconcile at a time: given Namespaces and Clusters, the Work
 * each cluster's execution space gets (owned by the Namespace, ClusterOverridePolicies
 * applied), and the namespaces that are skipped.
 */
import { describe, expect, it } from "vitest";
import {
  createCluster,
  ensureNamespace,
  type ReconcileFixture,
  withReconcileFixture,
} from "../../test/support/reconcile.ts";
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { ANNOTATION, executionSpace, FINALIZER, LABEL, workName } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import { namespaceController } from "./namespace.ts";

/** Every Work in an execution space, as `cluster/name`. */
async function works(f: ReconcileFixture): Promise<Map<string, StoredObject>> {
  const list = await f.client.list(KARMADA.works, undefined);
  return new Map(
    list.items.map((w) => [`${w.metadata.namespace!.replace("karmada-es-", "")}/${w.metadata.name}`, w]),
  );
}

const manifestOf = (w: StoredObject): KubeObject =>
  (w.spec as { workload: { manifests: KubeObject[] } }).workload.manifests[0]!;

describe.concurrent("namespace sync: which namespaces go to the clusters", () => {
  const cases: Array<[name: string, labels: Record<string, string> | undefined, propagated: boolean]> = [
    ["demo", undefined, true],
    ["default", undefined, false],
    ["kube-system", undefined, false],
    ["kube-lease", undefined, false],
    ["karmada-system", undefined, false],
    ["karmada-cluster", undefined, false],
    ["karmada-es-member1", undefined, false],
    ["quiet", { [LABEL.skipAutoPropagation]: "True" }, false],
    ["loud", { [LABEL.skipAutoPropagation]: "false" }, true],
  ];
  for (const [name, labels, propagated] of cases) {
    it(`${name}${labels ? ` ${JSON.stringify(labels)}` : ""}: ${propagated ? "a Work per cluster" : "skipped"}`, () =>
      withReconcileFixture(namespaceController, {}, async (f) => {
        await createCluster(f.client, "member1");
        await createCluster(f.client, "member2");
        await ensureNamespace(f.client, name, labels);
        expect(await f.reconcile(name)).toBeUndefined();
        const want = propagated
          ? [`member1/${workName("Namespace", name)}`, `member2/${workName("Namespace", name)}`]
          : [];
        expect([...(await works(f)).keys()].sort()).toEqual(want);
      }));
  }
});

describe("namespace sync: the Works", () => {
  const WORK = workName("Namespace", "demo");

  it("each cluster's Work is owned by the Namespace and carries it with Karmada's marks", () =>
    withReconcileFixture(namespaceController, {}, async (f) => {
      await createCluster(f.client, "member1");
      await ensureNamespace(f.client, "demo", { team: "a" });
      const ns = await f.client.get(RESOURCES.namespaces, undefined, "demo");
      await f.reconcile("demo");

      const w = (await works(f)).get(`member1/${WORK}`)!;
      const workId = w.metadata.labels?.[LABEL.workPermanentId];
      expect(workId).toBeTruthy();
      expect(w.metadata.labels).toEqual({ [LABEL.workPermanentId]: workId });
      expect(w.metadata.finalizers).toEqual([FINALIZER.execution]);
      expect(w.metadata.ownerReferences).toEqual([
        {
          apiVersion: "v1",
          kind: "Namespace",
          name: "demo",
          uid: ns.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      const m = manifestOf(w);
      expect(m).toMatchObject({ apiVersion: "v1", kind: "Namespace", metadata: { name: "demo" } });
      expect(m.metadata?.labels).toMatchObject({
        team: "a",
        [LABEL.managed]: "true",
        [LABEL.workPermanentId]: workId,
      });
      expect(m.metadata?.annotations).toMatchObject({
        [ANNOTATION.templateUid]: ns.metadata.uid,
        [ANNOTATION.workName]: WORK,
        [ANNOTATION.workNamespace]: executionSpace("member1"),
      });
      // What the member's API server fills in is not sent.
      expect(m.metadata).not.toHaveProperty("uid");
      expect(m.metadata).not.toHaveProperty("resourceVersion");
      expect(m).not.toHaveProperty("status");
    }));

  it("a ClusterOverridePolicy changes only its cluster's copy, and that Work records it", () =>
    withReconcileFixture(namespaceController, {}, async (f) => {
      await createCluster(f.client, "member1");
      await createCluster(f.client, "member2");
      await f.client.create(KARMADA.clusterOverridePolicies, {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "ClusterOverridePolicy",
        metadata: { name: "ns-tier" },
        spec: {
          resourceSelectors: [{ apiVersion: "v1", kind: "Namespace" }],
          overrideRules: [
            {
              targetCluster: { clusterNames: ["member2"] },
              overriders: { labelsOverrider: [{ operator: "add", value: { tier: "edge" } }] },
            },
          ],
        },
      });
      await ensureNamespace(f.client, "demo");
      await f.reconcile("demo");
      const all = await works(f);
      const [w1, w2] = [all.get(`member1/${WORK}`)!, all.get(`member2/${WORK}`)!];
      expect(manifestOf(w1).metadata?.labels).not.toHaveProperty("tier");
      expect(manifestOf(w2).metadata?.labels).toMatchObject({ tier: "edge" });
      expect(w1.metadata.annotations ?? {}).not.toHaveProperty([ANNOTATION.appliedClusterOverrides]);
      expect(w2.metadata.annotations?.[ANNOTATION.appliedClusterOverrides]).toContain(
        '"policyName":"ns-tier"',
      );
    }));

  it("a namespace change reaches every Work, which keeps its permanent id; a second reconcile writes nothing", () =>
    withReconcileFixture(namespaceController, {}, async (f) => {
      await createCluster(f.client, "member1");
      await ensureNamespace(f.client, "demo");
      await f.reconcile("demo");
      const before = (await works(f)).get(`member1/${WORK}`)!;

      await f.reconcile("demo");
      expect((await works(f)).get(`member1/${WORK}`)!.metadata.resourceVersion).toBe(
        before.metadata.resourceVersion,
      );

      await f.client.patch(RESOURCES.namespaces, undefined, "demo", "merge", {
        metadata: { labels: { team: "b" } },
      });
      await f.reconcile("demo");
      const after = (await works(f)).get(`member1/${WORK}`)!;
      expect(manifestOf(after).metadata?.labels).toMatchObject({ team: "b" });
      expect(after.metadata.labels?.[LABEL.workPermanentId]).toBe(
        before.metadata.labels?.[LABEL.workPermanentId],
      );
    }));

  it("a cluster being deleted gets no Work; a Work being deleted is left to go", () =>
    withReconcileFixture(namespaceController, {}, async (f) => {
      await createCluster(f.client, "member1");
      await createCluster(f.client, "leaving");
      await f.client.patch(RESOURCES.clusters, undefined, "leaving", "merge", {
        metadata: { finalizers: ["test.karmada.io/hold"] },
      });
      await f.client.delete(RESOURCES.clusters, undefined, "leaving");
      await ensureNamespace(f.client, "demo");
      await f.reconcile("demo");
      expect([...(await works(f)).keys()]).toEqual([`member1/${WORK}`]);

      await f.client.delete(KARMADA.works, executionSpace("member1"), WORK);
      const deleting = (await works(f)).get(`member1/${WORK}`)!;
      expect(deleting.metadata.deletionTimestamp).toBeDefined();
      expect(await f.reconcile("demo")).toBeUndefined();
      expect((await works(f)).get(`member1/${WORK}`)!.metadata.resourceVersion).toBe(
        deleting.metadata.resourceVersion,
      );
    }));

  it("a namespace that is gone, or with no cluster joined: nothing written", () =>
    withReconcileFixture(namespaceController, {}, async (f) => {
      await ensureNamespace(f.client, "demo");
      expect(await f.reconcile("demo")).toBeUndefined();
      expect(await f.reconcile("never-created")).toBeUndefined();
      expect((await works(f)).size).toBe(0);
    }));
});
