/**
 * `karmadactl simulate` as a user runs it: the real executable against `karmada up` with two
 * members running upstream's nginx quick start (Divided 1:1 by static weight over member1 and
 * member2) and a ConfigMap placed on clusters labelled tier=gold (member1). Every what-if is
 * answered from the live fleet, and afterwards nothing in the control plane has changed.
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually, type KubectlResult, sharedPath } from "../support/kubectl.ts";

const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));

interface Obj {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion: string;
    generation?: number;
    labels?: Record<string, string>;
  };
  spec?: { clusters?: Array<{ name: string; replicas?: number }>; taints?: unknown[] };
  status?: {
    conditions?: Array<{ type: string; status: string }>;
    aggregatedStatus?: Array<{ clusterName: string; health?: string }>;
  };
}
interface List {
  items: Obj[];
}

const SETTINGS = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
data: {mode: fast}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: settings, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: settings}]
  placement:
    clusterAffinity: {labelSelector: {matchLabels: {tier: gold}}}
`;

const WEB = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`;
const WEB_POLICY = `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement:
    clusterAffinity: {clusterNames: [member1, member2]}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}
`;

// Each karmadactl run is a Node process (about a second of start-up).
describe("karmadactl simulate on karmada up", { timeout: 180_000 }, () => {
  let fleet: TestFleet;
  let controlPlane: string[];
  const { cp, ok, getJson } = fleetKubectl<List & Obj>(() => fleet);

  const karmadactl = (args: string[], stdin?: string): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [KARMADACTL, ...args, ...controlPlane],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: fleet.dir }, timeout: 60_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end(stdin ?? "");
    });
  const simulate = async (args: string[], stdin?: string): Promise<string> => {
    const r = await karmadactl(["simulate", ...args], stdin);
    expect(r.stderr, r.stderr).toBe("");
    expect(r.code).toBe(0);
    return r.stdout;
  };
  const fails = async (args: string[], stderr: string): Promise<void> => {
    const r = await karmadactl(["simulate", ...args]);
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toBe("");
    expect(r.code).toBe(1);
  };

  /** What the control plane holds that a what-if could write: policies, bindings, clusters' spec, templates. */
  const snapshot = async () => {
    const list = async (what: string) =>
      ((await getJson("karmada-apiserver", ["get", what, "-A"]))?.items ?? []).map((o) => [
        o.metadata.namespace ?? "",
        o.metadata.name,
        o.metadata.resourceVersion,
      ]);
    const clusters = ((await getJson("karmada-apiserver", ["get", "clusters"]))?.items ?? []).map((c) => [
      c.metadata.name,
      c.metadata.generation,
      c.metadata.labels,
    ]);
    return {
      policies: await list("propagationpolicies,clusterpropagationpolicies,overridepolicies"),
      bindings: await list("resourcebindings,clusterresourcebindings"),
      templates: await list("deployments,configmaps"),
      clusters,
    };
  };
  let before: Awaited<ReturnType<typeof snapshot>>;

  beforeAll(async () => {
    fleet = await startTestFleet("simulate", 2);
    controlPlane = ["--kubeconfig", fleet.up.kubeconfig, "--karmada-context", "karmada-apiserver"];
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
    await ok(cp(["label", "cluster", "member1", "tier=gold"]));
    await ok(cp(["apply", "-f", sharedPath("conformance/karmada/samples/nginx/")]));
    await ok(cp(["apply", "-f", "-"], SETTINGS));
    const placed = async (name: string, want: string) =>
      eventually(
        async () => {
          const b = await getJson("karmada-apiserver", ["get", "rb", name, "-n", "default"]);
          const scheduled = b?.status?.conditions?.some((c) => c.type === "Scheduled" && c.status === "True");
          return scheduled && JSON.stringify(b?.spec?.clusters) === want;
        },
        `${name} scheduled`,
        300,
        100,
      );
    await placed("nginx-deployment", '[{"name":"member1","replicas":1},{"name":"member2","replicas":1}]');
    await placed("settings-configmap", '[{"name":"member1"}]');
    // The copies are running everywhere, so nothing is still being written when the what-ifs start.
    await eventually(
      async () =>
        (await getJson("member1", ["get", "deployment", "nginx", "-n", "default"])) &&
        (await getJson("member2", ["get", "deployment", "nginx", "-n", "default"])) &&
        (await getJson("member1", ["get", "configmap", "settings", "-n", "default"])),
      "member copies",
      300,
      100,
    );
    // Until both copies are Ready the binding's aggregated status still changes (Unhealthy, then
    // Healthy), which would show as a write in the snapshot below.
    await eventually(
      async () => {
        const b = await getJson("karmada-apiserver", ["get", "rb", "nginx-deployment", "-n", "default"]);
        const healthy = (b?.status?.aggregatedStatus ?? []).filter((s) => s.health === "Healthy");
        return healthy.length === 2;
      },
      "nginx-deployment healthy on both members",
      300,
      100,
    );
    before = await snapshot();
  }, 120_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it("--without-cluster member1 says which replicas move where", async () => {
    expect(await simulate(["--without-cluster", "member1"])).toBe(
      [
        "NAMESPACE   BINDING              CLUSTER   BEFORE   AFTER   REASON",
        "default     nginx-deployment     member1   1        -       cluster member1 is being removed",
        "default     nginx-deployment     member2   1        2       rescheduled (TerminatingTarget)",
        "default     settings-configmap   member1   placed   -       cluster member1 is being removed",
        "default     settings-configmap   -                          unschedulable (NoClusterFit): 0/2 clusters are available: 1 cluster(s) did not match the placement cluster affinity constraint.",
        "",
        "2 bindings, 1 would move, 1 unschedulable (cluster member1 removed).",
        "",
      ].join("\n"),
    );
  });

  it("-o json prints the report", async () => {
    const report = JSON.parse(await simulate(["--without-cluster", "member1", "-o", "json"]));
    expect(report.changes).toEqual(["cluster member1 removed"]);
    expect(report.bindings.summary).toEqual({ bindings: 2, moved: 1, unschedulable: 1 });
    expect(report.bindings.changes[0]).toMatchObject({
      kind: "ResourceBinding",
      namespace: "default",
      name: "nginx-deployment",
      resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "nginx" },
      replicas: 2,
      before: [
        { name: "member1", replicas: 1 },
        { name: "member2", replicas: 1 },
      ],
      after: [{ name: "member2", replicas: 2 }],
      trigger: "TerminatingTarget",
    });
    const yaml = await simulate(["--without-cluster", "member1", "-o", "yaml"]);
    expect(yaml).toContain("changes:\n- cluster member1 removed\n");
  });

  it("--cordon moves nothing that runs", async () => {
    expect(await simulate(["--cordon", "member1"])).toBe(
      "No binding would move.\n2 bindings, 0 would move, 0 unschedulable (cluster member1 cordoned).\n",
    );
  });

  it("--taint ...:NoExecute evicts what does not tolerate it, with the Failover gate", async () => {
    expect(
      await simulate(["--taint", "member1=maintenance:NoExecute", "--feature-gates", "Failover=true"]),
    ).toBe(
      [
        "NAMESPACE   BINDING            CLUSTER   BEFORE   AFTER   REASON",
        "default     nginx-deployment   member1   1        -       evicted: taint maintenance:NoExecute is not tolerated",
        "default     nginx-deployment   member2   1        2       rescheduled (ReplicasChanged)",
        "",
        "2 bindings, 1 would move, 0 unschedulable (cluster member1 tainted maintenance:NoExecute).",
        "",
      ].join("\n"),
    );
    const off = await karmadactl(["simulate", "--taint", "member1=maintenance:NoExecute"]);
    expect(off.stdout).toBe(
      "No binding would move.\n2 bindings, 0 would move, 0 unschedulable (cluster member1 tainted maintenance:NoExecute).\n",
    );
    expect(off.stderr).toBe(
      "Warning: NoExecute taints evict nothing: the controller manager's Failover gate is taken as off (upstream's default); say --feature-gates=Failover=true if yours runs with it\n",
    );
  });

  it("--label changes where label-selected placements go", async () => {
    expect(await simulate(["--label", "member2=tier=gold"])).toBe(
      [
        "NAMESPACE   BINDING              CLUSTER   BEFORE   AFTER    REASON",
        "default     settings-configmap   member2   -        placed   rescheduled (NonWorkload)",
        "",
        "2 bindings, 1 would move, 0 unschedulable (cluster member2 labelled tier=gold).",
        "",
      ].join("\n"),
    );
  });

  it("-f places new templates with their policy, saying which plugin left a cluster out", async () => {
    const want = [
      "NAMESPACE   TEMPLATE         POLICY   CLUSTER   RESULT",
      "default     Deployment/web   pp/web   member1   3 replicas",
      "default     Deployment/web   pp/web   member2   filtered out by TaintToleration: cluster(s) had untolerated taint {cluster.karmada.io/unschedulable:NoSchedule}",
      "",
      "1 template, 1 scheduled, 0 unchanged, 0 unschedulable, 0 not propagated.",
      "",
    ].join("\n");
    const dir = join(fleet.dir, "manifests");
    await mkdir(join(dir, "nested"), { recursive: true });
    await writeFile(join(dir, "web.yaml"), WEB);
    await writeFile(join(dir, "nested", "policy.yaml"), WEB_POLICY);
    expect(
      await simulate([
        "-f",
        join(dir, "web.yaml"),
        "-f",
        join(dir, "nested", "policy.yaml"),
        "--cordon",
        "member2",
      ]),
    ).toBe(want);
    expect(await simulate(["-f", dir, "-R", "--cordon", "member2"])).toBe(want);
    expect(await simulate(["-f", "-", "--cordon", "member2"], `${WEB}---\n${WEB_POLICY}`)).toBe(want);
    // The live nginx, as its own manifest: it exists, and the copy of the fleet does not ask for a reschedule.
    expect(
      await simulate(["-f", sharedPath("conformance/karmada/samples/nginx/deployment.yaml"), "-f", "-"], WEB),
    ).toBe(
      [
        "NAMESPACE   TEMPLATE           POLICY                 CLUSTER   RESULT",
        "default     Deployment/nginx   pp/nginx-propagation   member1   1 replica (unchanged: not rescheduled)",
        "default     Deployment/nginx   pp/nginx-propagation   member2   1 replica (unchanged: not rescheduled)",
        "default     Deployment/web     <none>                 -         not propagated: no PropagationPolicy or ClusterPropagationPolicy selects it",
        "",
        "2 templates, 0 scheduled, 1 unchanged, 0 unschedulable, 1 not propagated.",
        "",
      ].join("\n"),
    );
  });

  it("bad input is one line saying what to fix", async () => {
    await fails(
      ["--taint", "x"],
      'error: --taint "x": expected CLUSTER=KEY[=VALUE]:EFFECT, CLUSTER=KEY:EFFECT- or CLUSTER=KEY-\n',
    );
    await fails(
      ["--cordon", "nope"],
      'error: --cordon: cluster "nope" does not exist (clusters: member1, member2)\n',
    );
    await fails(
      ["--label", "member1=a"],
      'error: --label "member1=a": no value (expected CLUSTER=KEY=VALUE or CLUSTER=KEY-)\n',
    );
    await fails(["-f", "/nonexistent/x.yaml"], 'error: the path "/nonexistent/x.yaml" does not exist\n');
    const broken = join(fleet.dir, "broken.yaml");
    await writeFile(broken, "kind: [\n");
    const r = await karmadactl(["simulate", "-f", broken]);
    expect(r.stderr).toMatch(new RegExp(`^error: error parsing ${broken}: .+\\n$`));
    expect(r.code).toBe(1);
    await fails(
      ["-o", "wide"],
      'error: unable to match a printer suitable for the output format "wide", allowed formats are: json,yaml\n',
    );
    const gate = await karmadactl(["simulate", "--feature-gates", "Nope=true"]);
    expect(gate.stderr).toMatch(
      /^error: --feature-gates: unrecognized feature gate: Nope \(known: Failover, .*\)\n$/,
    );
    expect(gate.code).toBe(1);
  });

  it("writes nothing to the control plane", async () => {
    expect(await snapshot()).toEqual(before);
    const web = await cp(["get", "deployment,pp", "web", "-n", "default"]);
    expect(web.code).not.toBe(0);
  });
});
