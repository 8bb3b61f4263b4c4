/**
 * Binding status aggregation, one reconcile at a time: given a binding and the status its
 * Works report, the binding's aggregatedStatus and FullyApplied condition, and the template's
 * status aggregated from the members' through the interpreter.
 */
import { describe, expect, it } from "vitest";
import {
  ensureNamespace,
  FIXTURE_EPOCH,
  type ReconcileFixture,
  withReconcileFixture,
} from "../../test/support/reconcile.ts";
import { isObject, type KubeObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { ANNOTATION, executionSpace, LABEL, workName } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { AggregatedStatusItem } from "../karmada/types.ts";
import { bindingStatusController } from "./binding-status.ts";

const KEY = "default/nginx-deployment";
const WORK = workName("Deployment", "nginx", "default");
const IDENTIFIER = {
  ordinal: 0,
  group: "apps",
  version: "v1",
  kind: "Deployment",
  resource: "deployments",
  namespace: "default",
  name: "nginx",
};
const MEMBER_STATUS = { replicas: 1, readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1 };

const deployment: KubeObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "nginx", namespace: "default" },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "nginx" } },
    template: {
      metadata: { labels: { app: "nginx" } },
      spec: { containers: [{ name: "nginx", image: "nginx" }] },
    },
  },
};

function binding(template: StoredObject, clusters: string[]): KubeObject {
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: { name: "nginx-deployment", namespace: "default", labels: { [LABEL.ppPermanentId]: "pp-id" } },
    spec: {
      resource: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        namespace: "default",
        name: "nginx",
        uid: template.metadata.uid,
      },
      replicas: 2,
      clusters: clusters.map((name) => ({ name, replicas: 1 })),
    },
  };
}

/** What a member reported for its Work, as the execution and work-status controllers write it. */
interface WorkReport {
  applied?: boolean;
  message?: string;
  /** manifestStatuses[0].status and .health; `other`: the status is about another manifest. */
  status?: Record<string, unknown>;
  health?: "Healthy" | "Unhealthy";
  other?: boolean;
  deleting?: boolean;
}

async function createWork(
  f: ReconcileFixture,
  b: StoredObject,
  cluster: string,
  r: WorkReport,
): Promise<void> {
  const ns = executionSpace(cluster);
  await ensureNamespace(f.client, ns);
  const work = await f.client.create(KARMADA.works, {
    apiVersion: "work.karmada.io/v1alpha1",
    kind: "Work",
    metadata: {
      name: WORK,
      namespace: ns,
      labels: { [LABEL.rbPermanentId]: b.metadata.labels![LABEL.rbPermanentId]! },
      annotations: { [ANNOTATION.rbNamespace]: "default", [ANNOTATION.rbName]: "nginx-deployment" },
      ...(r.deleting ? { finalizers: ["test.karmada.io/hold"] } : {}),
    },
    spec: { workload: { manifests: [deployment] } },
  });
  const conditions =
    r.applied === undefined
      ? []
      : [
          {
            type: "Applied",
            status: r.applied ? "True" : "False",
            reason: r.applied ? "AppliedSuccessful" : "AppliedFailed",
            message: r.message ?? (r.applied ? "Manifest has been successfully applied" : "failed"),
            lastTransitionTime: rfc3339(FIXTURE_EPOCH),
          },
        ];
  const manifestStatuses = r.status
    ? [
        {
          identifier: r.other ? { ...IDENTIFIER, kind: "ConfigMap", group: "", name: "config" } : IDENTIFIER,
          status: r.status,
          health: r.health ?? "Healthy",
        },
      ]
    : undefined;
  await f.client.updateStatus(KARMADA.works, {
    ...work,
    status: { conditions, ...(manifestStatuses ? { manifestStatuses } : {}) },
  });
  if (r.deleting) await f.client.delete(KARMADA.works, ns, WORK);
}

interface Case {
  name: string;
  clusters: string[];
  works: Record<string, WorkReport>;
  aggregatedStatus: AggregatedStatusItem[] | undefined;
  fullyApplied: { status: string; reason: string };
  /** The template's status afterwards (undefined: none). */
  templateStatus: Record<string, unknown> | undefined;
  events: string[];
}

const RB_EVENT = "ResourceBinding/default/nginx-deployment: AggregateStatusSucceed";
const TEMPLATE_EVENT = "Deployment/default/nginx: AggregateStatusSucceed";
const APPLIED = { status: "True", reason: "FullyAppliedSuccess" };
const NOT_APPLIED = { status: "False", reason: "FullyAppliedFailed" };

