/**
 * `karmadactl promote` as a user runs it: the real executable (a child process) against
 * `karmada up` (member1 and member2 joined in Push mode), with objects created straight in the
 * members by the real kubectl. Promotion adopts the member's object in place (same uid, now
 * labelled `karmada.io/managed`), creates upstream's policy (name, fields), handles namespaced
 * and cluster-scoped kinds, dependencies, dry runs, upstream's messages for what it refuses,
 * and — as upstream's policy preserves resources on deletion — deleting the template later
 * leaves the member's object running, released from Karmada.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { RunningUp } from "../../src/bin/up.ts";
import { gvkString } from "../../src/cli/commands/promote.ts";
import { generatePolicyName } from "../../src/karmada/names.ts";
import { startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually, KUBECTL, type KubectlResult } from "../support/kubectl.ts";
import { configMap, deployment, manifest } from "../support/kubectl-output.ts";

const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));
const CONFLICT = "work.karmada.io/conflict-resolution";
const MANAGED = "karmada.io/managed";

type Obj = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
};

/** Runs a program with its own HOME and no KUBECONFIG; never throws. */
function runner(file: string, prefix: string[], home: string) {
  return (args: string[], stdin?: string, timeoutMs = 60_000): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const child = execFile(
        file,
        [...prefix, ...args],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home }, timeout: timeoutMs },
        (err, stdout, stderr) => {
          const code = err
            ? typeof (err as { code?: unknown }).code === "number"
              ? (err as { code: number }).code
              : 1
            : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (stdin !== undefined) child.stdin!.end(stdin);
    });
}

