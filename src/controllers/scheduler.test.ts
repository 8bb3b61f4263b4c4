/**
 * The scheduler controller, one reconcile at a time: given Clusters and a binding, what it
 * writes (spec.clusters, the applied-placement and explanation annotations, the Scheduled
 * condition, schedulerObservedGeneration, lastScheduledTime) and which Events it records.
 */
import { describe, expect, it } from "vitest";
import {
  createCluster,
  FIXTURE_EPOCH,
  type ReconcileFixture,
  SERVED_APIS,
  type TestClusterOptions,
  withReconcileFixture,
} from "../../test/support/reconcile.ts";
import { isObject, type KubeObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { ANNOTATION, LABEL } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { BindingSpec, Placement, TargetCluster } from "../karmada/types.ts";
import { type Condition, findCondition } from "../machinery/conditions.ts";
import { EXPLANATION_ANNOTATION } from "../scheduler/core/explanation.ts";
import { schedulerController } from "./scheduler.ts";

const duplicated: Placement = { replicaScheduling: { replicaSchedulingType: "Duplicated" } };
const staticWeights = (weights: Record<string, number>): Placement => ({
  replicaScheduling: {
    replicaSchedulingType: "Divided",
    replicaDivisionPreference: "Weighted",
    weightPreference: {
      staticWeightList: Object.entries(weights).map(([name, weight]) => ({
        targetCluster: { clusterNames: [name] },
        weight,
      })),
    },
  },
});
const aggregated: Placement = {
  replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" },
};

const CLAIMED = { [LABEL.ppPermanentId]: "pp-id-1" };

function binding(
  spec: Partial<BindingSpec>,
  extra: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    clusterScoped?: boolean;
  } = {},
): KubeObject {
  const clusterScoped = extra.clusterScoped ?? false;
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: clusterScoped ? "ClusterResourceBinding" : "ResourceBinding",
    metadata: {
      name: "nginx-deployment",
      ...(clusterScoped ? {} : { namespace: "default" }),
      labels: extra.labels ?? CLAIMED,
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    spec: {
      resource: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        ...(clusterScoped ? {} : { namespace: "default" }),
        name: "nginx",
        uid: "template-uid",
      },
      replicas: 2,
      placement: duplicated,
      ...spec,
    },
  };
}

const statusOf = (b: StoredObject): Record<string, unknown> => (isObject(b.status) ? b.status : {});
const scheduledOf = (b: StoredObject): Condition | undefined =>
  findCondition((statusOf(b).conditions ?? []) as Condition[], "Scheduled");
const clustersOf = (b: StoredObject): TargetCluster[] | undefined => (b.spec as BindingSpec).clusters;

interface Case {
  name: string;
  members: Array<[string, TestClusterOptions?]>;
  binding: KubeObject;
  clusterScoped?: boolean;
  /** Done after the clusters exist, before the binding is created. */
  arrange?: (f: ReconcileFixture) => Promise<void>;
  /** The reconcile's outcome: its result, or the message it threw. */
  result?: { throws: string } | undefined;
  /** spec.clusters after the reconcile (null: none). */
  want: TargetCluster[] | null;
  /** The Scheduled condition (undefined: none written). */
  scheduled?: Partial<Condition>;
  /** `reason` of each Event in the order recorded (`object: reason`). */
  events: string[];
  check?: (b: StoredObject, f: ReconcileFixture) => Promise<void> | void;
}

const SUCCESS: Partial<Condition> = {
  type: "Scheduled",
  status: "True",
  reason: "Success",
  message: "Binding has been scheduled successfully.",
};
const RB = "ResourceBinding/default/nginx-deployment";
const TEMPLATE = "Deployment/default/nginx";
const SUCCEEDED = [
  `${RB}: ScheduleBindingSucceed`,
  `${TEMPLATE}: ScheduleBindingSucceed`,
  `${RB}: ScheduleExplanation`,
];

