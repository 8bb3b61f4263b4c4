import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ClusterHistory,
  ClusterTestEnv,
  type RunningManager,
  taintKeys,
  taintsOf,
  until,
} from "../../test/support/cluster-env.ts";
import { isObject, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import type { ConditionStatus } from "../machinery/conditions.ts";
import {
  CLUSTER_FINALIZER,
  CLUSTER_RESOURCE_BINDINGS,
  RESOURCE_BINDINGS,
  TAINT_NOT_READY,
  TAINT_UNREACHABLE,
  taintsForReadiness,
} from "./cluster.ts";
import { isControllerEnabled } from "./index.ts";

const NOT_READY = `${TAINT_NOT_READY}:NoSchedule`;
const UNREACHABLE = `${TAINT_UNREACHABLE}:NoSchedule`;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const NOW = Date.parse("2026-05-01T12:00:00Z");

const b64 = (s: unknown): string => Buffer.from(String(s), "base64").toString("utf8");
const dataOf = (o: StoredObject): Record<string, unknown> => (isObject(o.data) ? o.data : {});

describe("taintsForReadiness (upstream taintClusterByCondition)", () => {
  const userTaints = [
    { key: "cluster.karmada.io/unschedulable", effect: "NoSchedule" },
    { key: TAINT_NOT_READY, effect: "NoExecute", timeAdded: "2026-01-01T00:00:00Z" },
  ];
  const ready = (status: ConditionStatus) => [{ type: "Ready", status }];
  const cases: Array<{
    name: string;
    taints: Array<Record<string, string>>;
    conds: unknown[];
    want: string[];
  }> = [
    { name: "no Ready condition yet: not-ready", taints: [], conds: [], want: [NOT_READY] },
    { name: "Ready=False: not-ready", taints: [], conds: ready("False"), want: [NOT_READY] },
    { name: "Ready=Unknown: unreachable", taints: [], conds: ready("Unknown"), want: [UNREACHABLE] },
    { name: "Ready=True: none", taints: [], conds: ready("True"), want: [] },
    {
      name: "False after Unknown: swapped",
      taints: [{ key: TAINT_UNREACHABLE, effect: "NoSchedule" }],
      conds: ready("False"),
      want: [NOT_READY],
    },
    {
      name: "Unknown after False: swapped",
      taints: [{ key: TAINT_NOT_READY, effect: "NoSchedule" }],
      conds: ready("Unknown"),
      want: [UNREACHABLE],
    },
    {
      name: "True: both NoSchedule taints go, user and NoExecute taints stay in place",
      taints: [{ key: TAINT_NOT_READY, effect: "NoSchedule" }, ...userTaints],
      conds: ready("True"),
      want: ["cluster.karmada.io/unschedulable:NoSchedule", `${TAINT_NOT_READY}:NoExecute`],
    },
    {
      name: "False: added after the user's taints",
      taints: userTaints,
      conds: ready("False"),
      want: ["cluster.karmada.io/unschedulable:NoSchedule", `${TAINT_NOT_READY}:NoExecute`, NOT_READY],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const out = taintsForReadiness(c.taints as never, c.conds as never, NOW);
      expect(out.map((t) => `${t.key}:${t.effect}`)).toEqual(c.want);
    });
  }

  it("stamps timeAdded on the taints it adds only, and keeps the list as it is when nothing changes", () => {
    const out = taintsForReadiness(userTaints, ready("False"), NOW);
    expect(out.find((t) => t.key === TAINT_NOT_READY && t.effect === "NoSchedule")?.timeAdded).toBe(
      "2026-05-01T12:00:00Z",
    );
    expect(out.find((t) => t.effect === "NoExecute")?.timeAdded).toBe("2026-01-01T00:00:00Z");
    expect(out.find((t) => t.key === "cluster.karmada.io/unschedulable")?.timeAdded).toBeUndefined();
    const again = taintsForReadiness(out, ready("False"), NOW + 60_000);
    expect(again).toEqual(out);
  });
});

