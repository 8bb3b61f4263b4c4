import { describe, expect, it } from "vitest";
import type { StoredObject } from "../api/meta.ts";
import { DEFAULT_TIMING } from "./context.ts";
import { fullImageName, POD_STAGES, type PodStageEnv } from "./pod-stages.ts";
import { matchStage } from "./stages.ts";

const NOW = Date.parse("2026-03-01T10:00:00Z");
const T = "2026-03-01T10:00:00Z";
const EARLIER = "2026-03-01T09:00:00Z";

function nodeObj(ready: "True" | "False" | "Unknown", taints: unknown[] = []): StoredObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "n0", uid: "uid-n0" },
    spec: { podCIDR: "10.244.0.0/24", taints },
    status: {
      conditions: [{ type: "Ready", status: ready }],
      addresses: [{ type: "InternalIP", address: "172.18.1.2" }],
    },
  };
}

/** `null`: the pod's node does not exist. */
function env(node: StoredObject | null = nodeObj("True"), opts: Partial<PodStageEnv> = {}): PodStageEnv {
  return {
    now: NOW,
    timing: DEFAULT_TIMING,
    node: (name) => (node && name === node.metadata.name ? node : undefined),
    nodesKnown: true,
    workloadUnhealthy: () => false,
    allocateIp: () => "10.244.0.7",
    newContainerId: () => "c".repeat(64),
    ...opts,
  };
}

function pod(
  extra: {
    meta?: Partial<StoredObject["metadata"]>;
    spec?: Record<string, unknown>;
    status?: Record<string, unknown>;
  } = {},
): StoredObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "default", uid: "u1", ...extra.meta },
    spec: {
      nodeName: "n0",
      containers: [{ name: "app", image: "nginx:1.25" }],
      restartPolicy: "Always",
      ...extra.spec,
    },
    status: { phase: "Pending", qosClass: "BestEffort", ...extra.status },
  };
}

const running = (ready = true, extra: Record<string, unknown> = {}) => ({
  phase: "Running",
  startTime: EARLIER,
  podIP: "10.244.0.3",
  conditions: [
    { type: "Ready", status: ready ? "True" : "False", lastTransitionTime: EARLIER },
    { type: "PodScheduled", status: "True", lastTransitionTime: EARLIER },
  ],
  containerStatuses: [
    {
      name: "app",
      image: "docker.io/library/nginx:1.25",
      imageID: "x",
      containerID: "containerd://old",
      ready,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: EARLIER } },
      lastState: {},
    },
  ],
  ...extra,
});

const crashLooping = (restarts: number) =>
  running(false, {
    containerStatuses: [
      {
        name: "app",
        image: "docker.io/library/nginx:1.25",
        imageID: "x",
        containerID: "containerd://old",
        ready: false,
        started: false,
        restartCount: restarts,
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { exitCode: 1 } },
      },
    ],
  });

function decide(p: StoredObject, e: PodStageEnv) {
  const stage = matchStage(POD_STAGES, p, e);
  if (!stage) return undefined;
  const delay = typeof stage.delayMs === "function" ? stage.delayMs(p, e) : (stage.delayMs ?? 0);
  return { stage: stage.name, delay, action: stage.next(p, e) };
}

