/**
 * `pods/<name>/log` over real HTTP on loopback: our API server with the simulated kubelets'
 * logs (as a member-sim runs it) and without them (the control plane). Pods and their statuses
 * are written through the API, as the simulated kubelet writes them, so every container state
 * the kubelet distinguishes can be set up exactly; the clock is a TestClock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestClock, until } from "../../test/support/member-sim.ts";
import type { StoredObject } from "../api/meta.ts";
import type { UserInfo } from "../apiserver/context.ts";
import { type RunningHttpServer, startHttpServer } from "../apiserver/http.ts";
import { rfc3339Nano } from "../apiserver/pod-log.ts";
import { ApiServer } from "../apiserver/server.ts";
import { silentLogger } from "../log.ts";
import { MemoryStore } from "../storage/memory/store.ts";
import { simulatedPodLogs } from "./logs.ts";
import type { ContainerStatus, PodStatus } from "./types.ts";

const NS = "default";
const PODS = `/api/v1/namespaces/${NS}/pods`;
const STARTED = "2025-03-01T10:00:00Z";
const T0 = Date.parse(STARTED);

interface Reply {
  status: number;
  contentType: string | null;
  text: string;
}

interface Served {
  api: ApiServer;
  http: RunningHttpServer;
  clock: TestClock;
  close(): Promise<void>;
}

async function serve(withLogs: boolean, karmada: boolean): Promise<Served> {
  const clock = new TestClock(T0 + 60_000);
  const store = new MemoryStore();
  const api = await ApiServer.start({ store, karmada, clock, log: silentLogger, compactionIntervalMs: 0 });
  if (withLogs) api.context.podLogs = simulatedPodLogs({ followIntervalMs: 20 });
  const http = await startHttpServer(api.handler, { host: "127.0.0.1", port: 0, log: silentLogger });
  return {
    api,
    http,
    clock,
    async close() {
      await http.close();
      await api.close();
      await store.close();
    },
  };
}

async function request(s: Served, method: string, path: string, body?: unknown): Promise<Reply> {
  const res = await fetch(`${s.http.url}${path}`, {
    method,
    headers: { "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, contentType: res.headers.get("content-type"), text: await res.text() };
}

function running(name: string, restartCount = 0, startedAt = STARTED): ContainerStatus {
  return {
    name,
    image: "docker.io/library/nginx:1.25",
    imageID: "",
    containerID: `containerd://${name}-${restartCount}`,
    ready: true,
    restartCount,
    state: { running: { startedAt } },
    lastState: {},
  };
}

function crashed(name: string, restartCount: number): ContainerStatus {
  return {
    ...running(name, restartCount),
    ready: false,
    state: { waiting: { reason: "CrashLoopBackOff" } },
    lastState: {
      terminated: {
        exitCode: 1,
        reason: "Error",
        startedAt: "2025-03-01T10:00:30Z",
        finishedAt: "2025-03-01T10:00:31Z",
        containerID: `containerd://${name}-${restartCount - 1}`,
      },
    },
  };
}

function waiting(name: string, reason: string): ContainerStatus {
  return { ...running(name), containerID: "", ready: false, state: { waiting: { reason } } };
}

interface PodSetup {
  node?: string;
  containers?: string[];
  initContainers?: string[];
  status?: PodStatus;
}

/** Creates a pod (bound to `node-1` unless told otherwise) and writes its status. */
async function createPod(s: Served, name: string, setup: PodSetup = {}): Promise<StoredObject> {
  const container = (n: string) => ({ name: n, image: `nginx:1.25`, ports: [{ containerPort: 80 }] });
  const spec: Record<string, unknown> = { containers: (setup.containers ?? ["web"]).map(container) };
  if (setup.initContainers)
    spec.initContainers = setup.initContainers.map((n) => ({ name: n, image: "busybox" }));
  const node = setup.node ?? "node-1";
  if (node) spec.nodeName = node;
  const created = await request(s, "POST", PODS, { apiVersion: "v1", kind: "Pod", metadata: { name }, spec });
  expect(created.status).toBe(201);
  const pod = JSON.parse(created.text) as StoredObject;
  if (!setup.status) return pod;
  const updated = await request(s, "PUT", `${PODS}/${name}/status`, { ...pod, status: setup.status });
  expect(updated.status).toBe(200);
  return JSON.parse(updated.text) as StoredObject;
}

function startupLines(pod: string, container: string, image: string, restartCount: number): string[] {
  return [
    `level=info msg="starting" pod=${NS}/${pod} container=${container} image=${image} restartCount=${restartCount}`,
    `level=info msg="configuration loaded" container=${container}`,
    `level=info msg="listening" container=${container} port=80`,
    `level=info msg="ready" pod=${NS}/${pod} container=${container}`,
  ];
}

