/**
 * `karmadactl cordon`, `uncordon` and `taint` as a user runs them: the real executable against
 * `karmada up` with two members, checked through the Cluster objects, and through the
 * scheduler, which places a new workload for both members on the uncordoned one only.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually, type KubectlResult } from "../support/kubectl.ts";
import { deployment, manifest } from "../support/kubectl-output.ts";

const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));
const UNSCHEDULABLE = "cluster.karmada.io/unschedulable";

interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}
interface Cluster {
  spec?: { taints?: Taint[] };
  status?: { conditions?: Array<{ type: string; status: string }> };
}
interface Binding {
  spec?: { clusters?: Array<{ name: string }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

// Each karmadactl run is a Node process (about a second of start-up).
describe("karmadactl cordon, uncordon and taint on karmada up", { timeout: 120_000 }, () => {
  let fleet: TestFleet;
  let controlPlane: string[];
  const { cp, getJson } = fleetKubectl<Cluster & Binding>(() => fleet);

  const karmadactl = (args: string[]): Promise<KubectlResult> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [KARMADACTL, ...args, ...controlPlane],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: fleet.dir }, timeout: 60_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const ok = async (args: string[], stdout: string): Promise<void> => {
    const r = await karmadactl(args);
    expect(r.stderr, r.stderr).toBe("");
    expect(r.stdout).toBe(stdout);
    expect(r.code).toBe(0);
  };
  const fails = async (args: string[], stderr: string, stdout = ""): Promise<void> => {
    const r = await karmadactl(args);
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toBe(stdout);
    expect(r.code).toBe(1);
  };
  const taints = async (cluster: string): Promise<Taint[]> =>
    (await getJson("karmada-apiserver", ["get", "cluster", cluster]))?.spec?.taints ?? [];
  const shown = async (cluster: string): Promise<string[]> =>
    (await taints(cluster)).map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`);

  beforeAll(async () => {
    fleet = await startTestFleet("taint", 2);
    controlPlane = ["--kubeconfig", fleet.up.kubeconfig, "--karmada-context", "karmada-apiserver"];
    // Both members Ready, without the cluster controller's not-ready taint.
    for (const name of ["member1", "member2"]) {
      await eventually(
        async () => {
          const c = await getJson("karmada-apiserver", ["get", "cluster", name]);
          return (
            c?.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") &&
            (c.spec?.taints ?? []).length === 0
          );
        },
        `${name} ready and untainted`,
        300,
        100,
      );
    }
  }, 90_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it("cordon adds the unschedulable taint once; the scheduler then places only on the other member", async () => {
    await ok(["cordon", "member1"], "member1 cluster cordoned\n");
    expect(await taints("member1")).toEqual([{ key: UNSCHEDULABLE, effect: "NoSchedule" }]);
    await ok(["cordon", "member1"], "member1 cluster already cordoned\n");
    expect(await shown("member1")).toEqual([`${UNSCHEDULABLE}:NoSchedule`]);

    const policy = {
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "web", namespace: "default" },
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
        placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } },
      },
    };
    const applied = await cp(["apply", "-f", "-"], manifest(deployment("web", { replicas: 2 }), policy));
    expect(applied.stderr).toBe("");
    const rb = await eventually(
      async () => {
        const b = await getJson("karmada-apiserver", ["get", "rb", "web-deployment", "-n", "default"]);
        return b?.status?.conditions?.some((c) => c.type === "Scheduled" && c.status === "True") && b;
      },
      "web-deployment scheduled",
      200,
      100,
    );
    expect(rb.spec?.clusters?.map((c) => c.name)).toEqual(["member2"]);
  });

  it("uncordon removes it; --dry-run changes nothing; an unknown cluster is kubectl's NotFound", async () => {
    await ok(["uncordon", "member1"], "member1 cluster uncordoned\n");
    expect(await taints("member1")).toEqual([]);
    await ok(["uncordon", "member1"], "member1 cluster already uncordoned\n");
    await ok(["cordon", "member2", "--dry-run"], "member2 cluster cordoned\n");
    expect(await taints("member2")).toEqual([]);
    await fails(
      ["cordon", "nope"],
      'Error from server (NotFound): clusters.cluster.karmada.io "nope" not found\n',
    );
    await fails(["uncordon"], "error: cluster name is required\n");
  });

  it("taint adds, refuses to overwrite without --overwrite, modifies, and untaints", async () => {
    await ok(
      ["taint", "clusters", "member1", "dedicated=special-user:NoSchedule"],
      "cluster/member1 tainted\n",
    );
    expect(await taints("member1")).toEqual([
      { key: "dedicated", value: "special-user", effect: "NoSchedule" },
    ]);

    await fails(
      ["taint", "clusters", "member1", "dedicated=other:NoSchedule"],
      "error: cluster member1 already has dedicated taint(s) with same effect(s) and --overwrite is false\n",
    );
    await ok(
      ["taint", "clusters", "member1", "dedicated=other:NoSchedule", "--overwrite"],
      "cluster/member1 modified\n",
    );
    expect(await shown("member1")).toEqual(["dedicated=other:NoSchedule"]);

    // A NoExecute taint gets its timeAdded from the Cluster admission, as upstream's webhook.
    await ok(["taint", "cluster", "member1", "gpu:NoExecute"], "cluster/member1 tainted\n");
    const gpu = (await taints("member1"))[0];
    expect(gpu).toMatchObject({ key: "gpu", effect: "NoExecute" });
    expect(Date.parse(gpu?.timeAdded ?? "")).toBeGreaterThan(Date.now() - 120_000);
    expect(await shown("member1")).toEqual(["gpu:NoExecute", "dedicated=other:NoSchedule"]);

    await ok(["taint", "clusters", "member1", "--dry-run", "gpu-"], "cluster/member1 untainted\n");
    expect(await shown("member1")).toHaveLength(2);
    await ok(
      ["taint", "clusters", "member1", "dedicated:NoSchedule-", "gpu-"],
      "cluster/member1 untainted\n",
    );
    expect(await taints("member1")).toEqual([]);
  });

  it("taint tries every named cluster and reports the failures; bad specs are upstream's errors", async () => {
    await fails(
      ["taint", "clusters", "member1", "nope", "member2", "zone=a:NoSchedule"],
      'Error from server (NotFound): clusters.cluster.karmada.io "nope" not found\n',
      "cluster/member1 tainted\ncluster/member2 tainted\n",
    );
    expect(await shown("member1")).toEqual(["zone=a:NoSchedule"]);
    expect(await shown("member2")).toEqual(["zone=a:NoSchedule"]);
    await ok(
      ["taint", "clusters", "member1", "member2", "zone-"],
      "cluster/member1 untainted\ncluster/member2 untainted\n",
    );

    await fails(["taint", "clusters", "member1", "zone-"], 'error: taint "zone" not found\n');
    await fails(
      ["taint", "clusters", "member1", "a:Sometimes"],
      "error: invalid taint effect: Sometimes, unsupported taint effect\n",
    );
    await fails(
      ["taint", "nodes", "member1", "a:NoSchedule"],
      'error: invalid resource type nodes, only ["cluster" "clusters"] are supported\n',
    );
    // The server has the last word: Cluster taints take NoSchedule and NoExecute only.
    const r = await karmadactl(["taint", "clusters", "member1", "a:PreferNoSchedule"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^Error from server \(Invalid\): .*spec\.taints\[0\]\.effect: Unsupported value: "PreferNoSchedule"/,
    );
    expect(await taints("member1")).toEqual([]);
  });
});
