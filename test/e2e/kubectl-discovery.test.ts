/**
 * Discovery and schema commands: `api-resources`, `api-versions`, `explain` (OpenAPI v3), `version`,
 * and short names resolving through discovery.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/kubectl.ts";
import { json, lines, table } from "../support/kubectl-output.ts";

describe.concurrent("kubectl discovery commands", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
  });

  it("api-resources lists short names, versions, scope and kind", async () => {
    const r = await s.kubectl(["api-resources"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const t = table(r.stdout);
    expect(t.header).toEqual(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
    const byName = new Map(t.rows.map((row) => [`${row[0]}/${row[2]}`, row]));
    const expected: string[][] = [
      ["configmaps", "cm", "v1", "true", "ConfigMap"],
      ["namespaces", "ns", "v1", "false", "Namespace"],
      ["nodes", "no", "v1", "false", "Node"],
      ["pods", "po", "v1", "true", "Pod"],
      ["secrets", "", "v1", "true", "Secret"],
      ["serviceaccounts", "sa", "v1", "true", "ServiceAccount"],
      ["services", "svc", "v1", "true", "Service"],
      ["events", "ev", "v1", "true", "Event"],
      ["deployments", "deploy", "apps/v1", "true", "Deployment"],
      ["statefulsets", "sts", "apps/v1", "true", "StatefulSet"],
      [
        "customresourcedefinitions",
        "crd,crds",
        "apiextensions.k8s.io/v1",
        "false",
        "CustomResourceDefinition",
      ],
      ["priorityclasses", "pc", "scheduling.k8s.io/v1", "false", "PriorityClass"],
      ["roles", "", "rbac.authorization.k8s.io/v1", "true", "Role"],
      ["propagationpolicies", "pp", "policy.karmada.io/v1alpha1", "true", "PropagationPolicy"],
      [
        "clusterpropagationpolicies",
        "cpp",
        "policy.karmada.io/v1alpha1",
        "false",
        "ClusterPropagationPolicy",
      ],
      ["overridepolicies", "op", "policy.karmada.io/v1alpha1", "true", "OverridePolicy"],
      ["clusteroverridepolicies", "cop", "policy.karmada.io/v1alpha1", "false", "ClusterOverridePolicy"],
      ["resourcebindings", "rb", "work.karmada.io/v1alpha2", "true", "ResourceBinding"],
      ["clusterresourcebindings", "crb", "work.karmada.io/v1alpha2", "false", "ClusterResourceBinding"],
      ["works", "wk", "work.karmada.io/v1alpha1", "true", "Work"],
    ];
    for (const row of expected) expect(byName.get(`${row[0]}/${row[2]}`)).toEqual(row);
    // Subresources are not listed as resources.
    expect(t.rows.filter((row) => row[0]?.includes("/"))).toEqual([]);
  });

  it("api-resources --api-group=policy.karmada.io", async () => {
    const r = await s.kubectl(["api-resources", "--api-group=policy.karmada.io"]);
    expect(r.code).toBe(0);
    const t = table(r.stdout);
    expect(new Set(t.rows.map((row) => row[2]))).toEqual(new Set(["policy.karmada.io/v1alpha1"]));
    expect(t.rows).toEqual(
      expect.arrayContaining([
        ["clusteroverridepolicies", "cop", "policy.karmada.io/v1alpha1", "false", "ClusterOverridePolicy"],
        [
          "clusterpropagationpolicies",
          "cpp",
          "policy.karmada.io/v1alpha1",
          "false",
          "ClusterPropagationPolicy",
        ],
        ["overridepolicies", "op", "policy.karmada.io/v1alpha1", "true", "OverridePolicy"],
        ["propagationpolicies", "pp", "policy.karmada.io/v1alpha1", "true", "PropagationPolicy"],
      ]),
    );
    // kubectl sorts by name within the output.
    const names = t.rows.map((row) => row[0]);
    expect(names).toEqual([...names].sort());
  });

  it("api-resources --namespaced=false, -o name and --verbs", async () => {
    const [cluster, names, verbs] = await Promise.all([
      s.kubectl(["api-resources", "--namespaced=false", "-o", "name"]),
      s.kubectl(["api-resources", "--api-group=apps", "-o", "name"]),
      s.kubectl([
        "api-resources",
        "--verbs=list",
        "--api-group=policy.karmada.io",
        "--namespaced=true",
        "-o",
        "name",
      ]),
    ]);
    expect(cluster.code).toBe(0);
    const clusterNames = lines(cluster.stdout);
    expect(clusterNames).toEqual(
      expect.arrayContaining([
        "namespaces",
        "nodes",
        "customresourcedefinitions.apiextensions.k8s.io",
        "clusterpropagationpolicies.policy.karmada.io",
        "clusterresourcebindings.work.karmada.io",
        "priorityclasses.scheduling.k8s.io",
        "clusterroles.rbac.authorization.k8s.io",
      ]),
    );
    expect(clusterNames).not.toContain("configmaps");
    expect(clusterNames).not.toContain("propagationpolicies.policy.karmada.io");
    expect(lines(names.stdout)).toEqual(
      expect.arrayContaining([
        "daemonsets.apps",
        "deployments.apps",
        "replicasets.apps",
        "statefulsets.apps",
        "controllerrevisions.apps",
      ]),
    );
    expect(lines(verbs.stdout)).toEqual(
      expect.arrayContaining(["overridepolicies.policy.karmada.io", "propagationpolicies.policy.karmada.io"]),
    );
  });

  it("short names resolve for get", async () => {
    const r = await s.kubectl([
      "get",
      "pp,cpp,op,cop,rb,crb,deploy,cm,ns,svc,sa,crd,pc,sts,ds,rs,cj",
      "-A",
      "-o",
      "name",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out).toContain("namespace/default");
    expect(out).toContain(
      "customresourcedefinition.apiextensions.k8s.io/propagationpolicies.policy.karmada.io",
    );
  });

  it("api-versions", async () => {
    const r = await s.kubectl(["api-versions"]);
    expect(r.code).toBe(0);
    const versions = lines(r.stdout);
    expect(versions).toEqual(
      expect.arrayContaining([
        "v1",
        "apps/v1",
        "batch/v1",
        "apiextensions.k8s.io/v1",
        "rbac.authorization.k8s.io/v1",
        "policy.karmada.io/v1alpha1",
        "work.karmada.io/v1alpha1",
        "work.karmada.io/v1alpha2",
        "cluster.karmada.io/v1alpha1",
        "config.karmada.io/v1alpha1",
      ]),
    );
    expect(versions).toEqual([...versions].sort());
  });

  it("explain deployment.spec.replicas", async () => {
    const r = await s.kubectl(["explain", "deployment.spec.replicas"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n\nFIELD: replicas <integer>\n/,
    );
    expect(r.stdout).toContain("DESCRIPTION:\n    Number of desired pods.");
  });

  it("explain deployment.spec lists the fields with types", async () => {
    const r = await s.kubectl(["explain", "deployment.spec"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^FIELD: spec <DeploymentSpec>$/m);
    expect(r.stdout).toMatch(/^ {2}replicas\t<integer>$/m);
    expect(r.stdout).toMatch(/^ {2}selector\t<LabelSelector> -required-$/m);
    expect(r.stdout).toMatch(/^ {2}template\t<PodTemplateSpec> -required-$/m);
  });

  it("explain propagationpolicy.spec.placement", async () => {
    const r = await s.kubectl(["explain", "propagationpolicy.spec.placement"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^GROUP:\s+policy\.karmada\.io\nKIND:\s+PropagationPolicy\nVERSION:\s+v1alpha1\n\nFIELD: placement <Object>\n/,
    );
    // The project words Karmada's descriptions itself (src/api/karmada/crds.test.ts); any text will do.
    expect(r.stdout).toMatch(/\nDESCRIPTION:\n {4}\S.*\n/);
    expect(r.stdout).toMatch(/^ {2}clusterAffinity\t<Object>$/m);
    expect(r.stdout).toMatch(/^ {2}replicaScheduling\t<Object>$/m);
    expect(r.stdout).toMatch(/^ {2}spreadConstraints\t<\[\]Object>$/m);
  });

  it("explain pp via the short name, --recursive", async () => {
    const r = await s.kubectl(["explain", "pp.spec.placement.clusterAffinity", "--recursive"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}clusterNames\t<\[\]string>$/m);
    expect(r.stdout).toMatch(/^ {2}labelSelector\t<Object>$/m);
    expect(r.stdout).toMatch(/^ {4}matchLabels\t<map\[string\]string>$/m);
  });

  it("version", async () => {
    const [plain, js] = await Promise.all([s.kubectl(["version"]), s.kubectl(["version", "-o", "json"])]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toBe("");
    expect(plain.stdout).toMatch(/^Server Version: v1\.32\.\d+\S*$/m);
    expect(plain.stdout).not.toContain("WARNING");
    const v = json<{ serverVersion: Record<string, string> }>(js.stdout);
    expect(v.serverVersion).toMatchObject({
      major: "1",
      minor: "32",
      platform: expect.stringMatching(/^\w+\/\w+$/),
    });
    expect(v.serverVersion.gitVersion).toMatch(/^v1\.32\./);
  });
});
