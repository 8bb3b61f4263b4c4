/**
 * `kubectl logs` (the real kubectl) against a simulated member over HTTPS with the member's
 * admin kubeconfig: a Deployment's pod, `--tail`, `--timestamps`, `--previous` before and
 * after the workload crash-looped, `-c` on a pod with several containers (and the server's
 * own answer when none is named), and `-f` read for two new lines, then stopped.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeconfigFor, writeKubeconfig } from "../../src/client/kubeconfig.ts";
import { type ServedMemberCluster, serveMemberCluster } from "../../src/member-sim/cluster.ts";
import { eventually, KUBECTL, type KubectlResult } from "../support/kubectl.ts";
import { lines, manifest } from "../support/kubectl-output.ts";
import { FAST } from "../support/member-sim.ts";

const NS = "default";

function startupLines(
  pod: string,
  container: string,
  image: string,
  restartCount: number,
  port = 8080,
): string[] {
  return [
    `level=info msg="starting" pod=${NS}/${pod} container=${container} image=${image} restartCount=${restartCount}`,
    `level=info msg="configuration loaded" container=${container}`,
    `level=info msg="listening" container=${container} port=${port}`,
    `level=info msg="ready" pod=${NS}/${pod} container=${container}`,
  ];
}

const heartbeat = (pod: string, container: string, seq: number): string =>
  `level=info msg="heartbeat" pod=${NS}/${pod} container=${container} seq=${seq}`;

describe("kubectl logs against a member-sim", () => {
  let m: ServedMemberCluster;
  let dir: string;
  let kubeconfig: string;
  const children = new Set<ChildProcess>();

  const argv = (args: string[]): string[] => [
    `--kubeconfig=${kubeconfig}`,
    `--cache-dir=${join(dir, "cache")}`,
    "--request-timeout=10s",
    ...args,
  ];
  const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir });

  const kubectl = (...args: string[]): Promise<KubectlResult> =>
    new Promise((resolve) => {
      execFile(KUBECTL, argv(args), { env: env(), timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const ok = async (...args: string[]): Promise<string> => {
    const r = await kubectl(...args);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    return r.stdout;
  };
  const podOf = async (app: string): Promise<string> =>
    ok("get", "pods", "-l", `app=${app}`, "-o", "jsonpath={.items[0].metadata.name}");

  beforeAll(async () => {
    m = await serveMemberCluster({ name: "member1", port: 0, timing: FAST });
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-kubectl-logs-"));
    kubeconfig = join(dir, "kubeconfig");
    await writeKubeconfig(kubeconfig, kubeconfigFor([{ name: "member1", connection: m.connection }]));
    await ok("create", "deployment", "web", "--image=nginx:1.25");
    await ok("rollout", "status", "deployment/web", "--timeout=30s");
  });
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await m?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("a Deployment's pod: its lines, --tail, --timestamps, and --previous refused before any restart", async () => {
    expect(m.url).toMatch(/^https:\/\//);
    const pod = await podOf("web");
    const expected = startupLines(pod, "nginx", "nginx:1.25", 0);
    expect(lines(await ok("logs", pod))).toEqual(expected);
    expect(lines(await ok("logs", "deployment/web"))).toEqual(expected);
    expect(lines(await ok("logs", pod, "--tail=1"))).toEqual(expected.slice(3));
    const startedAt = await ok(
      "get",
      "pod",
      pod,
      "-o",
      "jsonpath={.status.containerStatuses[0].state.running.startedAt}",
    );
    const stamped = lines(await ok("logs", pod, "--timestamps", "--tail=2"));
    expect(stamped).toEqual([
      `${startedAt.replace("Z", ".017Z")} ${expected[2]}`,
      `${startedAt.replace("Z", ".021Z")} ${expected[3]}`,
    ]);
    const previous = await kubectl("logs", pod, "--previous");
    expect(previous).toEqual({
      code: 1,
      stdout: "",
      stderr: `Error from server (BadRequest): previous terminated container "nginx" in pod "${pod}" not found\n`,
    });
  });

  it("-f: the existing lines, then new ones as they come, until kubectl is stopped", async () => {
    const pod = await podOf("web");
    const child = spawn(KUBECTL, argv(["logs", "-f", pod, "--tail=1"]), { env: env(), stdio: "pipe" });
    children.add(child);
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    await eventually(async () => lines(out).length >= 3, "two followed lines", 300, 50);
    // Still following when stopped: kubectl (Go) ends on SIGTERM whatever its exit status.
    expect(child.exitCode).toBeNull();
    child.kill("SIGTERM");
    await exited;
    expect(lines(out).slice(0, 3)).toEqual([
      `level=info msg="ready" pod=${NS}/${pod} container=nginx`,
      heartbeat(pod, "nginx", 1),
      heartbeat(pod, "nginx", 2),
    ]);
  });

  it("--previous after the workload crash-looped: the instance before the last restart", async () => {
    const pod = await podOf("web");
    await m.faults.set({ type: "unhealthy-workload", namespace: NS, kind: "Deployment", name: "web" });
    const restarts = Number(
      await eventually(
        async () => {
          const n = await ok("get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].restartCount}");
          return Number(n) >= 1 ? n : undefined;
        },
        "a restart",
        300,
        50,
      ),
    );
    await m.faults.restore();
    await ok("wait", "--for=condition=Ready", `pod/${pod}`, "--timeout=30s");
    const now = Number(
      await ok("get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].restartCount}"),
    );
    expect(now).toBeGreaterThanOrEqual(restarts);
    expect(lines(await ok("logs", pod))).toEqual(startupLines(pod, "nginx", "nginx:1.25", now));
    expect(lines(await ok("logs", pod, "-p"))).toEqual([
      ...startupLines(pod, "nginx", "nginx:1.25", now - 1),
      'level=error msg="exiting" container=nginx exitCode=1 reason=Error',
    ]);
  });

  it("several containers: -c picks one; kubectl defaults to the first; the server asks for a name", async () => {
    const file = join(dir, "multi.yaml");
    await writeFile(
      file,
      manifest({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "multi", namespace: NS },
        spec: {
          initContainers: [{ name: "setup", image: "busybox:1.36" }],
          containers: [
            { name: "app", image: "nginx:1.25", ports: [{ containerPort: 80 }] },
            { name: "sidecar", image: "envoyproxy/envoy:v1.31" },
          ],
        },
      }),
    );
    await ok("apply", "-f", file);
    await ok("wait", "--for=condition=Ready", "pod/multi", "--timeout=30s");
    expect(lines(await ok("logs", "multi", "-c", "sidecar"))).toEqual(
      startupLines("multi", "sidecar", "envoyproxy/envoy:v1.31", 0),
    );
    expect(lines(await ok("logs", "multi", "--container=setup"))).toEqual([
      ...startupLines("multi", "setup", "busybox:1.36", 0),
      'level=info msg="exiting" container=setup exitCode=0 reason=Completed',
    ]);
    const defaulted = await kubectl("logs", "multi");
    expect(defaulted.code).toBe(0);
    expect(defaulted.stderr).toBe('Defaulted container "app" out of: app, sidecar, setup (init)\n');
    expect(lines(defaulted.stdout)).toEqual(startupLines("multi", "app", "nginx:1.25", 0, 80));
    const raw = (query: string) => kubectl("get", "--raw", `/api/v1/namespaces/${NS}/pods/multi/log${query}`);
    expect((await raw("")).stderr).toBe(
      "Error from server (BadRequest): a container name must be specified for pod multi, choose one of: [setup app sidecar]\n",
    );
    expect((await raw("?container=nope")).stderr).toBe(
      "Error from server (BadRequest): container nope is not valid for pod multi\n",
    );
  });
});