describe("--controllers (isControllerEnabled)", () => {
  let env: ClusterTestEnv;
  beforeAll(async () => {
    env = await ClusterTestEnv.start();
  });
  afterAll(async () => {
    await env?.stop();
  });

  const cases: Array<[string, string[], boolean]> = [
    ["cluster", ["*"], true],
    ["cluster", ["cluster"], true],
    ["clusterStatus", ["cluster"], false],
    ["cluster", [], false],
    ["cluster", ["-cluster", "*"], false],
    ["cluster", ["*", "-cluster"], false],
    ["clusterStatus", ["*", "-cluster"], true],
    ["cluster", ["-clusterStatus"], false],
  ];
  for (const [name, flags, want] of cases) {
    it(`${name} with --controllers=${flags.join(",")}: ${want ? "on" : "off"}`, () => {
      expect(isControllerEnabled(name, flags)).toBe(want);
    });
  }

  it("the first explicit mention wins, as upstream (`cluster,-cluster` enables cluster)", () => {
    expect(isControllerEnabled("cluster", ["cluster", "-cluster"])).toBe(true);
    expect(isControllerEnabled("cluster", ["-cluster", "cluster"])).toBe(false);
  });

  it("starts only the enabled controllers", () => {
    const names = (flags: string[]) => {
      const m = env.startManager({ controllers: flags });
      const out = m.manager.running.map((r) => r.name);
      m.stop();
      // The resource detector runs whatever --controllers says, as upstream's.
      expect(out[0]).toBe("resource-detector");
      return out.slice(1);
    };
    // `cluster` may run more than one loop (upstream's also monitors health); `cluster` is one.
    const all = names(["*"]);
    expect(all).toEqual(expect.arrayContaining(["cluster-controller", "cluster-status-controller"]));
    const withoutStatus = names(["*", "-clusterStatus"]);
    expect(withoutStatus).toContain("cluster-controller");
    expect(withoutStatus).not.toContain("cluster-status-controller");
    expect(names(["clusterStatus"])).toEqual(["cluster-status-controller"]);
    expect(names(["-cluster"])).toEqual([]);
    const withoutCluster = names(["*", "-cluster"]);
    expect(withoutCluster).toContain("cluster-status-controller");
    expect(withoutCluster).not.toContain("cluster-controller");
    expect(withoutCluster).not.toContain("cluster-monitor");
  });
});