const ok = (r: KubectlResult): KubectlResult => {
  expect(r.stderr, r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r;
};

/** One line on stderr, nothing on stdout, exit code 1. */
const oneLineError = (r: KubectlResult, message: string): void => {
  expect(r.stderr).toBe(`error: ${message}\n`);
  expect(r.stdout).toBe("");
  expect(r.code).toBe(1);
};

// Each karmadactl run is a Node process (about a second of start-up); waits inside are bounded.
describe("karmadactl promote on karmada up", { timeout: 120_000 }, () => {
  let dir: string;
  let fleet: TestFleet;
  let up: RunningUp;
  let kubectlIn: ReturnType<typeof runner>;
  let karmadactl: ReturnType<typeof runner>;
  /** `--kubeconfig K --karmada-context karmada-apiserver` */
  let controlPlane: string[];

  const kubectl = (context: string, args: string[], stdin?: string) =>
    kubectlIn(["--context", context, ...args], stdin);
  const promote = (args: string[]) => karmadactl(["promote", ...args, ...controlPlane]);
  const getJson = async (context: string, args: string[]): Promise<Obj | undefined> => {
    const r = await kubectl(context, ["get", ...args, "-o", "json"]);
    return r.code === 0 ? (JSON.parse(r.stdout) as Obj) : undefined;
  };
  const create = async (context: string, ...objects: unknown[]): Promise<void> => {
    ok(await kubectl(context, ["create", "-f", "-"], manifest(...objects)));
  };
  const managed = (context: string, args: string[]): Promise<Obj> =>
    eventually(
      async () => {
        const obj = await getJson(context, args);
        return obj?.metadata.labels?.[MANAGED] === "true" ? obj : undefined;
      },
      `${args.join(" ")} managed by Karmada in ${context}`,
      300,
      100,
    );

  beforeAll(async () => {
    fleet = await startTestFleet("promote", 2);
    ({ up, dir } = fleet);
    kubectlIn = runner(
      KUBECTL,
      [`--kubeconfig=${up.kubeconfig}`, `--cache-dir=${join(dir, "cache")}`, "--request-timeout=10s"],
      dir,
    );
    karmadactl = runner(process.execPath, [KARMADACTL], dir);
    controlPlane = ["--kubeconfig", up.kubeconfig, "--karmada-context", "karmada-apiserver"];
  }, 90_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  const nginxPolicy = generatePolicyName("default", "nginx", gvkString("apps/v1", "Deployment"));

  it("promotes a Deployment running in member1: same object, now managed, with upstream's policy", async () => {
    await create("member1", deployment("nginx", { replicas: 2 }));
    const before = (await getJson("member1", ["deployment", "nginx"]))!;

    const r = ok(await promote(["deployment", "nginx", "-n", "default", "-C", "member1"]));
    expect(r.stdout).toBe(
      [
        "ResourceTemplate (default/nginx) is created successfully",
        `PropagationPolicy (default/${nginxPolicy}) is created successfully`,
        'Resource "apps/v1, Resource=deployments"(default/nginx) is promoted successfully',
        "",
      ].join("\n"),
    );

    const template = (await getJson("karmada-apiserver", ["deployment", "nginx"]))!;
    expect(template.metadata.annotations?.[CONFLICT]).toBe("overwrite");
    expect(template.metadata.uid).not.toBe(before.metadata.uid);
    expect(template.spec?.replicas).toBe(2);

    const pp = (await getJson("karmada-apiserver", ["pp", nginxPolicy, "-n", "default"]))!;
    expect(pp.spec).toMatchObject({
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }],
      placement: { clusterAffinity: { clusterNames: ["member1"] } },
      conflictResolution: "Overwrite",
      preserveResourcesOnDeletion: true,
    });
    expect(pp.spec?.propagateDeps).toBeFalsy();

    // The Work took the member's Deployment over in place: not deleted and recreated.
    const after = await managed("member1", ["deployment", "nginx"]);
    expect(after.metadata.uid).toBe(before.metadata.uid);
    const rb = (await getJson("karmada-apiserver", ["rb", "nginx-deployment"]))!;
    expect(rb.spec?.clusters).toEqual([{ name: "member1", replicas: 2 }]);
    expect((await kubectl("member2", ["get", "deployment", "nginx"])).code).not.toBe(0);
  });

  it("promoting what the control plane has already warns and succeeds, as upstream", async () => {
    const r = await promote(["deployment", "nginx", "-n", "default", "-C", "member1"]);
    expect(r.stderr).toBe(
      'Warning: Resource "apps/v1, Resource=deployments"(default/nginx) already exist in karmada control plane, you can edit PropagationPolicy and OverridePolicy to propagate it\n',
    );
    expect(r.stdout).toBe("");
    expect(r.code).toBe(0);
  });

  it("says what is missing: the object, its type, the cluster, the arguments", async () => {
    oneLineError(
      await promote(["deployment", "nope", "-n", "default", "-C", "member1"]),
      "failed to get resource in cluster(member1). err: the deployment or nope don't exist in cluster(member1)",
    );
    oneLineError(
      await promote(["gadgets", "nope", "-C", "member1"]),
      'failed to get resource in cluster(member1). err: the server doesn\'t have a resource type "gadgets"',
    );
    oneLineError(
      await promote(["deployment", "nginx", "-C", "member9"]),
      'failed to get Factory of the member cluster. err: clusters.cluster.karmada.io "member9" not found',
    );
    oneLineError(await promote(["deployment", "nginx"]), "the cluster cannot be empty");
    oneLineError(
      await promote(["deployment", "-C", "member1"]),
      "incorrect command format, please use correct command format",
    );
    oneLineError(
      await promote(["deployment", "nginx", "-C", "member1", "-o", "wide"]),
      "invalid output format: supported formats are json and yaml",
    );
  });

  it("--dry-run -o yaml prints the template and the policy and writes nothing", async () => {
    await create("member1", configMap("settings", { mode: "fast" }, { namespace: "default" }));
    const r = ok(await promote(["cm", "settings", "-n", "default", "-C=member1", "--dry-run", "-o", "yaml"]));
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj);
    const policyName = generatePolicyName("default", "settings", gvkString("v1", "ConfigMap"));
    expect(docs).toEqual([
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "settings", namespace: "default", annotations: { [CONFLICT]: "overwrite" } },
        data: { mode: "fast" },
      },
      {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: policyName, namespace: "default" },
        spec: {
          resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "settings" }],
          placement: { clusterAffinity: { clusterNames: ["member1"] } },
          conflictResolution: "Overwrite",
          preserveResourcesOnDeletion: true,
        },
      },
    ]);
    expect(r.stdout).toContain("\n---\n");
    expect((await kubectl("karmada-apiserver", ["get", "cm", "settings"])).code).not.toBe(0);
    expect((await kubectl("karmada-apiserver", ["get", "pp", policyName])).code).not.toBe(0);
    // Plain --dry-run prints nothing either.
    const quiet = ok(await promote(["cm", "settings", "-C", "member1", "--dry-run"]));
    expect(quiet.stdout).toBe("");
    expect((await getJson("member1", ["cm", "settings"]))?.metadata.labels?.[MANAGED]).toBeUndefined();
  });

  it("promotes a ConfigMap from member2 reached with --cluster-kubeconfig and --cluster-context", async () => {
    await create("member2", configMap("feature-flags", { beta: "on" }, { namespace: "default" }));
    const before = (await getJson("member2", ["cm", "feature-flags"]))!;
    const r = ok(
      await promote([
        "configmaps",
        "feature-flags",
        "-C",
        "member2",
        "--cluster-kubeconfig",
        up.kubeconfig,
        "--cluster-context",
        "member2",
        "--policy-name",
        "flags",
      ]),
    );
    expect(r.stdout).toContain("PropagationPolicy (default/flags) is created successfully\n");
    expect(r.stdout).toContain(
      'Resource "/v1, Resource=configmaps"(default/feature-flags) is promoted successfully\n',
    );
    const after = await managed("member2", ["cm", "feature-flags"]);
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(after.data).toEqual({ beta: "on" });
    expect((await kubectl("member1", ["get", "cm", "feature-flags"])).code).not.toBe(0);
  });

  it("promotes a cluster-scoped ClusterRole with a ClusterPropagationPolicy (`:` becomes `.`)", async () => {
    await create("member1", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "demo:reader" },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }],
    });
    const before = (await getJson("member1", ["clusterrole", "demo:reader"]))!;
    const cppName = generatePolicyName(
      "",
      "demo:reader",
      gvkString("rbac.authorization.k8s.io/v1", "ClusterRole"),
    );
    expect(cppName).toMatch(/^demo\.reader-/);

    const r = ok(await promote(["clusterrole", "demo:reader", "-C", "member1"]));
    expect(r.stdout).toBe(
      [
        // Upstream writes the -n namespace (default) even for a cluster-scoped object.
        "ResourceTemplate (default/demo:reader) is created successfully",
        `ClusterPropagationPolicy ${cppName} is created successfully`,
        'Resource "rbac.authorization.k8s.io/v1, Resource=clusterroles"(demo:reader) is promoted successfully',
        "",
      ].join("\n"),
    );
    const cpp = (await getJson("karmada-apiserver", ["cpp", cppName]))!;
    expect(cpp.spec).toMatchObject({
      resourceSelectors: [
        { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "demo:reader" },
      ],
      placement: { clusterAffinity: { clusterNames: ["member1"] } },
      conflictResolution: "Overwrite",
      preserveResourcesOnDeletion: true,
    });
    const after = await managed("member1", ["clusterrole", "demo:reader"]);
    expect(after.metadata.uid).toBe(before.metadata.uid);
  });

  it("a namespace the control plane lacks is promoted first, as in upstream's e2e", async () => {
    await create("member1", { apiVersion: "v1", kind: "Namespace", metadata: { name: "legacy" } });
    await create("member1", deployment("api", { namespace: "legacy" }));
    oneLineError(
      await promote(["deployment", "api", "-n", "legacy", "-C", "member1"]),
      'failed to create resource "apps/v1, Resource=deployments"(legacy/api) in control plane: namespaces "legacy" not found',
    );
    const nsPolicy = generatePolicyName("", "legacy", gvkString("v1", "Namespace"));
    expect(ok(await promote(["namespace", "legacy", "-C", "member1"])).stdout).toContain(
      `ClusterPropagationPolicy ${nsPolicy} is created successfully\n`,
    );
    const before = (await getJson("member1", ["deployment", "api", "-n", "legacy"]))!;
    ok(await promote(["deployment", "api", "-n", "legacy", "-C", "member1"]));
    const after = await managed("member1", ["deployment", "api", "-n", "legacy"]);
    expect(after.metadata.uid).toBe(before.metadata.uid);
  });

  it("--dependencies promotes the ConfigMap a Deployment reads, and the policy propagates dependencies", async () => {
    await create(
      "member1",
      configMap("web-config", { greeting: "hi" }, { namespace: "default" }),
      deployment("web", {
        containers: [
          { name: "web", image: "nginx:1.25", envFrom: [{ configMapRef: { name: "web-config" } }] },
        ],
      }),
    );
    const webPolicyName = generatePolicyName("default", "web", gvkString("apps/v1", "Deployment"));
    const r = ok(await promote(["deploy", "web", "-C", "member1", "-d=true"]));
    expect(r.stdout).toBe(
      [
        "use default interpreter",
        'Dependency resource "/v1, Resource=configmaps"(default/web-config) is promoted successfully',
        "ResourceTemplate (default/web) is created successfully",
        `PropagationPolicy (default/${webPolicyName}) is created successfully`,
        'Resource "apps/v1, Resource=deployments"(default/web) is promoted successfully',
        "",
      ].join("\n"),
    );
    const dep = (await getJson("karmada-apiserver", ["cm", "web-config"]))!;
    expect(dep.metadata.annotations?.[CONFLICT]).toBe("overwrite");
    expect(dep.data).toEqual({ greeting: "hi" });
    const webPolicy = await getJson("karmada-apiserver", ["pp", webPolicyName, "-n", "default"]);
    expect(webPolicy?.spec?.propagateDeps).toBe(true);
    await managed("member1", ["deployment", "web"]);
  });

  it("deleting the template leaves the member's Deployment running, released (preserveResourcesOnDeletion)", async () => {
    const before = await managed("member1", ["deployment", "nginx"]);
    ok(await kubectl("karmada-apiserver", ["delete", "deployment", "nginx"]));
    await eventually(
      async () => (await kubectl("karmada-apiserver", ["get", "rb", "nginx-deployment"])).code !== 0,
      "the binding gone",
      300,
      100,
    );
    const kept = await eventually(
      async () => {
        const obj = await getJson("member1", ["deployment", "nginx"]);
        return obj && obj.metadata.labels?.[MANAGED] === undefined ? obj : undefined;
      },
      "nginx in member1 released from Karmada",
      300,
      100,
    );
    expect(kept.metadata.uid).toBe(before.metadata.uid);
    expect(Object.keys(kept.metadata.labels ?? {}).filter((k) => k.includes("karmada.io"))).toEqual([]);
    expect(Object.keys(kept.metadata.annotations ?? {}).filter((k) => k.includes("karmada.io"))).toEqual([]);
  });
});