const cases: Case[] = [
  {
    name: "every cluster applied and reported: items with status and health, FullyApplied, the template summed",
    clusters: ["member1", "member2"],
    works: {
      member1: { applied: true, status: MEMBER_STATUS },
      member2: { applied: true, status: MEMBER_STATUS, health: "Unhealthy" },
    },
    aggregatedStatus: [
      { clusterName: "member1", status: MEMBER_STATUS, applied: true, health: "Healthy" },
      { clusterName: "member2", status: MEMBER_STATUS, applied: true, health: "Unhealthy" },
    ],
    fullyApplied: APPLIED,
    templateStatus: { replicas: 2, readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 },
    events: [RB_EVENT, TEMPLATE_EVENT],
  },
  {
    name: "a Work that failed to apply: its message, Unknown health, not FullyApplied",
    clusters: ["member1", "member2"],
    works: {
      member1: { applied: true, status: MEMBER_STATUS },
      member2: { applied: false, message: "admission webhook denied the request" },
    },
    aggregatedStatus: [
      { clusterName: "member1", status: MEMBER_STATUS, applied: true, health: "Healthy" },
      {
        clusterName: "member2",
        applied: false,
        appliedMessage: "admission webhook denied the request",
        health: "Unknown",
      },
    ],
    fullyApplied: NOT_APPLIED,
    templateStatus: { replicas: 1, readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1 },
    events: [RB_EVENT, TEMPLATE_EVENT],
  },
  {
    name: "a Work not applied yet (no condition) counts as not applied, without a message",
    clusters: ["member1"],
    works: { member1: {} },
    aggregatedStatus: [{ clusterName: "member1", applied: false, health: "Unknown" }],
    fullyApplied: NOT_APPLIED,
    templateStatus: undefined,
    events: [RB_EVENT],
  },
  {
    name: "a target cluster without a Work keeps FullyApplied False",
    clusters: ["member1", "member2"],
    works: { member1: { applied: true, status: MEMBER_STATUS } },
    aggregatedStatus: [{ clusterName: "member1", status: MEMBER_STATUS, applied: true, health: "Healthy" }],
    fullyApplied: NOT_APPLIED,
    templateStatus: { replicas: 1, readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1 },
    events: [RB_EVENT, TEMPLATE_EVENT],
  },
  {
    name: "a Work being deleted is left out",
    clusters: ["member1"],
    works: {
      member1: { applied: true, status: MEMBER_STATUS },
      member2: { applied: true, status: MEMBER_STATUS, deleting: true },
    },
    aggregatedStatus: [{ clusterName: "member1", status: MEMBER_STATUS, applied: true, health: "Healthy" }],
    fullyApplied: APPLIED,
    templateStatus: { replicas: 1, readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1 },
    events: [RB_EVENT, TEMPLATE_EVENT],
  },
  {
    name: "an applied Work whose status is about another manifest: applied, no status, Unknown health",
    clusters: ["member1"],
    works: { member1: { applied: true, status: { data: 1 }, other: true } },
    aggregatedStatus: [{ clusterName: "member1", applied: true, health: "Unknown" }],
    fullyApplied: APPLIED,
    templateStatus: undefined,
    events: [RB_EVENT],
  },
  {
    name: "no Works: no aggregatedStatus, FullyApplied False, the template untouched",
    clusters: ["member1"],
    works: {},
    aggregatedStatus: undefined,
    fullyApplied: NOT_APPLIED,
    templateStatus: undefined,
    events: [RB_EVENT],
  },
];

const statusOf = (o: StoredObject): Record<string, unknown> => (isObject(o.status) ? o.status : {});
const conditionOf = (o: StoredObject, type: string) =>
  ((statusOf(o).conditions ?? []) as Array<Record<string, unknown>>).find((c) => c.type === type);

async function arrange(f: ReconcileFixture, clusters: string[], works: Record<string, WorkReport>) {
  const template = await f.client.create(RESOURCES.deployments, deployment);
  const b = await f.client.create(KARMADA.resourceBindings, binding(template, clusters));
  for (const [cluster, report] of Object.entries(works)) await createWork(f, b, cluster, report);
  return { template, binding: b };
}

describe.concurrent("binding status reconcile", () => {
  for (const c of cases) {
    it(c.name, () =>
      withReconcileFixture(
        (ctx) => bindingStatusController(ctx, ctx.interpreter, false),
        {},
        async (f) => {
          await arrange(f, c.clusters, c.works);
          expect(await f.reconcile(KEY)).toBeUndefined();

          const b = await f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment");
          expect(statusOf(b).aggregatedStatus).toEqual(c.aggregatedStatus);
          expect(conditionOf(b, "FullyApplied")).toMatchObject({
            ...c.fullyApplied,
            lastTransitionTime: rfc3339(FIXTURE_EPOCH),
          });
          const template = await f.client.get(RESOURCES.deployments, "default", "nginx");
          expect(template.status).toEqual(c.templateStatus);
          expect((await f.events()).map((e) => `${e.object}: ${e.reason}`)).toEqual(c.events);
        },
      ),
    );
  }
});