const cases: Case[] = [
  {
    name: "Duplicated: every cluster gets all replicas, with the annotations and status upstream writes",
    members: [["member1"], ["member2"]],
    binding: binding({ replicas: 2 }),
    want: [
      { name: "member1", replicas: 2 },
      { name: "member2", replicas: 2 },
    ],
    scheduled: SUCCESS,
    events: SUCCEEDED,
    async check(b, f) {
      expect(b.metadata.annotations?.[ANNOTATION.appliedPlacement]).toBe(JSON.stringify(duplicated));
      expect(JSON.parse(b.metadata.annotations?.[EXPLANATION_ANNOTATION] ?? "{}")).toMatchObject({
        attempts: [
          {
            clusters: [
              { name: "member1", selected: true },
              { name: "member2", selected: true },
            ],
          },
        ],
      });
      expect(statusOf(b)).toMatchObject({
        schedulerObservedGeneration: b.metadata.generation,
        lastScheduledTime: rfc3339(FIXTURE_EPOCH),
      });
      expect(scheduledOf(b)?.lastTransitionTime).toBe(rfc3339(FIXTURE_EPOCH));
      const events = await f.events();
      expect(events[0]).toMatchObject({
        type: "Normal",
        message: "Binding has been scheduled successfully. Result: {member1:2, member2:2}",
        component: "default-scheduler",
      });
    },
  },
  {
    name: "clusterAffinity by name keeps the others out",
    members: [["member1"], ["member2"]],
    binding: binding({ placement: { ...duplicated, clusterAffinity: { clusterNames: ["member2"] } } }),
    want: [{ name: "member2", replicas: 2 }],
    scheduled: SUCCESS,
    events: SUCCEEDED,
  },
  {
    name: "clusterAffinity by label selector",
    members: [
      ["member1", { labels: { env: "prod" } }],
      ["member2", { labels: { env: "dev" } }],
    ],
    binding: binding({
      placement: { ...duplicated, clusterAffinity: { labelSelector: { matchLabels: { env: "prod" } } } },
    }),
    want: [{ name: "member1", replicas: 2 }],
    scheduled: SUCCESS,
    events: SUCCEEDED,
  },
  {
    name: "Divided by static weights splits the replicas",
    members: [["member1"], ["member2"]],
    binding: binding({ replicas: 3, placement: staticWeights({ member1: 2, member2: 1 }) }),
    want: [
      { name: "member1", replicas: 2 },
      { name: "member2", replicas: 1 },
    ],
    scheduled: SUCCESS,
    events: SUCCEEDED,
  },
  {
    name: "an untolerated NoSchedule taint filters the cluster out",
    members: [["member1", { spec: { taints: [{ key: "maintenance", effect: "NoSchedule" }] } }], ["member2"]],
    binding: binding({}),
    want: [{ name: "member2", replicas: 2 }],
    scheduled: SUCCESS,
    events: SUCCEEDED,
    check(b) {
      const explanation = JSON.parse(b.metadata.annotations?.[EXPLANATION_ANNOTATION] ?? "{}");
      expect(explanation.attempts[0].clusters[0]).toMatchObject({
        name: "member1",
        filteredBy: "TaintToleration",
      });
    },
  },
  {
    name: "a cluster that does not serve the template's API is left out, and recorded as such",
    members: [
      ["member1", { status: { apiEnablements: SERVED_APIS.filter((e) => e.groupVersion !== "apps/v1") } }],
      ["member2"],
    ],
    binding: binding({}),
    want: [{ name: "member2", replicas: 2 }],
    scheduled: SUCCESS,
    events: SUCCEEDED,
    check(b) {
      const explanation = JSON.parse(b.metadata.annotations?.[EXPLANATION_ANNOTATION] ?? "{}");
      expect(explanation.attempts[0].clusters[0]).toMatchObject({
        name: "member1",
        filteredBy: "APIEnablement",
      });
    },
  },
  {
    name: "no cluster fits: the placement is cleared, Scheduled=False NoClusterFit, no retry",
    members: [["member1"], ["member2"]],
    binding: binding({
      placement: { ...duplicated, clusterAffinity: { clusterNames: ["elsewhere"] } },
      clusters: [{ name: "member1", replicas: 2 }],
    }),
    want: null,
    scheduled: {
      type: "Scheduled",
      status: "False",
      reason: "NoClusterFit",
      message:
        "0/2 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint.",
    },
    events: [`${RB}: ScheduleBindingFailed`, `${TEMPLATE}: ScheduleBindingFailed`],
  },
  {
    name: "not enough capacity: Scheduled=False Unschedulable, the placement stays, retried with backoff",
    members: [
      [
        "member1",
        { status: { apiEnablements: SERVED_APIS, resourceSummary: { allocatable: { pods: "1" } } } },
      ],
    ],
    binding: binding({
      replicas: 5,
      placement: aggregated,
      clusters: [{ name: "member1", replicas: 1 }],
    }),
    result: { throws: "failed to assign replicas" },
    want: [{ name: "member1", replicas: 1 }],
    scheduled: { type: "Scheduled", status: "False", reason: "Unschedulable" },
    events: [`${RB}: ScheduleBindingFailed`, `${TEMPLATE}: ScheduleBindingFailed`],
  },
  {
    name: "a target cluster being deleted moves a Divided workload",
    members: [["member1"], ["member2"]],
    async arrange(f) {
      await f.client.patch(RESOURCES.clusters, undefined, "member1", "merge", {
        metadata: { finalizers: ["test.karmada.io/hold"] },
      });
      await f.client.delete(RESOURCES.clusters, undefined, "member1");
    },
    binding: binding({
      replicas: 2,
      placement: aggregated,
      clusters: [{ name: "member1", replicas: 2 }],
    }),
    want: [{ name: "member2", replicas: 2 }],
    scheduled: SUCCESS,
    events: SUCCEEDED,
  },
  {
    name: "nothing changed since the last decision: only schedulerObservedGeneration is brought up",
    members: [["member1"], ["member2"]],
    binding: binding(
      { replicas: 2, placement: aggregated, clusters: [{ name: "member1", replicas: 2 }] },
      { labels: CLAIMED, annotations: { [ANNOTATION.appliedPlacement]: JSON.stringify(aggregated) } },
    ),
    want: [{ name: "member1", replicas: 2 }],
    events: [],
    check(b) {
      expect(statusOf(b)).toEqual({ schedulerObservedGeneration: b.metadata.generation });
    },
  },
  {
    name: "a binding no policy claims is not ours",
    members: [["member1"]],
    binding: binding({}, { labels: {} }),
    want: null,
    events: [],
    check(b) {
      expect(b.status).toBeUndefined();
    },
  },
  {
    name: "a binding for another scheduler is not ours",
    members: [["member1"]],
    binding: binding({ schedulerName: "other-scheduler" }),
    want: null,
    events: [],
  },
  {
    name: "ClusterResourceBindings are scheduled by the cluster-scoped loop",
    members: [["member1"]],
    clusterScoped: true,
    binding: binding(
      { replicas: 0 },
      { labels: { [LABEL.cppPermanentId]: "cpp-id-1" }, clusterScoped: true },
    ),
    want: [{ name: "member1" }],
    scheduled: SUCCESS,
    events: [
      "ClusterResourceBinding/nginx-deployment: ScheduleBindingSucceed",
      "Deployment/nginx: ScheduleBindingSucceed",
      "ClusterResourceBinding/nginx-deployment: ScheduleExplanation",
    ],
  },
];