const text = (lines: string[]): string => lines.map((l) => `${l}\n`).join("");
const statusOf = (r: Reply): { message: string; reason: string; code: number } => JSON.parse(r.text);

describe("pods/log on a member (simulated kubelets)", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve(true, false);
    const node = await request(s, "POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "node-1" },
    });
    expect(node.status).toBe(201);
    await createPod(s, "web", { status: { phase: "Running", containerStatuses: [running("web")] } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("a running container's startup lines, as text/plain, the same on every call", async () => {
    const first = await request(s, "GET", `${PODS}/web/log`);
    expect(first.status).toBe(200);
    expect(first.contentType).toBe("text/plain");
    expect(first.text).toBe(text(startupLines("web", "web", "nginx:1.25", 0)));
    expect((await request(s, "GET", `${PODS}/web/log`)).text).toBe(first.text);
  });

  it("timestamps: each line prefixed with its RFC 3339 (nano) time and a space", async () => {
    const r = await request(s, "GET", `${PODS}/web/log?timestamps=true`);
    const stamps = r.text
      .trimEnd()
      .split("\n")
      .map((l) => l.split(" ")[0]);
    expect(stamps).toEqual([
      "2025-03-01T10:00:00Z",
      "2025-03-01T10:00:00.004Z",
      "2025-03-01T10:00:00.017Z",
      "2025-03-01T10:00:00.021Z",
    ]);
    expect(rfc3339Nano(T0 + 120)).toBe("2025-03-01T10:00:00.12Z");
  });

  it("tailLines, limitBytes, sinceTime and sinceSeconds select lines as the kubelet does", async () => {
    const all = startupLines("web", "web", "nginx:1.25", 0);
    expect((await request(s, "GET", `${PODS}/web/log?tailLines=2`)).text).toBe(text(all.slice(2)));
    expect((await request(s, "GET", `${PODS}/web/log?tailLines=0`)).text).toBe("");
    expect((await request(s, "GET", `${PODS}/web/log?limitBytes=10`)).text).toBe(text(all).slice(0, 10));
    const since = encodeURIComponent("2025-03-01T10:00:00.010Z");
    expect((await request(s, "GET", `${PODS}/web/log?sinceTime=${since}`)).text).toBe(text(all.slice(2)));
    expect((await request(s, "GET", `${PODS}/web/log?sinceSeconds=3600`)).text).toBe(text(all));
    s.clock.t = T0 + 2 * 3600_000;
    expect((await request(s, "GET", `${PODS}/web/log?sinceSeconds=3600`)).text).toBe("");
    s.clock.t = T0 + 60_000;
  });

  it("refuses bad options: 400 for what does not parse, 422 for what ValidatePodLogOptions forbids", async () => {
    const cases: Array<[string, number, string]> = [
      ["tailLines=abc", 400, 'tailLines: Invalid value: "abc": must be an integer'],
      ["sinceTime=yesterday", 400, 'sinceTime: Invalid value: "yesterday": must be an RFC 3339 time'],
      [
        "tailLines=-1",
        422,
        'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
      ],
      [
        "limitBytes=0",
        422,
        'PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be greater than 0',
      ],
      [
        "sinceSeconds=0",
        422,
        'PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0',
      ],
      [
        "sinceSeconds=5&sinceTime=2025-03-01T10:00:00Z",
        422,
        'PodLogOptions "web" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
      ],
    ];
    for (const [query, code, message] of cases) {
      const r = await request(s, "GET", `${PODS}/web/log?${query}`);
      expect([query, r.status, statusOf(r).message]).toEqual([query, code, message]);
    }
  });

  it("containers: one must be named when there are several (init containers listed too), and it must exist", async () => {
    await createPod(s, "multi", {
      containers: ["app", "sidecar"],
      initContainers: ["setup"],
      status: {
        phase: "Running",
        initContainerStatuses: [
          {
            ...running("setup"),
            state: {
              terminated: {
                exitCode: 0,
                reason: "Completed",
                startedAt: STARTED,
                finishedAt: STARTED,
                containerID: "containerd://setup-0",
              },
            },
          },
        ],
        containerStatuses: [running("app"), running("sidecar")],
      },
    });
    const unnamed = await request(s, "GET", `${PODS}/multi/log`);
    expect([unnamed.status, statusOf(unnamed).reason, statusOf(unnamed).message]).toEqual([
      400,
      "BadRequest",
      "a container name must be specified for pod multi, choose one of: [setup app sidecar]",
    ]);
    const unknown = await request(s, "GET", `${PODS}/multi/log?container=nope`);
    expect([unknown.status, statusOf(unknown).message]).toEqual([
      400,
      "container nope is not valid for pod multi",
    ]);
    expect((await request(s, "GET", `${PODS}/multi/log?container=sidecar`)).text).toBe(
      text(startupLines("multi", "sidecar", "nginx:1.25", 0)),
    );
    // A terminated (init) container's log ends with its exit.
    expect((await request(s, "GET", `${PODS}/multi/log?container=setup`)).text).toBe(
      text([
        ...startupLines("multi", "setup", "busybox", 0).map((l) => l.replace("port=80", "port=8080")),
        'level=info msg="exiting" container=setup exitCode=0 reason=Completed',
      ]),
    );
  });

  it("previous: 400 without a restart; after restarts, the instance before the last one", async () => {
    const none = await request(s, "GET", `${PODS}/web/log?previous=true`);
    expect([none.status, statusOf(none).message]).toEqual([
      400,
      'previous terminated container "web" in pod "web" not found',
    ]);
    const pod = await createPod(s, "crashy", {
      status: { phase: "Running", containerStatuses: [crashed("web", 2)] },
    });
    const lastRun = text([
      ...startupLines("crashy", "web", "nginx:1.25", 1),
      'level=error msg="exiting" container=web exitCode=1 reason=Error',
    ]);
    // Crash-looping: the kubelet shows the last run, for previous and without.
    expect((await request(s, "GET", `${PODS}/crashy/log?previous=true`)).text).toBe(lastRun);
    expect((await request(s, "GET", `${PODS}/crashy/log`)).text).toBe(lastRun);
    const recovered = { ...crashed("web", 2), state: { running: { startedAt: "2025-03-01T10:00:40Z" } } };
    const put = await request(s, "PUT", `${PODS}/crashy/status`, {
      ...pod,
      metadata: { ...pod.metadata, resourceVersion: undefined },
      status: { phase: "Running", containerStatuses: [recovered] },
    });
    expect(put.status).toBe(200);
    expect((await request(s, "GET", `${PODS}/crashy/log`)).text).toBe(
      text(startupLines("crashy", "web", "nginx:1.25", 2)),
    );
    expect((await request(s, "GET", `${PODS}/crashy/log?previous=1`)).text).toBe(lastRun);
  });

  it("a container not started yet answers the kubelet's 400", async () => {
    await createPod(s, "creating", {
      status: { phase: "Pending", containerStatuses: [waiting("web", "ContainerCreating")] },
    });
    await createPod(s, "pulling", {
      status: { phase: "Pending", containerStatuses: [waiting("web", "ErrImagePull")] },
    });
    await createPod(s, "fresh");
    const messages = await Promise.all(
      ["creating", "pulling", "fresh"].map(async (p) => {
        const r = await request(s, "GET", `${PODS}/${p}/log`);
        return [r.status, statusOf(r).message];
      }),
    );
    expect(messages).toEqual([
      [400, 'container "web" in pod "creating" is waiting to start: ContainerCreating'],
      [400, `container "web" in pod "pulling" is waiting to start: image can't be pulled`],
      [400, 'container "web" in pod "fresh" is waiting to start: ContainerCreating'],
    ]);
  });

  it("no node: 204 and nothing (as LogLocation); a node without a Node object: 404; no pod: 404", async () => {
    await createPod(s, "unscheduled", { node: "" });
    const empty = await request(s, "GET", `${PODS}/unscheduled/log`);
    expect([empty.status, empty.text]).toEqual([204, ""]);
    await createPod(s, "lost", {
      node: "node-gone",
      status: { phase: "Running", containerStatuses: [running("web")] },
    });
    const lost = await request(s, "GET", `${PODS}/lost/log`);
    expect([lost.status, statusOf(lost).message]).toEqual([404, 'nodes "node-gone" not found']);
    const missing = await request(s, "GET", `${PODS}/nope/log`);
    expect([missing.status, statusOf(missing).message]).toEqual([404, 'pods "nope" not found']);
  });

  it("only get: other verbs are not allowed on pods/log", async () => {
    const r = await request(s, "POST", `${PODS}/web/log`, {});
    expect([r.status, statusOf(r).reason]).toEqual([405, "MethodNotAllowed"]);
  });

  it("RBAC: get on pods/log is needed, get on pods is not enough", async () => {
    const alice: UserInfo = { name: "alice", groups: ["system:authenticated"] };
    const asAlice = (path: string) =>
      s.api.handler.handle({ method: "GET", path, query: new URLSearchParams(), headers: {}, user: alice });
    const grant = async (name: string, resources: string[]) => {
      const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}`;
      await request(s, "POST", `${rbac}/roles`, {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name },
        rules: [{ apiGroups: [""], resources, verbs: ["get"] }],
      });
      await request(s, "POST", `${rbac}/rolebindings`, {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }],
      });
    };
    await grant("pod-reader", ["pods"]);
    await until(async () => (await asAlice(`${PODS}/web`)).status === 200, "get on pods granted");
    const refused = await asAlice(`${PODS}/web/log`);
    expect(refused.status).toBe(403);
    expect((refused.body as { message: string }).message).toBe(
      'pods "web" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "default"',
    );
    await grant("log-reader", ["pods/log"]);
    const allowed = await until(async () => {
      const r = await asAlice(`${PODS}/web/log`);
      return r.status === 200 ? r : undefined;
    }, "pods/log granted");
    expect(allowed.text).toBe(text(startupLines("web", "web", "nginx:1.25", 0)));
  });

  describe("follow", () => {
    it("streams the existing lines, then a line per interval, chunked, until the client leaves", async () => {
      const abort = new AbortController();
      const res = await fetch(`${s.http.url}${PODS}/web/log?follow=true&tailLines=1`, {
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("transfer-encoding")).toBe("chunked");
      expect(res.headers.get("content-type")).toBe("text/plain");
      const got = await readLines(res, 3);
      abort.abort();
      expect(got).toEqual([
        `level=info msg="ready" pod=${NS}/web container=web`,
        `level=info msg="heartbeat" pod=${NS}/web container=web seq=1`,
        `level=info msg="heartbeat" pod=${NS}/web container=web seq=2`,
      ]);
    });

    it("ends when the container stops running, and when the pod is deleted", async () => {
      const pod = await createPod(s, "ending", {
        status: { phase: "Running", containerStatuses: [running("web")] },
      });
      const stream = await fetch(`${s.http.url}${PODS}/ending/log?follow=true`);
      await readLines(stream, 5);
      const done: ContainerStatus = {
        ...running("web"),
        state: {
          terminated: {
            exitCode: 0,
            reason: "Completed",
            startedAt: STARTED,
            finishedAt: STARTED,
            containerID: "containerd://web-0",
          },
        },
      };
      const put = await request(s, "PUT", `${PODS}/ending/status`, {
        ...pod,
        metadata: { ...pod.metadata, resourceVersion: undefined },
        status: { phase: "Succeeded", containerStatuses: [done] },
      });
      expect(put.status).toBe(200);
      await readToEnd(stream);

      await createPod(s, "deleted", { status: { phase: "Running", containerStatuses: [running("web")] } });
      const followed = await fetch(`${s.http.url}${PODS}/deleted/log?follow=true`);
      await readLines(followed, 5);
      expect((await request(s, "DELETE", `${PODS}/deleted?gracePeriodSeconds=0`)).status).toBe(200);
      await readToEnd(followed);
    });

    it("limitBytes ends a followed stream once spent; previous and stopped containers are not followed", async () => {
      const limited = await request(s, "GET", `${PODS}/web/log?follow=true&limitBytes=400`);
      const all = `${text(startupLines("web", "web", "nginx:1.25", 0))}${text([
        `level=info msg="heartbeat" pod=${NS}/web container=web seq=1`,
        `level=info msg="heartbeat" pod=${NS}/web container=web seq=2`,
        `level=info msg="heartbeat" pod=${NS}/web container=web seq=3`,
      ])}`;
      expect(limited.text).toBe(all.slice(0, 400));
      // Answered in full (a followed stream would never end): the instance no longer runs.
      const previous = await request(s, "GET", `${PODS}/crashy/log?follow=true&previous=true`);
      expect(previous.text).toContain("restartCount=1");
      const stopped = await request(s, "GET", `${PODS}/ending/log?follow=true`);
      expect(stopped.text).toContain('msg="exiting" container=web exitCode=0 reason=Completed');
    });
  });
});

describe("pods/log on the control plane (no kubelets)", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve(false, true);
  });
  afterAll(async () => {
    await s?.close();
  });

  it("a template pod is never scheduled: 204, empty", async () => {
    await createPod(s, "template", { node: "" });
    const r = await request(s, "GET", `${PODS}/template/log`);
    expect([r.status, r.text]).toEqual([204, ""]);
  });

  it("a pod on a node nobody serves: 500, as when kube-apiserver cannot reach the kubelet", async () => {
    const node = await request(s, "POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "node-1" },
    });
    expect(node.status).toBe(201);
    await createPod(s, "bound", { status: { phase: "Running", containerStatuses: [running("web")] } });
    const r = await request(s, "GET", `${PODS}/bound/log`);
    expect([r.status, statusOf(r).reason, statusOf(r).message]).toEqual([
      500,
      "InternalError",
      'Internal error occurred: no kubelet reachable on node "node-1" for the logs of pod "default/bound"',
    ]);
  });
});

/** Reads a streamed response until it has `n` lines (or ends); returns them. */
async function readLines(res: Response, n: number): Promise<string[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    while (buffer.split("\n").length - 1 < n) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return buffer.split("\n").slice(0, n);
}

/** Reads a streamed response to its end (the server closed it). */
async function readToEnd(res: Response): Promise<void> {
  const reader = res.body!.getReader();
  for (;;) {
    const { done } = await reader.read();
    if (done) return;
  }
}
