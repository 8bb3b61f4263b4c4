/**
 * The work status controller, one reconcile at a time, over an in-process member API server:
 * given a Work and what the member holds for its manifests, the Work's manifestStatuses
 * (identifier, reflected status, health), and the Works it leaves alone.
 */
import { describe, expect, it } from "vitest";
import {
  createCluster,
  ensureNamespace,
  type ReconcileFixture,
  type TestClusterOptions,
  type TestMember,
  withReconcileFixture,
} from "../../test/support/reconcile.ts";
import { isObject, type KubeObject, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { ANNOTATION, executionSpace, LABEL, workName } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { ReconcileResult } from "../runtime/controller.ts";
import { workStatusController } from "./work-status.ts";

const WORK = workName("Deployment", "nginx", "default");
const KEY = `${executionSpace("member1")}/${WORK}`;

/** A manifest as the binding controller writes it: managed, naming its Work, from template generation 1. */
function manifest(
  kind: "Deployment" | "ConfigMap",
  name: string,
  extra: Record<string, unknown> = {},
): KubeObject {
  const annotations: Record<string, string> = {
    [ANNOTATION.workNamespace]: executionSpace("member1"),
    [ANNOTATION.workName]: WORK,
    [ANNOTATION.templateGeneration]: "1",
  };
  const metadata = {
    name,
    namespace: "default",
    labels: { app: name, [LABEL.managed]: "true" },
    annotations,
  };
  return kind === "Deployment"
    ? {
        apiVersion: "apps/v1",
        kind,
        metadata,
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: "nginx" }] } },
        },
        ...extra,
      }
    : { apiVersion: "v1", kind, metadata, data: { k: "v" }, ...extra };
}

const DEPLOYMENT_ID = {
  ordinal: 0,
  group: "apps",
  version: "v1",
  kind: "Deployment",
  resource: "deployments",
  namespace: "default",
  name: "nginx",
};
const rolledOut = {
  observedGeneration: 1,
  replicas: 2,
  updatedReplicas: 2,
  readyReplicas: 2,
  availableReplicas: 2,
};

/** What the member holds: objects created (and their status), before the reconcile. */
interface MemberState {
  objects: Array<{ manifest: KubeObject; status?: Record<string, unknown> }>;
}

interface Case {
  name: string;
  cluster?: TestClusterOptions;
  manifests: KubeObject[];
  member: MemberState;
  /** Done after the first reconcile (the case asserts on the one after). */
  change?: (f: ReconcileFixture, member: TestMember) => Promise<void>;
  /** Work status manifestStatuses afterwards (undefined: none written). */
  want: unknown[] | undefined;
}