describe.concurrent("scheduler controller reconcile", () => {
  for (const c of cases) {
    it(c.name, () =>
      withReconcileFixture(
        (ctx) => schedulerController(ctx, c.clusterScoped ?? false),
        {},
        async (f) => {
          for (const [name, opts] of c.members) await createCluster(f.client, name, opts);
          await c.arrange?.(f);
          const ref = c.clusterScoped ? KARMADA.clusterResourceBindings : KARMADA.resourceBindings;
          const created = await f.client.create(ref, c.binding);
          const key = c.clusterScoped ? "nginx-deployment" : "default/nginx-deployment";

          const outcome = f.reconcile(key);
          if (c.result && "throws" in c.result) await expect(outcome).rejects.toThrow(c.result.throws);
          else expect(await outcome).toBeUndefined();

          const b = await f.client.get(ref, created.metadata.namespace, "nginx-deployment");
          expect(clustersOf(b) ?? null).toEqual(c.want);
          if (c.scheduled) expect(scheduledOf(b)).toMatchObject(c.scheduled);
          else expect(scheduledOf(b)).toBeUndefined();
          expect((await f.events()).map((e) => `${e.object}: ${e.reason}`)).toEqual(c.events);
          if (c.events.length === 0 && !c.scheduled && !c.check)
            expect(b.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
          await c.check?.(b, f);
        },
      ),
    );
  }

  it("a second reconcile of a scheduled binding writes nothing", () =>
    withReconcileFixture(
      (ctx) => schedulerController(ctx, false),
      {},
      async (f) => {
        await createCluster(f.client, "member1");
        await f.client.create(KARMADA.resourceBindings, binding({ placement: aggregated }));
        await f.reconcile("default/nginx-deployment");
        const first = await f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment");
        f.clock.advance(60_000);
        await f.reconcile("default/nginx-deployment");
        const second = await f.client.get(KARMADA.resourceBindings, "default", "nginx-deployment");
        expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
        expect(clustersOf(second)).toEqual([{ name: "member1", replicas: 2 }]);
      },
    ));
});

describe("scheduler metrics, with upstream's names", () => {
  const sample = (text: string, series: string): number | undefined => {
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it("counts attempts by result and schedule type, and times the algorithm's steps and plugins", () =>
    withReconcileFixture(
      (ctx) => schedulerController(ctx, false),
      {},
      async (f) => {
        await createCluster(f.client, "member1");
        await f.client.create(KARMADA.resourceBindings, binding({ placement: aggregated }));
        await f.reconcile("default/nginx-deployment");
        // No cluster fits an affinity nobody matches: a failed attempt, left for a cluster change.
        await f.client.create(KARMADA.resourceBindings, {
          ...binding({ placement: { clusterAffinity: { clusterNames: ["elsewhere"] } } }),
          metadata: { name: "nowhere", namespace: "default", labels: CLAIMED },
        });
        await f.reconcile("default/nowhere");
        const text = await f.ctx.metrics.metrics();
        expect(
          sample(
            text,
            'karmada_scheduler_schedule_attempts_total{result="scheduled",schedule_type="ReconcileSchedule"}',
          ),
        ).toBe(1);
        expect(
          sample(
            text,
            'karmada_scheduler_schedule_attempts_total{result="error",schedule_type="ReconcileSchedule"}',
          ),
        ).toBe(1);
        expect(
          sample(
            text,
            'karmada_scheduler_e2e_scheduling_duration_seconds_count{result="scheduled",schedule_type="ReconcileSchedule"}',
          ),
        ).toBe(1);
        for (const step of ["Filter", "Score", "Select", "AssignReplicas"])
          expect(
            sample(
              text,
              `karmada_scheduler_scheduling_algorithm_duration_seconds_count{schedule_step="${step}"}`,
            ),
          ).toBeGreaterThanOrEqual(1);
        expect(
          sample(
            text,
            'karmada_scheduler_framework_extension_point_duration_seconds_count{extension_point="Filter",result="Unschedulable"}',
          ),
        ).toBe(1);
        expect(text).toMatch(
          /^karmada_scheduler_plugin_execution_duration_seconds_count\{plugin="ClusterAffinity",extension_point="Filter",result="Success"\} 2$/m,
        );
        expect(sample(text, 'scheduler_pending_bindings{queue="unschedulable"}')).toBe(1);
      },
    ));
});
