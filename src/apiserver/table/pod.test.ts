import { describe, expect, it } from "vitest";
import { ago, cells, DAY, HOUR, header, MINUTE, NOW, SECOND } from "./table.fixtures.ts";
import { toTable } from "./table.ts";

const running = (name: string, extra: object = {}) => ({
  name,
  ready: true,
  started: true,
  restartCount: 0,
  state: { running: { startedAt: ago(HOUR) } },
  ...extra,
});

function pod(status: object, spec: object = {}, metadata: object = {}) {
  return {
    metadata: {
      name: "web-7d4b9c-x2k",
      namespace: "default",
      creationTimestamp: ago(2 * DAY + 3 * HOUR),
      ...metadata,
    },
    spec: { containers: [{ name: "app", image: "nginx:1.25" }], nodeName: "member1-worker", ...spec },
    status,
  };
}

/** Ready, Status and Restarts of a pod. */
const summary = (p: object) => cells("/Pod", p).slice(1, 4);

describe("Pod columns", () => {
  it("has IP, Node, Nominated Node and Readiness Gates only with -o wide", () => {
    expect(header("/Pod")).toEqual([
      "Name",
      "Ready",
      "Status",
      "Restarts",
      "Age",
      "IP*",
      "Node*",
      "Nominated Node*",
      "Readiness Gates*",
    ]);
  });

  it("a running pod with restarts on a node", () => {
    const p = pod(
      {
        phase: "Running",
        podIP: "10.244.1.17",
        podIPs: [{ ip: "10.244.1.17" }, { ip: "fd00::17" }],
        conditions: [{ type: "Ready", status: "True" }],
        containerStatuses: [
          running("app", {
            restartCount: 2,
            lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * MINUTE) } },
          }),
          running("sidecar", {
            restartCount: 1,
            lastState: { terminated: { exitCode: 137, finishedAt: ago(HOUR) } },
          }),
        ],
      },
      { containers: [{ name: "app" }, { name: "sidecar" }] },
    );
    expect(cells("/Pod", p)).toEqual([
      "web-7d4b9c-x2k",
      "2/2",
      "Running",
      "3 (5m ago)",
      "2d3h",
      "10.244.1.17",
      "member1-worker",
      "<none>",
      "<none>",
    ]);
  });

  it("an unscheduled pod", () => {
    const p = pod({ phase: "Pending" }, { nodeName: undefined });
    expect(cells("/Pod", p)).toEqual([
      "web-7d4b9c-x2k",
      "0/1",
      "Pending",
      "0",
      "2d3h",
      "<none>",
      "<none>",
      "<none>",
      "<none>",
    ]);
  });

  it("readiness gates count the True ones", () => {
    const p = pod(
      { phase: "Running", conditions: [{ type: "example.com/lb", status: "True" }], nominatedNodeName: "w2" },
      { readinessGates: [{ conditionType: "example.com/lb" }, { conditionType: "example.com/dns" }] },
    );
    expect(cells("/Pod", p).slice(7)).toEqual(["w2", "1/2"]);
  });
});