const cases: Case[] = [
  {
    name: "a rolled-out Deployment: its reflected status and Healthy",
    manifests: [manifest("Deployment", "nginx")],
    member: { objects: [{ manifest: manifest("Deployment", "nginx"), status: rolledOut }] },
    want: [
      {
        identifier: DEPLOYMENT_ID,
        status: { generation: 1, resourceTemplateGeneration: 1, ...rolledOut },
        health: "Healthy",
      },
    ],
  },
  {
    name: "a Deployment short of available replicas is Unhealthy",
    manifests: [manifest("Deployment", "nginx")],
    member: {
      objects: [
        {
          manifest: manifest("Deployment", "nginx"),
          status: { ...rolledOut, availableReplicas: 1, unavailableReplicas: 1 },
        },
      ],
    },
    want: [
      {
        identifier: DEPLOYMENT_ID,
        status: {
          generation: 1,
          resourceTemplateGeneration: 1,
          ...rolledOut,
          availableReplicas: 1,
          unavailableReplicas: 1,
        },
        health: "Unhealthy",
      },
    ],
  },
  {
    name: "a member object without the template-generation annotation: health only",
    manifests: [manifest("Deployment", "nginx")],
    member: {
      objects: [
        {
          manifest: {
            ...manifest("Deployment", "nginx"),
            metadata: {
              name: "nginx",
              namespace: "default",
              labels: { [LABEL.managed]: "true" },
              annotations: {
                [ANNOTATION.workNamespace]: executionSpace("member1"),
                [ANNOTATION.workName]: WORK,
              },
            },
          },
          status: rolledOut,
        },
      ],
    },
    want: [{ identifier: DEPLOYMENT_ID, health: "Healthy" }],
  },
  {
    name: "an object without status (ConfigMap): identifier and health",
    manifests: [manifest("ConfigMap", "config")],
    member: { objects: [{ manifest: manifest("ConfigMap", "config") }] },
    want: [
      {
        identifier: {
          ordinal: 0,
          group: "",
          version: "v1",
          kind: "ConfigMap",
          resource: "configmaps",
          namespace: "default",
          name: "config",
        },
        health: "Healthy",
      },
    ],
  },
  {
    name: "several manifests: one entry per object the member has, by ordinal",
    manifests: [
      manifest("ConfigMap", "config"),
      manifest("Deployment", "nginx"),
      manifest("ConfigMap", "absent"),
    ],
    member: {
      objects: [
        { manifest: manifest("ConfigMap", "config") },
        { manifest: manifest("Deployment", "nginx"), status: rolledOut },
      ],
    },
    want: [
      {
        identifier: {
          ordinal: 0,
          group: "",
          version: "v1",
          kind: "ConfigMap",
          resource: "configmaps",
          namespace: "default",
          name: "config",
        },
        health: "Healthy",
      },
      {
        identifier: { ...DEPLOYMENT_ID, ordinal: 1 },
        status: { generation: 1, resourceTemplateGeneration: 1, ...rolledOut },
        health: "Healthy",
      },
    ],
  },
  {
    name: "nothing applied in the member yet: nothing written",
    manifests: [manifest("Deployment", "nginx")],
    member: { objects: [] },
    want: undefined,
  },
  {
    name: "the member object deleted: its entry goes",
    manifests: [manifest("Deployment", "nginx")],
    member: { objects: [{ manifest: manifest("Deployment", "nginx"), status: rolledOut }] },
    async change(_f, member) {
      await member.client.delete(RESOURCES.deployments, "default", "nginx");
    },
    want: undefined,
  },
  {
    name: "a member status change reaches the Work",
    manifests: [manifest("Deployment", "nginx")],
    member: {
      objects: [
        { manifest: manifest("Deployment", "nginx"), status: { observedGeneration: 1, replicas: 2 } },
      ],
    },
    async change(_f, member) {
      const d = await member.client.get(RESOURCES.deployments, "default", "nginx");
      await member.client.updateStatus(RESOURCES.deployments, { ...d, status: rolledOut });
    },
    want: [
      {
        identifier: DEPLOYMENT_ID,
        status: { generation: 1, resourceTemplateGeneration: 1, ...rolledOut },
        health: "Healthy",
      },
    ],
  },
  {
    name: "a cluster that is not Ready: nothing read, nothing written",
    cluster: { ready: false },
    manifests: [manifest("Deployment", "nginx")],
    member: { objects: [{ manifest: manifest("Deployment", "nginx"), status: rolledOut }] },
    want: undefined,
  },
  {
    name: "a Pull cluster is its agent's: the control plane's controller leaves it",
    cluster: { spec: { syncMode: "Pull" } },
    manifests: [manifest("Deployment", "nginx")],
    member: { objects: [{ manifest: manifest("Deployment", "nginx"), status: rolledOut }] },
    want: undefined,
  },
];

async function createMemberObject(member: TestMember, m: KubeObject, status?: Record<string, unknown>) {
  const ref = m.kind === "Deployment" ? RESOURCES.deployments : RESOURCES.configmaps;
  const created = await member.client.create(ref, m);
  if (status) await member.client.updateStatus(ref, { ...created, status });
}

