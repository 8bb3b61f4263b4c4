/**
 * `karmadactl describe` as a user runs it: the real executable against `karmada up` with two
 * members. A binding reads like kubectl's generic describe of it (the same lines, checked
 * against the real kubectl), plus the scheduler's explanation in a `Scheduling:` section; a
 * member's copy is described with `--operation-scope members -C`; errors are kubectl's one line.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "../support/fleet.ts";
import { contextKubectl, eventually, type KubectlResult } from "../support/kubectl.ts";
import { deployment, manifest } from "../support/kubectl-output.ts";

const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));

const policy = {
  apiVersion: "policy.karmada.io/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "web", namespace: "default" },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
    placement: { clusterAffinity: { clusterNames: ["member1"] } },
  },
};

/** The lines of a section: from its title up to the next unindented line. */
function section(text: string, title: string): string[] {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`${title}:`));
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && l !== "" && !l.startsWith(" "));
  return lines.slice(start, end < 0 ? undefined : end);
}

/** The generic part of a describe that does not change from one read to the next. */
function stable(text: string): string {
  return text
    .split("\n")
    .filter((l) => !/^\s*(Resource Version|Last Scheduled Time|Last Transition Time|Generation):/.test(l))
    .join("\n");
}

// Each karmadactl run is a Node process (about a second of start-up); waits inside are bounded.
describe("karmadactl describe on karmada up", { timeout: 120_000 }, () => {
  let fleet: TestFleet;
  let kubectl: ReturnType<typeof contextKubectl>;
  let controlPlane: string[];

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
  const ok = (r: KubectlResult): string => {
    expect(r.stderr, r.stderr).toBe("");
    expect(r.code).toBe(0);
    return r.stdout;
  };
  const fails = (r: KubectlResult, stderr: string): void => {
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toBe("");
    expect(r.code).toBe(1);
  };

  beforeAll(async () => {
    fleet = await startTestFleet("describe", 2);
    kubectl = contextKubectl(
      () => fleet.up.kubeconfig,
      () => fleet.dir,
    );
    controlPlane = ["--kubeconfig", fleet.up.kubeconfig, "--karmada-context", "karmada-apiserver"];
    const applied = await kubectl(
      "karmada-apiserver",
      ["apply", "-f", "-"],
      manifest(deployment("web", { replicas: 2 }), policy),
    );
    expect(applied.stderr).toBe("");
    await eventually(
      async () => {
        const r = await kubectl("karmada-apiserver", ["get", "rb", "web-deployment", "-o", "json"]);
        if (r.code !== 0) return undefined;
        const rb = JSON.parse(r.stdout) as {
          spec?: { clusters?: unknown[] };
          status?: { conditions?: Array<{ type: string; status: string }> };
        };
        return (
          rb.spec?.clusters?.length === 1 &&
          rb.status?.conditions?.some((c) => c.type === "Scheduled" && c.status === "True")
        );
      },
      "web-deployment scheduled",
      200,
      100,
    );
  }, 90_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it("describes a binding as kubectl's generic describer, with its scheduling explained", async () => {
    const out = ok(await karmadactl(["describe", "rb", "web-deployment", "-n", "default"]));
    expect(out).toMatch(/^Name: {9}web-deployment\nNamespace: {4}default\n/);
    expect(out).toMatch(/^API Version: {2}work\.karmada\.io\/v1alpha2$/m);
    expect(out).toMatch(/^Kind: {9}ResourceBinding$/m);
    expect(out).toMatch(/^Metadata:\n {2}Creation Timestamp: /m);
    expect(out).toMatch(/^Spec:\n/m);
    expect(out).toMatch(/^Status:\n/m);
    // The explanation's JSON stays out of Annotations.
    expect(out).toMatch(/^ +scheduler\.karmada-ts\.io\/explanation: \(see Scheduling\)$/m);
    expect(out).not.toContain('"attempts"');

    expect(section(out, "Scheduling")).toEqual([
      "Scheduling:",
      expect.stringMatching(/^ {2}needs 2 replicas; the selected clusters fit \d+ more$/),
      expect.stringMatching(/^ {2}member1: selected, 2 replicas \(score 0, fits \d+ more replicas\)$/),
      "  member2: filtered out by ClusterAffinity: cluster(s) did not match the placement cluster affinity constraint",
      "  all feasible clusters selected",
      "  2 replicas by Duplicated",
    ]);

    const events = section(out, "Events");
    expect(events.slice(0, 3)).toEqual([
      "Events:",
      expect.stringMatching(/^ {2}Type +Reason +Age +From +Message$/),
      expect.stringMatching(/^ {2}---- +------ +---- +---- +-------$/),
    ]);
    expect(events).toContainEqual(
      expect.stringMatching(
        /^ {2}Normal +ScheduleBindingSucceed +\S+ +default-scheduler +Binding has been scheduled/,
      ),
    );
    // Scheduling comes after the object and before its events.
    expect(out.indexOf("\nStatus:\n")).toBeLessThan(out.indexOf("\nScheduling:\n"));
    expect(out.indexOf("\nScheduling:\n")).toBeLessThan(out.indexOf("\nEvents:\n"));
  });

  it("reads line for line as the real kubectl's describe of the same binding", async () => {
    // Both reads race the controllers' status updates: compare what does not move.
    await eventually(
      async () => {
        const ours = ok(await karmadactl(["describe", "rb/web-deployment", "--show-events=false"]));
        const theirs = await kubectl("karmada-apiserver", [
          "describe",
          "rb",
          "web-deployment",
          "--show-events=false",
        ]);
        expect(theirs.stderr).toBe("");
        const generic = (text: string) =>
          stable(text.slice(text.indexOf("\nAPI Version:"), text.indexOf("\nScheduling:")));
        const kubectlGeneric = stable(theirs.stdout.slice(theirs.stdout.indexOf("\nAPI Version:")));
        expect(generic(ours)).toBe(kubectlGeneric.replace(/\n$/, ""));
        return true;
      },
      "the same describe as kubectl",
      5,
      500,
    );
  });

  it("describes a ClusterResourceBinding with its scheduling and its events", async () => {
    const applied = await kubectl(
      "karmada-apiserver",
      ["apply", "-f", "-"],
      manifest(
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRole",
          metadata: { name: "reader" },
          rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
        },
        {
          apiVersion: "policy.karmada.io/v1alpha1",
          kind: "ClusterPropagationPolicy",
          metadata: { name: "reader" },
          spec: {
            resourceSelectors: [
              { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "reader" },
            ],
            placement: { clusterAffinity: { clusterNames: ["member2"] } },
          },
        },
      ),
    );
    expect(applied.stderr).toBe("");
    const out = await eventually(
      async () => {
        const r = await karmadactl(["describe", "crb", "reader-clusterrole"]);
        return r.code === 0 && r.stdout.includes("ScheduleBindingSucceed") ? r.stdout : undefined;
      },
      "reader-clusterrole scheduled, with its events",
      100,
      200,
    );
    expect(out).toMatch(/^Name: +reader-clusterrole\nNamespace: +\n/);
    expect(out).toMatch(/^Kind: +ClusterResourceBinding$/m);
    expect(section(out, "Scheduling")).toEqual([
      "Scheduling:",
      "  member1: filtered out by ClusterAffinity: cluster(s) did not match the placement cluster affinity constraint",
      expect.stringMatching(/^ {2}member2: selected \(score 0\)$/),
      "  all feasible clusters selected",
      "  not a workload: every selected cluster gets it, without replicas",
    ]);
  });

  it("finds a kind served only in an older version of its group (Work), as kubectl does", async () => {
    const out = ok(await karmadactl(["describe", "work", "-n", "karmada-es-member1"]));
    expect(out).toMatch(/^Kind: +Work$/m);
    expect(out).toMatch(/^API Version: +work\.karmada\.io\/v1alpha1$/m);
  });

  it("describes what a name prefix matches, without events", async () => {
    const out = ok(await karmadactl(["describe", "rb", "web", "-n", "default"]));
    expect(out).toMatch(/^Name: {9}web-deployment$/m);
    expect(out).toContain("\nScheduling:\n");
    expect(out).not.toContain("Events:");
  });

  it("describes the member's copy with --operation-scope members -C", async () => {
    await eventually(
      async () => (await kubectl("member1", ["get", "deployment", "web"])).code === 0,
      "web in member1",
      200,
      100,
    );
    const out = ok(
      await karmadactl(["describe", "deployment", "web", "--operation-scope", "members", "-C", "member1"]),
    );
    expect(out).toMatch(/^Name: {9}web\nNamespace: {4}default\n/);
    expect(out).toMatch(/^Kind: {9}Deployment$/m);
    expect(out).toMatch(/^ +karmada\.io\/managed=true$/m);
    expect(out).not.toContain("Scheduling:");
    expect(out).toMatch(/^Events:/m);

    fails(
      await karmadactl(["describe", "deployment", "web", "-s", "members", "-C=member2"]),
      'Error from server (NotFound): deployments.apps "web" not found\n',
    );
    fails(
      await karmadactl(["describe", "deployment", "web", "-s", "members", "-C", "member9"]),
      'Error from server (NotFound): clusters.cluster.karmada.io "member9" not found\n',
    );
    fails(
      await karmadactl(["describe", "deployment", "web", "--operation-scope", "members"]),
      "error: must specify a member cluster\n",
    );
  });

  it("answers a missing object or type as kubectl does: one line, exit code 1", async () => {
    fails(
      await karmadactl(["describe", "rb", "nope", "-n", "default"]),
      'Error from server (NotFound): resourcebindings.work.karmada.io "nope" not found\n',
    );
    fails(
      await karmadactl(["describe", "rb/nope"]),
      'Error from server (NotFound): resourcebindings.work.karmada.io "nope" not found\n',
    );
    fails(
      await karmadactl(["describe", "gadgets", "nope"]),
      'error: the server doesn\'t have a resource type "gadgets"\n',
    );
  });
});
