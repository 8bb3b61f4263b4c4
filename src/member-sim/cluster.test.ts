import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  conditionOf,
  deploymentObject,
  FAST,
  podObject,
  TestClock,
  until,
} from "../../test/support/member-sim.ts";
import type { StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { type MemberCluster, startMemberCluster } from "./cluster.ts";
import { FaultError } from "./faults.ts";

type Status = Record<string, unknown>;
const statusOf = (o: StoredObject | undefined): Status => (o?.status ?? {}) as Status;

describe("member cluster: nodes, deployments, scheduling, faults", () => {
  let m: MemberCluster;
  const clock = new TestClock("2026-03-01T10:00:00Z");

  beforeAll(async () => {
    m = await startMemberCluster({
      name: "member1",
      region: "eu-west",
      zone: "eu-west-1a",
      timing: FAST,
      clock,
    });
  });
  afterAll(async () => {
    await m.stop();
  });

  const ns = async (name: string): Promise<string> => {
    await m.client.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    return name;
  };
  const get = (
    res: (typeof RESOURCES)[keyof typeof RESOURCES],
    namespace: string | undefined,
    name: string,
  ) => m.client.get(res, namespace, name);
  const pods = async (namespace: string, selector?: string): Promise<StoredObject[]> =>
    (await m.client.list(RESOURCES.pods, namespace, selector ? { labelSelector: selector } : {})).items;
  const deploymentSettled = (namespace: string, name: string, replicas: number) =>
    until(async () => {
      const d = await get(RESOURCES.deployments, namespace, name);
      const s = statusOf(d);
      const done =
        s.observedGeneration === d.metadata.generation &&
        (s.updatedReplicas ?? 0) === replicas &&
        (s.replicas ?? 0) === replicas &&
        (s.availableReplicas ?? 0) === replicas &&
        conditionOf(d, "Progressing")?.reason === "NewReplicaSetAvailable";
      return done && d;
    }, `deployment ${name} at ${replicas} replicas`);

  it("registers Ready nodes with capacity, labels, leases and heartbeats; the kubernetes service; kube-system's uid as cluster id", async () => {
    const nodes = (await m.client.list(RESOURCES.nodes, undefined)).items;
    expect(nodes.map((n) => n.metadata.name)).toEqual(["member1-node-0", "member1-node-1", "member1-node-2"]);
    const node = nodes[0]!;
    expect(node.metadata.labels).toMatchObject({
      "kubernetes.io/hostname": "member1-node-0",
      "kubernetes.io/os": "linux",
      "topology.kubernetes.io/region": "eu-west",
      "topology.kubernetes.io/zone": "eu-west-1a",
    });
    expect(
      Object.keys(node.metadata.labels ?? {}).some((k) => k.startsWith("node-role.kubernetes.io/")),
    ).toBe(false);
    const status = statusOf(node) as {
      allocatable: Record<string, string>;
      nodeInfo: Record<string, string>;
      addresses: Array<{ type: string }>;
    };
    expect(status.allocatable).toMatchObject({
      cpu: "8",
      memory: "32Gi",
      pods: "110",
      "ephemeral-storage": "100Gi",
    });
    expect(status.nodeInfo.kubeletVersion).toMatch(/^v1\.32\./);
    expect(status.nodeInfo).toMatchObject({ architecture: "amd64", operatingSystem: "linux" });
    expect(status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\//);
    expect(status.addresses.map((a) => a.type)).toEqual(["InternalIP", "Hostname"]);
    expect(conditionOf(node, "Ready")).toMatchObject({ status: "True", reason: "KubeletReady" });
    // Heartbeats carry the (injected) clock's time.
    clock.set("2026-03-01T10:05:00Z");
    await until(
      async () =>
        conditionOf(await get(RESOURCES.nodes, undefined, "member1-node-1"), "Ready")?.lastHeartbeatTime ===
        "2026-03-01T10:05:00Z",
      "a heartbeat",
    );
    const lease = await until(async () => {
      const l = await get(RESOURCES.leases, "kube-node-lease", "member1-node-1");
      return String((l.spec as { renewTime?: string }).renewTime).startsWith("2026-03-01T10:05:00") && l;
    }, "a lease renewal");
    expect(lease.spec).toMatchObject({ holderIdentity: "member1-node-1", leaseDurationSeconds: 40 });
    expect(lease.metadata.ownerReferences?.[0]).toMatchObject({ kind: "Node", name: "member1-node-1" });
    const svc = await get(RESOURCES.services, "default", "kubernetes");
    expect((svc.spec as { clusterIP: string }).clusterIP).toBe("10.96.0.1");
    expect(m.clusterId).toBe((await get(RESOURCES.namespaces, undefined, "kube-system")).metadata.uid);
  });

  it("runs a Deployment: ReplicaSet with a pod-template-hash, Ready pods, status and conditions as upstream writes them", async () => {
    const n = await ns("deploy");
    await m.client.create(RESOURCES.deployments, deploymentObject("web", n));
    const d = await deploymentSettled(n, "web", 3);
    const status = statusOf(d);
    expect(status).toMatchObject({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(status.unavailableReplicas).toBeUndefined();
    const rsList = (await m.client.list(RESOURCES.replicasets, n)).items;
    expect(rsList).toHaveLength(1);
    const rs = rsList[0]!;
    const hash = rs.metadata.labels?.["pod-template-hash"];
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.metadata.annotations).toMatchObject({
      "deployment.kubernetes.io/revision": "1",
      "deployment.kubernetes.io/desired-replicas": "3",
      "deployment.kubernetes.io/max-replicas": "4",
    });
    expect(d.metadata.annotations?.["deployment.kubernetes.io/revision"]).toBe("1");
    expect(conditionOf(d, "Available")).toMatchObject({
      status: "True",
      reason: "MinimumReplicasAvailable",
      message: "Deployment has minimum availability.",
    });
    expect(conditionOf(d, "Progressing")).toMatchObject({
      status: "True",
      reason: "NewReplicaSetAvailable",
      message: `ReplicaSet "${rs.metadata.name}" has successfully progressed.`,
    });
    const list = await pods(n);
    expect(list).toHaveLength(3);
    const nodesUsed = new Set(list.map((p) => (p.spec as { nodeName: string }).nodeName));
    expect(nodesUsed.size).toBe(3);
    const pod = list[0]!;
    expect(pod.metadata.name).toMatch(new RegExp(`^${rs.metadata.name}-[a-z0-9]{5}$`));
    expect(pod.metadata.labels?.["pod-template-hash"]).toBe(hash);
    expect(pod.metadata.ownerReferences).toEqual([
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: rs.metadata.name,
        uid: rs.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const ps = statusOf(pod) as {
      phase: string;
      podIP: string;
      hostIP: string;
      podIPs: unknown[];
      startTime: string;
      containerStatuses: Array<Record<string, unknown>>;
      conditions: Array<{ type: string; status: string }>;
    };
    expect(ps.phase).toBe("Running");
    expect(ps.podIP).toMatch(/^10\.244\.\d+\.\d+$/);
    expect(ps.hostIP).toMatch(/^172\.18\.\d+\.\d+$/);
    expect(ps.podIPs).toEqual([{ ip: ps.podIP }]);
    expect(ps.startTime).toBeDefined();
    expect(ps.conditions.map((c) => `${c.type}=${c.status}`)).toEqual([
      "PodReadyToStartContainers=True",
      "Initialized=True",
      "Ready=True",
      "ContainersReady=True",
      "PodScheduled=True",
    ]);
    expect(ps.containerStatuses[0]).toMatchObject({
      name: "app",
      image: "docker.io/library/nginx:1.25",
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: {} },
    });
    expect(ps.containerStatuses[0]!.imageID).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    const rsStatus = statusOf(await get(RESOURCES.replicasets, n, rs.metadata.name));
    expect(rsStatus).toMatchObject({
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
  });

  it("rolls out a new image within maxSurge/maxUnavailable, keeps old ReplicaSets at 0 up to revisionHistoryLimit", async () => {
    const n = await ns("rollout");
    await m.client.create(
      RESOURCES.deployments,
      deploymentObject("web", n, { replicas: 4, spec: { revisionHistoryLimit: 1 } }),
    );
    await deploymentSettled(n, "web", 4);
    // Watch the pod count while rolling: never above replicas + maxSurge (25% of 4 = 1).
    let maxPods = 0;
    const remove = m.informers.pods.addHandler({
      onAdd: () => {
        const live = m.informers.pods.list(n).filter((p) => !p.metadata.deletionTimestamp);
        maxPods = Math.max(maxPods, live.length);
      },
    });
    for (const image of ["nginx:1.26", "nginx:1.27"]) {
      await m.client.patch(RESOURCES.deployments, n, "web", "strategic", {
        spec: { template: { spec: { containers: [{ name: "app", image }] } } },
      });
      await deploymentSettled(n, "web", 4);
    }
    remove();
    expect(maxPods).toBeLessThanOrEqual(5);
    const d = await get(RESOURCES.deployments, n, "web");
    expect(d.metadata.annotations?.["deployment.kubernetes.io/revision"]).toBe("3");
    const rsList = (await m.client.list(RESOURCES.replicasets, n)).items;
    // The current one and one old one (revisionHistoryLimit 1), the old one at 0.
    await until(
      async () => (await m.client.list(RESOURCES.replicasets, n)).items.length === 2,
      "history cleanup",
    );
    const byRevision = (await m.client.list(RESOURCES.replicasets, n)).items
      .map((rs) => [
        rs.metadata.annotations?.["deployment.kubernetes.io/revision"],
        (rs.spec as { replicas: number }).replicas,
      ])
      .sort();
    expect(byRevision).toEqual([
      ["2", 0],
      ["3", 4],
    ]);
    expect(rsList.length).toBeGreaterThanOrEqual(2);
    // Old pods are gone once their (shortened) grace period ends.
    await until(async () => {
      const images = (await pods(n)).map(
        (p) => (p.spec as { containers: Array<{ image: string }> }).containers[0]!.image,
      );
      return images.length === 4 && images.every((i) => i === "nginx:1.27");
    }, "only new pods");
  });

  it("scales to 0 and back", async () => {
    const n = await ns("scale");
    await m.client.create(RESOURCES.deployments, deploymentObject("web", n, { replicas: 2 }));
    await deploymentSettled(n, "web", 2);
    await m.client.patch(RESOURCES.deployments, n, "web", "merge", { spec: { replicas: 0 } });
    const zero = await deploymentSettled(n, "web", 0);
    expect(statusOf(zero).replicas).toBeUndefined();
    await until(async () => (await pods(n)).length === 0, "pods gone");
    await m.client.patch(RESOURCES.deployments, n, "web", "merge", { spec: { replicas: 3 } });
    await deploymentSettled(n, "web", 3);
    expect((await pods(n)).length).toBe(3);
  });

  it("leaves pods that fit nowhere Pending with kube-scheduler's message and a FailedScheduling event", async () => {
    const n = await ns("pending");
    await m.client.create(
      RESOURCES.pods,
      podObject("big", n, {
        containers: [{ name: "app", image: "nginx", resources: { requests: { cpu: "100" } } }],
      }),
    );
    await m.client.create(RESOURCES.pods, podObject("picky", n, { nodeSelector: { disk: "ssd" } }));
    const message = (name: string) =>
      until(
        async () =>
          conditionOf(await get(RESOURCES.pods, n, name), "PodScheduled")?.message as string | undefined,
        `${name} unschedulable`,
      );
    expect(await message("big")).toBe(
      "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
    );
    expect(await message("picky")).toBe(
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    const big = await get(RESOURCES.pods, n, "big");
    expect(statusOf(big).phase).toBe("Pending");
    expect(conditionOf(big, "PodScheduled")).toMatchObject({ status: "False", reason: "Unschedulable" });
    const events = await until(async () => {
      const list = (await m.client.list(RESOURCES.events, n)).items;
      return list.find(
        (e) => e.reason === "FailedScheduling" && (e.involvedObject as { name: string }).name === "big",
      );
    }, "the FailedScheduling event");
    expect(events).toMatchObject({ type: "Warning", source: { component: "default-scheduler" } });
    // Room appears: a node with the label gets the picky pod.
    await m.client.patch(RESOURCES.nodes, undefined, "member1-node-2", "merge", {
      metadata: { labels: { disk: "ssd" } },
    });
    await until(
      async () =>
        ((await get(RESOURCES.pods, n, "picky")).spec as { nodeName?: string }).nodeName === "member1-node-2",
      "picky scheduled",
    );
    await m.client.patch(RESOURCES.nodes, undefined, "member1-node-2", "merge", {
      metadata: { labels: { disk: null } },
    });
  });

  it("honours taints and tolerations", async () => {
    const n = await ns("taints");
    for (const node of ["member1-node-0", "member1-node-1", "member1-node-2"]) {
      await m.client.patch(RESOURCES.nodes, undefined, node, "merge", {
        spec: { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] },
      });
    }
    await until(
      () =>
        m.informers.nodes.list().every((x) => ((x.spec as { taints?: unknown[] }).taints ?? []).length === 1),
      "taints seen",
    );
    await m.client.create(RESOURCES.pods, podObject("plain", n));
    await m.client.create(
      RESOURCES.pods,
      podObject("tolerant", n, {
        tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }],
      }),
    );
    await until(
      async () => statusOf(await get(RESOURCES.pods, n, "tolerant")).phase === "Running",
      "tolerant running",
    );
    const msg = await until(
      async () =>
        conditionOf(await get(RESOURCES.pods, n, "plain"), "PodScheduled")?.message as string | undefined,
      "plain unschedulable",
    );
    expect(msg).toBe(
      "0/3 nodes are available: 3 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    for (const node of ["member1-node-0", "member1-node-1", "member1-node-2"]) {
      await m.client.patch(RESOURCES.nodes, undefined, node, "merge", { spec: { taints: null } });
    }
    await until(
      async () => statusOf(await get(RESOURCES.pods, n, "plain")).phase === "Running",
      "plain running once untainted",
    );
  });

  it("cordon fault: nodes unschedulable (tainted), new pods Pending; restore schedules them", async () => {
    const n = await ns("cordon");
    const result = await m.faults.set({ type: "cordon" });
    expect(result).toMatchObject({ fault: { type: "cordon", id: expect.any(String) } });
    await until(
      () =>
        m.informers.nodes
          .list()
          .every((x) =>
            ((x.spec as { taints?: Array<{ key: string }> }).taints ?? []).some(
              (t) => t.key === "node.kubernetes.io/unschedulable",
            ),
          ),
      "unschedulable taints",
    );
    await m.client.create(RESOURCES.pods, podObject("waiting", n));
    const msg = await until(
      async () =>
        conditionOf(await get(RESOURCES.pods, n, "waiting"), "PodScheduled")?.message as string | undefined,
      "waiting unschedulable",
    );
    expect(msg).toBe(
      "0/3 nodes are available: 3 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    await m.faults.set({ type: "restore" });
    expect(m.faults.list()).toEqual([]);
    await until(
      async () => statusOf(await get(RESOURCES.pods, n, "waiting")).phase === "Running",
      "scheduled after uncordon",
    );
    expect(
      m.informers.nodes.list().every((x) => !(x.spec as { unschedulable?: boolean }).unschedulable),
    ).toBe(true);
  });

  it("delete-pods fault: the ReplicaSet recreates them", async () => {
    const n = await ns("killpods");
    await m.client.create(RESOURCES.deployments, deploymentObject("web", n, { replicas: 2 }));
    await deploymentSettled(n, "web", 2);
    const before = (await pods(n)).map((p) => p.metadata.name);
    expect(await m.faults.set({ type: "delete-pods", namespace: n, selector: "app=web" })).toEqual({
      deleted: 2,
    });
    await until(async () => {
      const now = await pods(n);
      return (
        now.length === 2 &&
        now.every((p) => !before.includes(p.metadata.name) && statusOf(p).phase === "Running")
      );
    }, "replacement pods");
    await deploymentSettled(n, "web", 2);
  });

  it("unhealthy-workload fault: pods crash-loop, the Deployment shows unavailable replicas; restore heals it", async () => {
    const n = await ns("sick");
    await m.client.create(RESOURCES.deployments, deploymentObject("web", n, { replicas: 2 }));
    await deploymentSettled(n, "web", 2);
    await m.faults.set({ type: "unhealthy-workload", namespace: n, kind: "Deployment", name: "web" });
    const d = await until(async () => {
      const dep = await get(RESOURCES.deployments, n, "web");
      return statusOf(dep).unavailableReplicas === 2 && dep;
    }, "unavailable replicas");
    expect(statusOf(d).availableReplicas).toBeUndefined();
    expect(conditionOf(d, "Available")).toMatchObject({
      status: "False",
      reason: "MinimumReplicasUnavailable",
      message: "Deployment does not have minimum availability.",
    });
    const pod = (await pods(n))[0]!;
    const cs = (statusOf(pod).containerStatuses as Array<Record<string, unknown>>)[0]!;
    expect(cs).toMatchObject({
      ready: false,
      state: { waiting: { reason: "CrashLoopBackOff" } },
      lastState: { terminated: { exitCode: 1, reason: "Error" } },
    });
    expect(cs.restartCount).toBeGreaterThanOrEqual(1);
    expect(conditionOf(pod, "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady" });
    // It keeps restarting.
    await until(async () => {
      const p = await get(RESOURCES.pods, n, pod.metadata.name);
      return ((statusOf(p).containerStatuses as Array<{ restartCount: number }>)[0]!.restartCount ?? 0) >= 2;
    }, "another restart");
    await m.faults.set({ type: "restore" });
    const healed = await deploymentSettled(n, "web", 2);
    expect(statusOf(healed).unavailableReplicas).toBeUndefined();
  });

  it("node-not-ready fault: Ready turns Unknown, the node is tainted unreachable, its pods not ready; restore recovers", async () => {
    const n = await ns("nodedown");
    await m.client.create(
      RESOURCES.pods,
      podObject("on-node", n, { nodeSelector: { "kubernetes.io/hostname": "member1-node-0" } }),
    );
    await until(
      async () => statusOf(await get(RESOURCES.pods, n, "on-node")).phase === "Running",
      "pod running",
    );
    await m.faults.set({ type: "node-not-ready", node: "member1-node-0" });
    const node = await until(async () => {
      const x = await get(RESOURCES.nodes, undefined, "member1-node-0");
      const taints = ((x.spec as { taints?: Array<{ key: string; effect: string }> }).taints ?? []).map(
        (t) => `${t.key}:${t.effect}`,
      );
      return taints.includes("node.kubernetes.io/unreachable:NoExecute") && x;
    }, "unreachable taints");
    expect(conditionOf(node, "Ready")).toMatchObject({
      status: "Unknown",
      reason: "NodeStatusUnknown",
      message: "Kubelet stopped posting node status.",
    });
    await until(
      async () => conditionOf(await get(RESOURCES.pods, n, "on-node"), "Ready")?.status === "False",
      "pod not ready",
    );
    await m.faults.set({ type: "restore" });
    await until(
      async () =>
        conditionOf(await get(RESOURCES.nodes, undefined, "member1-node-0"), "Ready")?.status === "True",
      "node ready",
    );
    await until(async () => {
      const x = await get(RESOURCES.nodes, undefined, "member1-node-0");
      return ((x.spec as { taints?: unknown[] }).taints ?? []).length === 0;
    }, "taints removed");
  });

  it("rejects malformed faults with a clear message", async () => {
    await expect(m.faults.set({ type: "explode" })).rejects.toThrow(FaultError);
    await expect(m.faults.set({ type: "delete-pods" })).rejects.toThrow(
      'delete-pods: "namespace" is required',
    );
    await expect(m.faults.set({ type: "cordon", node: "nope" })).rejects.toThrow('cordon: no node "nope"');
  });
});