async function createWork(f: ReconcileFixture, manifests: KubeObject[]): Promise<StoredObject> {
  await ensureNamespace(f.client, executionSpace("member1"));
  return f.client.create(KARMADA.works, {
    apiVersion: "work.karmada.io/v1alpha1",
    kind: "Work",
    metadata: { name: WORK, namespace: executionSpace("member1") },
    spec: { workload: { manifests } },
  });
}

/**
 * Reconciles until the member watches the Work needs have listed: the first reconcile starts
 * them, and a Work whose watch had not listed yet is handed back to the queue once it has;
 * the next reconcile (after the fixture waited for them) reads them.
 */
async function reconcileWatched(f: ReconcileFixture, key: string): Promise<ReconcileResult> {
  const first = await f.reconcile(key);
  expect(first).toBeUndefined();
  await f.caughtUp();
  await new Promise((r) => setImmediate(r));
  const handedBack = f.enqueued.indexOf(key);
  if (handedBack < 0) return first;
  f.enqueued.splice(handedBack, 1);
  return f.reconcile(key);
}

const manifestStatusesOf = (w: StoredObject): unknown =>
  isObject(w.status) ? w.status.manifestStatuses : undefined;

describe.concurrent("work status reconcile", () => {
  for (const c of cases) {
    it(c.name, () =>
      withReconcileFixture(
        (ctx) => workStatusController(ctx, ctx.interpreter),
        {},
        async (f) => {
          await createCluster(f.client, "member1", c.cluster);
          const member = await f.addMember("member1");
          for (const o of c.member.objects) await createMemberObject(member, o.manifest, o.status);
          const created = await createWork(f, c.manifests);

          expect(await reconcileWatched(f, KEY)).toBeUndefined();
          if (c.change) {
            await c.change(f, member);
            expect(await f.reconcile(KEY)).toBeUndefined();
          }
          const w = await f.client.get(KARMADA.works, executionSpace("member1"), WORK);
          expect(manifestStatusesOf(w)).toEqual(c.want);
          if (c.want === undefined && !c.change)
            expect(w.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
        },
      ),
    );
  }
});

describe("work status: Works it leaves alone", () => {
  it("an up-to-date Work is not written again; a Work being deleted or outside an execution space is not read", () =>
    withReconcileFixture(
      (ctx) => workStatusController(ctx, ctx.interpreter),
      {},
      async (f) => {
        await createCluster(f.client, "member1");
        const member = await f.addMember("member1");
        await createMemberObject(member, manifest("Deployment", "nginx"), rolledOut);
        await createWork(f, [manifest("Deployment", "nginx")]);
        await reconcileWatched(f, KEY);
        const first = await f.client.get(KARMADA.works, executionSpace("member1"), WORK);
        expect(manifestStatusesOf(first)).toHaveLength(1);

        await f.reconcile(KEY);
        const again = await f.client.get(KARMADA.works, executionSpace("member1"), WORK);
        expect(again.metadata.resourceVersion).toBe(first.metadata.resourceVersion);

        // Being deleted: a change in the member is not recorded.
        await f.client.patch(KARMADA.works, executionSpace("member1"), WORK, "merge", {
          metadata: { finalizers: ["test.karmada.io/hold"] },
        });
        await f.client.delete(KARMADA.works, executionSpace("member1"), WORK);
        await member.client.delete(RESOURCES.deployments, "default", "nginx");
        const deleting = await f.client.get(KARMADA.works, executionSpace("member1"), WORK);
        expect(await f.reconcile(KEY)).toBeUndefined();
        expect(
          (await f.client.get(KARMADA.works, executionSpace("member1"), WORK)).metadata.resourceVersion,
        ).toBe(deleting.metadata.resourceVersion);

        // Not an execution space: not a Work of any cluster.
        expect(await f.reconcile(`default/${WORK}`)).toBeUndefined();
      },
    ));
});