describe("cluster controller over a joined member", () => {
  let env: ClusterTestEnv;
  let history: ClusterHistory;
  let clusterOnly: RunningManager;

  beforeAll(async () => {
    env = await ClusterTestEnv.start();
    history = env.history;
    // Only the cluster controller at first: nothing writes Ready, so the cluster stays not ready.
    clusterOnly = env.startManager({ controllers: ["cluster"] });
    await env.addMember("member1");
    await env.join("member1");
  });
  afterAll(async () => {
    await env?.stop();
  });

  it("join records the Cluster in Push mode with its id, endpoint and credential secrets", async () => {
    const m = env.member("member1");
    expect(env.output.join("")).toContain("cluster(member1) is joined successfully\n");
    const cluster = await env.getCluster("member1");
    expect(cluster.spec).toMatchObject({
      id: m.clusterId,
      syncMode: "Push",
      apiEndpoint: m.url,
      secretRef: { namespace: "karmada-cluster", name: "member1" },
      impersonatorSecretRef: { namespace: "karmada-cluster", name: "member1-impersonator" },
    });
    const owner = { apiVersion: "cluster.karmada.io/v1alpha1", kind: "Cluster", name: "member1" };

    // Control plane: the credentials of the member's karmada-member1 service account...
    const creds = await env.client.get(RESOURCES.secrets, "karmada-cluster", "member1");
    const saSecret = await m.client.get(RESOURCES.secrets, "karmada-cluster", "karmada-member1");
    expect(b64(dataOf(creds).token)).toBe(b64(dataOf(saSecret).token));
    expect(b64(dataOf(creds).token)).not.toBe("");
    expect(b64(dataOf(creds).caBundle)).toBe(b64(dataOf(saSecret)["ca.crt"]));
    expect(creds.metadata.ownerReferences).toEqual([
      expect.objectContaining({ ...owner, uid: cluster.metadata.uid }),
    ]);
    // ...and of the impersonator.
    const imp = await env.client.get(RESOURCES.secrets, "karmada-cluster", "member1-impersonator");
    const impSecret = await m.client.get(RESOURCES.secrets, "karmada-cluster", "karmada-impersonator");
    expect(b64(dataOf(imp).token)).toBe(b64(dataOf(impSecret).token));
    expect(imp.metadata.ownerReferences).toEqual([
      expect.objectContaining({ ...owner, uid: cluster.metadata.uid }),
    ]);

    // Member: namespace, service accounts, a cluster-admin-like role bound to karmada-member1.
    const system = { "karmada.io/system": "true" };
    const ns = await m.client.get(RESOURCES.namespaces, undefined, "karmada-cluster");
    expect(ns.metadata.labels).toMatchObject(system);
    for (const sa of ["karmada-member1", "karmada-impersonator"]) {
      const obj = await m.client.get(RESOURCES.serviceaccounts, "karmada-cluster", sa);
      expect(obj.metadata.labels).toMatchObject(system);
    }
    const role = await m.client.get(
      RESOURCES.clusterroles,
      undefined,
      "karmada-controller-manager:karmada-member1",
    );
    expect(role.rules).toEqual([
      { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
      { nonResourceURLs: ["*"], verbs: ["get"] },
    ]);
    const binding = await m.client.get(
      RESOURCES.clusterrolebindings,
      undefined,
      "karmada-controller-manager:karmada-member1",
    );
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: "karmada-member1", namespace: "karmada-cluster" },
    ]);
  });

  it("refuses to join a member again under another name (same id) or another member under a used name", async () => {
    const id = env.member("member1").clusterId;
    await expect(env.join("member1", { name: "again" })).rejects.toThrow(
      `the cluster ID ${id} or the cluster name again has been registered`,
    );
    await env.addMember("member9");
    await expect(env.join("member9", { name: "member1" })).rejects.toThrow(
      /or the cluster name member1 has been/,
    );
    expect((await env.client.list(RESOURCES.clusters, undefined)).items.map((c) => c.metadata.name)).toEqual([
      "member1",
    ]);
  });

  it("takes the cluster in: finalizer, execution space, and the not-ready NoSchedule taint while there is no Ready", async () => {
    const cluster = await until(async () => {
      const c = await env.getCluster("member1");
      return c.metadata.finalizers?.includes(CLUSTER_FINALIZER) && taintKeys(c).length > 0 && c;
    }, "finalizer and taint");
    expect(cluster.metadata.finalizers).toEqual([CLUSTER_FINALIZER]);
    expect(taintKeys(cluster)).toEqual([NOT_READY]);
    expect(taintsOf(cluster)[0]!.timeAdded).toMatch(RFC3339);
    expect(cluster.status ?? {}).not.toHaveProperty("conditions");
    const es = await until(
      () => env.client.get(RESOURCES.namespaces, undefined, "karmada-es-member1"),
      "the execution space",
    );
    expect(es.metadata.labels).toMatchObject({ "karmada.io/system": "true" });
    const running = clusterOnly.manager.running.map((r) => r.name);
    expect(running).toContain("cluster-controller");
    expect(running).not.toContain("cluster-status-controller");
  });

  it("records valid Events about the Cluster in namespace default", async () => {
    const cluster = await env.getCluster("member1");
    const events = await until(async () => {
      const list = await env.client.list(RESOURCES.events, "default", {
        fieldSelector: "involvedObject.kind=Cluster,involvedObject.name=member1",
      });
      const reasons = list.items.map((e) => e.reason);
      return (
        reasons.includes("CreateExecutionSpaceSucceed") &&
        reasons.includes("TaintClusterSucceed") &&
        list.items
      );
    }, "the cluster's events");
    const created = events.find((e) => e.reason === "CreateExecutionSpaceSucceed")!;
    expect(created).toMatchObject({
      type: "Normal",
      message: "Created execution space(karmada-es-member1) for cluster(member1).",
      involvedObject: {
        apiVersion: "cluster.karmada.io/v1alpha1",
        kind: "Cluster",
        name: "member1",
        uid: cluster.metadata.uid,
      },
      count: 1,
    });
    expect(created.metadata.namespace).toBe("default");
    expect(created.involvedObject).not.toHaveProperty("namespace");
    expect(created.firstTimestamp).toMatch(RFC3339);
    expect(created.source).toEqual({ component: "cluster-controller" });
    const tainted = events.find((e) => e.reason === "TaintClusterSucceed")!;
    expect(tainted).toMatchObject({
      type: "Normal",
      message:
        "Taint cluster succeed: cluster now has taints([{Key:cluster.karmada.io/not-ready,Effect:NoSchedule}]).",
    });
  });

  it("moves the NoSchedule taints with the Ready condition and leaves other taints alone", async () => {
    // A Pull cluster: the status controller never writes it, so the test owns its status.
    await env.client.create(RESOURCES.clusters, {
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      metadata: { name: "pull1" },
      spec: { syncMode: "Pull" },
    });
    await until(
      async () => taintKeys(await env.getCluster("pull1")).includes(NOT_READY),
      "the not-ready taint",
    );
    const user = [
      { key: "cluster.karmada.io/unschedulable", effect: "NoSchedule" },
      { key: TAINT_NOT_READY, effect: "NoExecute", timeAdded: "2026-01-01T00:00:00Z" },
    ];
    const setReady = async (status: string): Promise<void> => {
      const c = await env.getCluster("pull1");
      await env.client.updateStatus(RESOURCES.clusters, {
        ...c,
        status: {
          conditions: [
            {
              type: "Ready",
              status,
              reason: "Test",
              message: "set by the test",
              lastTransitionTime: "2026-05-01T12:00:00Z",
            },
          ],
        },
      });
    };
    const untilTaints = (want: string[]) =>
      until(
        async () => {
          const c = await env.getCluster("pull1");
          return JSON.stringify(taintKeys(c)) === JSON.stringify(want) && c;
        },
        `taints ${want.join(",")}`,
      );

    const c0 = await env.getCluster("pull1");
    await env.client.update(RESOURCES.clusters, {
      ...c0,
      spec: { ...(c0.spec as object), taints: [...taintsOf(c0), ...user] },
    });
    const userKeys = ["cluster.karmada.io/unschedulable:NoSchedule", `${TAINT_NOT_READY}:NoExecute`];

    await setReady("Unknown");
    const unknown = await untilTaints([...userKeys, UNREACHABLE]);
    expect(taintsOf(unknown).at(-1)!.timeAdded).toMatch(RFC3339);
    await setReady("False");
    await untilTaints([...userKeys, NOT_READY]);
    await setReady("True");
    await untilTaints(userKeys);

    // Without user taints, a Ready cluster has no `taints` at all (upstream omits the empty list).
    const c1 = await env.getCluster("pull1");
    await env.client.update(RESOURCES.clusters, { ...c1, spec: { ...(c1.spec as object), taints: [] } });
    await setReady("False");
    await untilTaints([NOT_READY]);
    await setReady("True");
    const done = await untilTaints([]);
    expect(done.spec).not.toHaveProperty("taints");
    // Events are written in batches, a moment after they happen.
    await until(
      async () =>
        (await env.eventsFor("pull1")).find(
          (e) => e.message === "Taint cluster succeed: cluster now does not have taints.",
        ),
      "the taint event",
    );
  });

  it("turns Ready once the status controller runs, and the not-ready taint goes", async () => {
    const statusOnly = env.startManager({
      controllers: ["clusterStatus"],
      options: {
        clusterStatusUpdateFrequencyMs: 100,
        clusterSuccessThresholdMs: 100,
        clusterFailureThresholdMs: 300,
      },
    });
    expect(statusOnly.manager.running.map((r) => r.name)).toEqual([
      "resource-detector",
      "cluster-status-controller",
    ]);
    await env.untilReady("member1", "True", "ClusterReady");
    await until(async () => taintKeys(await env.getCluster("member1")).length === 0, "no taints");
    // The taint was there before Ready turned True and gone after.
    const snaps = history.of("member1").flatMap((e) => (e.snapshot ? [e.snapshot] : []));
    const firstReady = snaps.findIndex((s) => s.ready === "True");
    expect(snaps.slice(0, firstReady).some((s) => s.taints.includes(NOT_READY))).toBe(true);
    expect(snaps.at(-1)!.taints).toEqual([]);
    // The Pull cluster is not the status controller's.
    expect((await env.getCluster("pull1")).status).toMatchObject({
      conditions: [{ type: "Ready", reason: "Test" }],
    });
  });

  it("recreates the execution space when someone deletes it", async () => {
    const before = await env.client.get(RESOURCES.namespaces, undefined, "karmada-es-member1");
    await env.client.delete(RESOURCES.namespaces, undefined, "karmada-es-member1");
    const after = await until(async () => {
      const ns = await env.client.get(RESOURCES.namespaces, undefined, "karmada-es-member1");
      return ns.metadata.uid !== before.metadata.uid && !ns.metadata.deletionTimestamp && ns;
    }, "a new execution space");
    expect(after.metadata.labels).toMatchObject({ "karmada.io/system": "true" });
  });

  it("on delete: removes the execution space, waits for bindings to leave, then drops the finalizer", async () => {
    const rb = await env.client.create(RESOURCE_BINDINGS, {
      apiVersion: "work.karmada.io/v1alpha2",
      kind: "ResourceBinding",
      metadata: { name: "web-deployment", namespace: "default" },
      spec: {
        resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" },
        clusters: [{ name: "member1", replicas: 1 }],
      },
    });
    const crb = await env.client.create(CLUSTER_RESOURCE_BINDINGS, {
      apiVersion: "work.karmada.io/v1alpha2",
      kind: "ClusterResourceBinding",
      metadata: { name: "team-namespace" },
      spec: {
        resource: { apiVersion: "v1", kind: "Namespace", name: "team" },
        clusters: [{ name: "member1" }],
      },
    });
    await env.client.delete(RESOURCES.clusters, undefined, "member1");
    await until(
      () => env.gone(() => env.client.get(RESOURCES.namespaces, undefined, "karmada-es-member1")),
      "the execution space to go",
    );
    const removed = await until(
      async () => (await env.eventsFor("member1")).find((e) => e.reason === "RemoveExecutionSpaceSucceed"),
      "RemoveExecutionSpaceSucceed",
    );
    expect(removed).toMatchObject({
      type: "Normal",
      message: "Removed execution space for cluster(member1).",
    });

    // Still there: bindings list it.
    const waiting = await env.getCluster("member1");
    expect(waiting.metadata.deletionTimestamp).toBeDefined();
    expect(waiting.metadata.finalizers).toEqual([CLUSTER_FINALIZER]);

    history.mark("member1", "rb moved");
    await env.client.update(RESOURCE_BINDINGS, { ...rb, spec: { ...(rb.spec as object), clusters: [] } });
    history.mark("member1", "crb moved");
    await env.client.update(CLUSTER_RESOURCE_BINDINGS, {
      ...crb,
      spec: { ...(crb.spec as object), clusters: [] },
    });
    await until(() => env.gone(() => env.getCluster("member1")), "the cluster to go");
    const order = history
      .of("member1")
      .map((e) => e.marker ?? (e.snapshot?.event === "deleted" ? "deleted" : undefined))
      .filter((x) => x !== undefined);
    expect(order).toEqual(["rb moved", "crb moved", "deleted"]);

    // The credentials go with the Cluster (owner references).
    for (const name of ["member1", "member1-impersonator"]) {
      await until(
        () => env.gone(() => env.client.get(RESOURCES.secrets, "karmada-cluster", name)),
        `secret ${name} to go`,
      );
    }
  });

  it("unjoin deletes the Cluster and what join created in the member", async () => {
    const m = await env.addMember("member2");
    // Both controllers are running now (two managers): the cluster turns Ready.
    await env.join("member2");
    await env.untilReady("member2", "True");
    await env.unjoin("member2");
    // unjoin waited for the Cluster; the controller removed the execution space first.
    expect(await env.gone(() => env.getCluster("member2"))).toBe(true);
    expect(await env.gone(() => env.client.get(RESOURCES.namespaces, undefined, "karmada-es-member2"))).toBe(
      true,
    );
    const role = "karmada-controller-manager:karmada-member2";
    expect(await env.gone(() => m.client.get(RESOURCES.clusterrolebindings, undefined, role))).toBe(true);
    expect(await env.gone(() => m.client.get(RESOURCES.clusterroles, undefined, role))).toBe(true);
    expect(
      await env.gone(() => m.client.get(RESOURCES.serviceaccounts, "karmada-cluster", "karmada-member2")),
    ).toBe(true);
    await until(
      () => env.gone(() => m.client.get(RESOURCES.namespaces, undefined, "karmada-cluster")),
      "the member's karmada-cluster namespace to go",
    );
    await expect(env.unjoin("member2")).rejects.toThrow(
      "no cluster object member2 found in karmada control Plane",
    );
  });
});