describe("Pod status", () => {
  it("CrashLoopBackOff with the time of the last restart", () => {
    const p = pod({
      phase: "Running",
      containerStatuses: [
        {
          name: "app",
          ready: false,
          restartCount: 7,
          state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s" } },
          lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: ago(30 * SECOND) } },
        },
      ],
    });
    expect(summary(p)).toEqual(["0/1", "CrashLoopBackOff", "7 (30s ago)"]);
  });

  it("exit codes and signals without a reason", () => {
    const exit = pod({
      phase: "Failed",
      containerStatuses: [{ name: "app", state: { terminated: { exitCode: 137 } } }],
    });
    expect(summary(exit)).toEqual(["0/1", "ExitCode:137", "0"]);
    const signal = pod({
      phase: "Failed",
      containerStatuses: [{ name: "app", state: { terminated: { exitCode: 0, signal: 9 } } }],
    });
    expect(summary(signal)).toEqual(["0/1", "Signal:9", "0"]);
  });

  it("a completed pod is marked Completed in the row conditions", () => {
    const p = pod({
      phase: "Succeeded",
      containerStatuses: [
        { name: "app", ready: false, state: { terminated: { exitCode: 0, reason: "Completed" } } },
      ],
    });
    expect(summary(p)).toEqual(["0/1", "Completed", "0"]);
    const table = toTable("/Pod", [p], { now: NOW, includeObject: "None" });
    expect(table.rows[0]?.conditions).toEqual([
      {
        type: "Completed",
        status: "True",
        reason: "Succeeded",
        message: "The pod has completed successfully.",
      },
    ]);
    const failed = pod({
      phase: "Failed",
      reason: "Evicted",
      message: "The node was low on resource: memory.",
    });
    expect(summary(failed)).toEqual(["0/1", "Evicted", "0"]);
    expect(
      toTable("/Pod", [failed], { now: NOW, includeObject: "None" }).rows[0]?.conditions?.[0]?.reason,
    ).toBe("Failed");
  });

  it("Running again when a completed container has a running sibling", () => {
    const p = pod(
      {
        phase: "Running",
        conditions: [{ type: "Ready", status: "True" }],
        containerStatuses: [
          running("app"),
          { name: "job", state: { terminated: { exitCode: 0, reason: "Completed" } } },
        ],
      },
      { containers: [{ name: "app" }, { name: "job" }] },
    );
    expect(summary(p)).toEqual(["1/2", "Running", "0"]);
    const notReady = { ...p, status: { ...p.status, conditions: [] } };
    expect(summary(notReady)).toEqual(["1/2", "NotReady", "0"]);
  });

  it("init containers: progress, waiting reasons and failures", () => {
    const spec = { initContainers: [{ name: "migrate" }, { name: "seed" }] };
    const progress = pod(
      {
        phase: "Pending",
        initContainerStatuses: [
          { name: "migrate", state: { terminated: { exitCode: 0, reason: "Completed" } } },
          { name: "seed", state: { running: {} } },
        ],
        containerStatuses: [{ name: "app", state: { waiting: { reason: "PodInitializing" } } }],
      },
      spec,
    );
    expect(summary(progress)).toEqual(["0/1", "Init:1/2", "0"]);
    const backoff = pod(
      {
        phase: "Pending",
        initContainerStatuses: [
          {
            name: "migrate",
            restartCount: 4,
            state: { waiting: { reason: "CrashLoopBackOff" } },
            lastState: { terminated: { exitCode: 1, finishedAt: ago(2 * MINUTE) } },
          },
        ],
      },
      spec,
    );
    expect(summary(backoff)).toEqual(["0/1", "Init:CrashLoopBackOff", "4 (2m ago)"]);
    const error = pod(
      {
        phase: "Failed",
        initContainerStatuses: [{ name: "migrate", state: { terminated: { exitCode: 2, reason: "Error" } } }],
      },
      spec,
    );
    expect(summary(error)).toEqual(["0/1", "Init:Error", "0"]);
    const exitCode = pod(
      {
        phase: "Pending",
        initContainerStatuses: [{ name: "migrate", state: { terminated: { exitCode: 3 } } }],
      },
      spec,
    );
    expect(summary(exitCode)[1]).toBe("Init:ExitCode:3");
  });

  it("sidecar containers count towards ready and total, and their restarts stay", () => {
    const p = pod(
      {
        phase: "Running",
        conditions: [
          { type: "Initialized", status: "True" },
          { type: "Ready", status: "True" },
        ],
        initContainerStatuses: [
          running("proxy", {
            restartCount: 1,
            lastState: { terminated: { exitCode: 1, finishedAt: ago(10 * MINUTE) } },
          }),
        ],
        containerStatuses: [running("app")],
      },
      { initContainers: [{ name: "proxy", restartPolicy: "Always" }] },
    );
    expect(summary(p)).toEqual(["2/2", "Running", "1 (10m ago)"]);
  });

  it("Terminating while deleting, Unknown when the node is lost, the phase once terminal", () => {
    const deleting = { deletionTimestamp: ago(10 * SECOND) };
    expect(summary(pod({ phase: "Running", containerStatuses: [running("app")] }, {}, deleting))).toEqual([
      "1/1",
      "Terminating",
      "0",
    ]);
    expect(summary(pod({ phase: "Running", reason: "NodeLost" }, {}, deleting))[1]).toBe("Unknown");
    expect(summary(pod({ phase: "Failed" }, {}, deleting))[1]).toBe("Failed");
  });

  it("SchedulingGated", () => {
    const p = pod({
      phase: "Pending",
      conditions: [{ type: "PodScheduled", status: "False", reason: "SchedulingGated" }],
    });
    expect(summary(p)).toEqual(["0/1", "SchedulingGated", "0"]);
  });
});