describe("pod stages (kubelet)", () => {
  it("starts a bound pending pod: Running, Ready, addresses, container and init container statuses", () => {
    const p = pod({ spec: { initContainers: [{ name: "init", image: "busybox" }] } });
    const d = decide(p, env())!;
    expect(d.stage).toBe("pod-start");
    expect(d.delay).toBe(DEFAULT_TIMING.podStartMs);
    expect(d.action).toEqual({
      status: {
        phase: "Running",
        startTime: T,
        hostIP: "172.18.1.2",
        hostIPs: [{ ip: "172.18.1.2" }],
        podIP: "10.244.0.7",
        podIPs: [{ ip: "10.244.0.7" }],
        initContainerStatuses: [
          {
            name: "init",
            image: "docker.io/library/busybox:latest",
            imageID: expect.stringMatching(/^docker\.io\/library\/busybox@sha256:[0-9a-f]{64}$/),
            containerID: `containerd://${"c".repeat(64)}`,
            ready: true,
            started: false,
            restartCount: 0,
            state: {
              terminated: {
                exitCode: 0,
                reason: "Completed",
                startedAt: T,
                finishedAt: T,
                containerID: `containerd://${"c".repeat(64)}`,
              },
            },
            lastState: {},
          },
        ],
        containerStatuses: [
          {
            name: "app",
            image: "docker.io/library/nginx:1.25",
            imageID: expect.stringMatching(/^docker\.io\/library\/nginx@sha256:/),
            containerID: `containerd://${"c".repeat(64)}`,
            ready: true,
            started: true,
            restartCount: 0,
            state: { running: { startedAt: T } },
            lastState: {},
          },
        ],
        conditions: [
          { type: "PodReadyToStartContainers", status: "True", lastProbeTime: null, lastTransitionTime: T },
          { type: "Initialized", status: "True", lastProbeTime: null, lastTransitionTime: T },
          { type: "Ready", status: "True", lastProbeTime: null, lastTransitionTime: T },
          { type: "ContainersReady", status: "True", lastProbeTime: null, lastTransitionTime: T },
          { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: T },
        ],
      },
    });
  });

  it("uses the node's address as pod IP for hostNetwork pods", () => {
    const d = decide(pod({ spec: { hostNetwork: true } }), env())!;
    expect(d.action).toMatchObject({ status: { podIP: "172.18.1.2", hostIP: "172.18.1.2" } });
  });

  it.each<[string, StoredObject, PodStageEnv, string | undefined, number | undefined]>([
    [
      "unbound pods wait for the scheduler",
      pod({ spec: { nodeName: undefined } }),
      env(),
      undefined,
      undefined,
    ],
    ["pods on a NotReady node do not start", pod(), env(nodeObj("False")), undefined, undefined],
    [
      "terminating pods go after min(grace, podDeleteMs)",
      pod({ meta: { deletionTimestamp: T, deletionGracePeriodSeconds: 30 }, status: running() }),
      env(),
      "pod-delete",
      DEFAULT_TIMING.podDeleteMs,
    ],
    [
      "terminating pods with grace 0 go at once",
      pod({ meta: { deletionTimestamp: T, deletionGracePeriodSeconds: 0 }, status: running() }),
      env(),
      "pod-delete",
      0,
    ],
    [
      "pods of a deleted node are removed",
      pod({ status: running() }),
      env(null),
      "pod-orphaned",
      DEFAULT_TIMING.podDeleteMs,
    ],
    [
      "...but not before nodes are known",
      pod({ status: running() }),
      env(null, { nodesKnown: false }),
      undefined,
      undefined,
    ],
    [
      "a lost node makes its pods not ready",
      pod({ status: running() }),
      env(nodeObj("Unknown")),
      "pod-node-lost",
      0,
    ],
    [
      "NoExecute taints evict after the toleration",
      pod({
        spec: {
          tolerations: [
            {
              key: "node.kubernetes.io/unreachable",
              operator: "Exists",
              effect: "NoExecute",
              tolerationSeconds: 300,
            },
          ],
        },
        status: running(false),
      }),
      env(nodeObj("Unknown", [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }])),
      "pod-evict",
      300_000,
    ],
    [
      "untolerated NoExecute taints evict at once",
      pod({ status: running(false) }),
      env(nodeObj("True", [{ key: "evict-me", effect: "NoExecute" }])),
      "pod-evict",
      0,
    ],
    [
      "tolerated forever: stays",
      pod({ spec: { tolerations: [{ operator: "Exists" }] }, status: running(true) }),
      env(nodeObj("True", [{ key: "evict-me", effect: "NoExecute" }])),
      undefined,
      undefined,
    ],
    [
      "Job pods finish after jobPodRunMs",
      pod({
        meta: {
          ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "j", uid: "j1", controller: true }],
        },
        status: running(),
      }),
      env(),
      "pod-finish",
      DEFAULT_TIMING.jobPodRunMs,
    ],
    [
      "a run-time annotation finishes any pod",
      pod({ meta: { annotations: { "member-sim.karmada-ts.io/run-ms": "250" } }, status: running() }),
      env(),
      "pod-finish",
      250,
    ],
    ["a running Ready pod is left alone", pod({ status: running() }), env(), undefined, undefined],
    [
      "an unhealthy workload's pod crash-loops",
      pod({ status: running() }),
      env(nodeObj("True"), { workloadUnhealthy: () => true }),
      "pod-crash-loop",
      0,
    ],
    [
      "a crash-looping pod of a still unhealthy workload restarts",
      pod({ status: crashLooping(1) }),
      env(nodeObj("True"), { workloadUnhealthy: () => true }),
      "pod-crash-restart",
      DEFAULT_TIMING.crashLoopMs,
    ],
    [
      "a crash-looping pod recovers once healthy",
      pod({ status: crashLooping(3) }),
      env(),
      "pod-recover",
      DEFAULT_TIMING.podStartMs,
    ],
    [
      "a not-ready pod recovers on a Ready node",
      pod({ status: running(false) }),
      env(),
      "pod-recover",
      DEFAULT_TIMING.podStartMs,
    ],
  ])("%s", (_name, p, e, stage, delay) => {
    const d = decide(p, e);
    expect(d?.stage).toBe(stage);
    expect(d?.delay).toBe(delay);
  });

  it("deletes with grace 0 and evicts with the default grace", () => {
    expect(decide(pod({ meta: { deletionTimestamp: T }, status: running() }), env())!.action).toEqual({
      delete: true,
      gracePeriodSeconds: 0,
    });
    expect(
      decide(pod({ status: running(false) }), env(nodeObj("True", [{ key: "x", effect: "NoExecute" }])))!
        .action,
    ).toEqual({ delete: true });
  });

  it("marks pods on a lost node not ready, nothing else", () => {
    const d = decide(pod({ status: running() }), env(nodeObj("Unknown")))!;
    expect(d.action).toEqual({
      status: {
        conditions: [
          { type: "Ready", status: "False", lastTransitionTime: T },
          { type: "PodScheduled", status: "True", lastTransitionTime: EARLIER },
        ],
      },
    });
  });

  it("crash-loops: waiting CrashLoopBackOff, a restart counted, the last run terminated with an error", () => {
    const d = decide(pod({ status: running() }), env(nodeObj("True"), { workloadUnhealthy: () => true }))!;
    expect(d.stage).toBe("pod-crash-loop");
    expect(d.action).toMatchObject({
      status: {
        phase: "Running",
        startTime: EARLIER,
        podIP: "10.244.0.7",
        containerStatuses: [
          {
            ready: false,
            started: false,
            restartCount: 1,
            containerID: "containerd://old",
            state: {
              waiting: {
                reason: "CrashLoopBackOff",
                message: "back-off 10s restarting failed container=app pod=p_default(u1)",
              },
            },
            lastState: { terminated: { exitCode: 1, reason: "Error", startedAt: EARLIER, finishedAt: T } },
          },
        ],
        conditions: [
          { type: "PodReadyToStartContainers", status: "True" },
          { type: "Initialized", status: "True" },
          {
            type: "Ready",
            status: "False",
            reason: "ContainersNotReady",
            message: "containers with unready status: [app]",
            lastTransitionTime: T,
          },
          { type: "ContainersReady", status: "False", reason: "ContainersNotReady" },
          { type: "PodScheduled", status: "True", lastTransitionTime: EARLIER },
        ],
      },
    });
  });

  it.each([
    ["0", "Succeeded", "Completed", "PodCompleted"],
    ["2", "Failed", "Error", "PodFailed"],
  ])("finishes with exit code %s as %s", (code, phase, reason, readyReason) => {
    const p = pod({
      meta: {
        annotations: { "member-sim.karmada-ts.io/run-ms": "0", "member-sim.karmada-ts.io/exit-code": code },
      },
      status: running(),
    });
    expect(decide(p, env())!.action).toMatchObject({
      status: {
        phase,
        containerStatuses: [
          {
            ready: false,
            started: false,
            state: { terminated: { exitCode: Number(code), reason, startedAt: EARLIER, finishedAt: T } },
          },
        ],
        conditions: [
          { type: "PodReadyToStartContainers", status: "False" },
          { type: "Initialized", status: "True" },
          { type: "Ready", status: "False", reason: readyReason },
          { type: "ContainersReady", status: "False", reason: readyReason },
          { type: "PodScheduled", status: "True" },
        ],
      },
    });
  });

  it.each([
    ["nginx", "docker.io/library/nginx:latest"],
    ["nginx:1.25", "docker.io/library/nginx:1.25"],
    ["bitnami/redis:7", "docker.io/bitnami/redis:7"],
    ["ghcr.io/org/app:v1", "ghcr.io/org/app:v1"],
    ["localhost:5000/app", "localhost:5000/app:latest"],
    ["registry.k8s.io/pause@sha256:abc", "registry.k8s.io/pause@sha256:abc"],
  ])("reports image %s as %s", (image, full) => {
    expect(fullImageName(image)).toBe(full);
  });
});