describe("binding status: what a later reconcile changes", () => {
  const make = (ctx: Parameters<typeof bindingStatusController>[0]) =>
    bindingStatusController(ctx, ctx.interpreter, false);

  it("nothing new: nothing written; a change of the condition moves its lastTransitionTime", () =>
    withReconcileFixture(make, {}, async (f) => {
      const { binding: created } = await arrange(f, ["member1", "member2"], {
        member1: { applied: true, status: MEMBER_STATUS },
      });
      await f.reconcile(KEY);
      const first = await f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment");
      const firstTemplate = await f.client.get(RESOURCES.deployments, "default", "nginx");

      f.clock.advance(60_000);
      await f.reconcile(KEY);
      const again = await f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment");
      expect(again.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      expect((await f.client.get(RESOURCES.deployments, "default", "nginx")).metadata.resourceVersion).toBe(
        firstTemplate.metadata.resourceVersion,
      );

      // member2 reports: FullyApplied turns True at the new time.
      await createWork(f, created, "member2", { applied: true, status: MEMBER_STATUS });
      await f.reconcile(KEY);
      const after = await f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment");
      expect(conditionOf(after, "FullyApplied")).toMatchObject({
        status: "True",
        lastTransitionTime: rfc3339(FIXTURE_EPOCH + 60_000),
      });
      expect((await f.client.get(RESOURCES.deployments, "default", "nginx")).status).toEqual({
        replicas: 2,
        readyReplicas: 2,
        updatedReplicas: 2,
        availableReplicas: 2,
      });
    }));

  it("a binding being deleted, or one for a template recreated since, leaves the template alone", () =>
    withReconcileFixture(make, { api: { controllers: false } }, async (f) => {
      const { binding: b } = await arrange(f, ["member1"], {
        member1: { applied: true, status: MEMBER_STATUS },
      });
      // The template is recreated: a new uid the binding does not name.
      await f.client.delete(RESOURCES.deployments, "default", "nginx");
      await f.client.create(RESOURCES.deployments, deployment);
      await f.reconcile(KEY);
      expect(
        statusOf(await f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment")),
      ).toMatchObject({
        aggregatedStatus: [{ clusterName: "member1", applied: true }],
      });
      expect((await f.client.get(RESOURCES.deployments, "default", "nginx")).status).toBeUndefined();

      // Being deleted: not looked at.
      await f.client.patch(KARMADA.resourceBindings, "default", "nginx-deployment", "merge", {
        metadata: { finalizers: ["test.karmada.io/hold"] },
      });
      await f.client.delete(KARMADA.resourceBindings, "default", "nginx-deployment");
      const deleting = await f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment");
      await createWork(f, b, "member2", { applied: false });
      await f.reconcile(KEY);
      expect(
        (await f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment")).metadata
          .resourceVersion,
      ).toBe(deleting.metadata.resourceVersion);
    }));

  it("ClusterResourceBindings aggregate the same way", () =>
    withReconcileFixture(
      (ctx) => bindingStatusController(ctx, ctx.interpreter, true),
      {},
      async (f) => {
        const ns = await f.client.create(RESOURCES.namespaces, {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: "apps" },
        });
        const crb = await f.client.create(KARMADA.clusterResourceBindings, {
          apiVersion: "work.karmada.io/v1alpha2",
          kind: "ClusterResourceBinding",
          metadata: { name: "apps-namespace", labels: { [LABEL.cppPermanentId]: "cpp-id" } },
          spec: {
            resource: { apiVersion: "v1", kind: "Namespace", name: "apps", uid: ns.metadata.uid },
            clusters: [{ name: "member1" }],
          },
        });
        await ensureNamespace(f.client, executionSpace("member1"));
        const work = await f.client.create(KARMADA.works, {
          apiVersion: "work.karmada.io/v1alpha1",
          kind: "Work",
          metadata: {
            name: workName("Namespace", "apps"),
            namespace: executionSpace("member1"),
            labels: { [LABEL.crbPermanentId]: crb.metadata.labels![LABEL.crbPermanentId]! },
            annotations: { [ANNOTATION.crbName]: "apps-namespace" },
          },
          spec: {
            workload: { manifests: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "apps" } }] },
          },
        });
        await f.client.updateStatus(KARMADA.works, {
          ...work,
          status: {
            conditions: [
              {
                type: "Applied",
                status: "True",
                reason: "AppliedSuccessful",
                message: "",
                lastTransitionTime: rfc3339(FIXTURE_EPOCH),
              },
            ],
            manifestStatuses: [
              {
                identifier: {
                  ordinal: 0,
                  group: "",
                  version: "v1",
                  kind: "Namespace",
                  resource: "namespaces",
                  name: "apps",
                },
                status: { phase: "Active" },
                health: "Healthy",
              },
            ],
          },
        });
        await f.reconcile("apps-namespace");
        const after = await f.client.get(KARMADA.clusterResourceBindings, undefined, "apps-namespace");
        expect(statusOf(after).aggregatedStatus).toEqual([
          { clusterName: "member1", status: { phase: "Active" }, applied: true, health: "Healthy" },
        ]);
        expect(conditionOf(after, "FullyApplied")).toMatchObject(APPLIED);
        expect((await f.events()).map((e) => `${e.object}: ${e.reason}`)).toContain(
          "ClusterResourceBinding/apps-namespace: AggregateStatusSucceed",
        );
      },
    ));
});
