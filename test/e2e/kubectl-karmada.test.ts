/**
 * Karmada's own samples applied with kubectl unchanged, their upstream printer columns, and
 * describe of a PropagationPolicy.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedPath, startTestServer, type TestServer } from "../support/kubectl.ts";
import { age, table } from "../support/kubectl-output.ts";

const SAMPLES = "conformance/karmada/samples";

describe("kubectl with Karmada's samples", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
  });

  it("apply -f samples/nginx/ creates every object", async () => {
    expect((await readdir(sharedPath(`${SAMPLES}/nginx`))).sort()).toEqual([
      "deployment.yaml",
      "overridepolicy.yaml",
      "propagationpolicy.yaml",
    ]);
    expect(await s.kubectl(["apply", "-f", sharedPath(`${SAMPLES}/nginx`)])).toEqual({
      code: 0,
      stdout: [
        "deployment.apps/nginx created",
        "overridepolicy.policy.karmada.io/nginx-op created",
        "propagationpolicy.policy.karmada.io/nginx-propagation created",
        "",
      ].join("\n"),
      stderr: "",
    });
    // Applying the same directory again: the Deployment is unchanged. Karmada's webhook filled in
    // resourceSelectors[].namespace on the policies; their merge patch replaces that list, so
    // kubectl sends it again and reports "configured", as against a real Karmada.
    expect(await s.kubectl(["apply", "-f", sharedPath(`${SAMPLES}/nginx`)])).toEqual({
      code: 0,
      stdout: [
        "deployment.apps/nginx unchanged",
        "overridepolicy.policy.karmada.io/nginx-op configured",
        "propagationpolicy.policy.karmada.io/nginx-propagation configured",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("apply every file of samples/guestbook/ (the CRD first, then the rest)", async () => {
    const dir = sharedPath(`${SAMPLES}/guestbook`);
    const files = (await readdir(dir)).sort();
    expect(files).toEqual([
      "guestbook.yaml",
      "guestbooks-clusterpropagationpolicy.yaml",
      "guestbooks-crd.yaml",
      "guestbooks-overridepolicy.yaml",
      "guestbooks-propagationpolicy.yaml",
    ]);
    const outputs: string[] = [];
    for (const f of ["guestbooks-crd.yaml", ...files.filter((f) => f !== "guestbooks-crd.yaml")]) {
      const r = await s.kubectl(["apply", "-f", join(dir, f)]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      outputs.push(r.stdout);
    }
    expect(outputs).toEqual([
      "customresourcedefinition.apiextensions.k8s.io/guestbooks.webapp.my.domain created\n",
      "guestbook.webapp.my.domain/guestbook-sample created\n",
      "clusterpropagationpolicy.policy.karmada.io/example-policy created\n",
      "overridepolicy.policy.karmada.io/guestbook-sample created\n",
      "propagationpolicy.policy.karmada.io/example-policy created\n",
    ]);
  });

  it("get pp / cpp show NAME CONFLICT-RESOLUTION PRIORITY AGE", async () => {
    const [pp, cpp] = await Promise.all([s.kubectl(["get", "pp"]), s.kubectl(["get", "cpp"])]);
    expect(pp.code).toBe(0);
    expect(table(pp.stdout)).toEqual({
      header: ["NAME", "CONFLICT-RESOLUTION", "PRIORITY", "AGE"],
      rows: [
        ["example-policy", "Abort", "0", age()],
        ["nginx-propagation", "Abort", "0", age()],
      ],
    });
    expect(cpp.code).toBe(0);
    expect(table(cpp.stdout)).toEqual({
      header: ["NAME", "CONFLICT-RESOLUTION", "PRIORITY", "AGE"],
      rows: [["example-policy", "Abort", "0", age()]],
    });
  });

  it("get op shows NAME AGE; get cop with none says so", async () => {
    const [op, cop] = await Promise.all([s.kubectl(["get", "op"]), s.kubectl(["get", "cop"])]);
    expect(table(op.stdout)).toEqual({
      header: ["NAME", "AGE"],
      rows: [
        ["guestbook-sample", age()],
        ["nginx-op", age()],
      ],
    });
    expect(cop).toEqual({ code: 0, stdout: "", stderr: "No resources found\n" });
  });

  it("get of the sample workloads", async () => {
    const [d, gb] = await Promise.all([
      s.kubectl(["get", "deploy", "nginx"]),
      s.kubectl(["get", "guestbooks"]),
    ]);
    expect(table(d.stdout)).toEqual({
      header: ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
      rows: [["nginx", "0/2", "0", "0", age()]],
    });
    expect(table(gb.stdout)).toEqual({ header: ["NAME", "AGE"], rows: [["guestbook-sample", age()]] });
  });

  it("the policies keep the samples' content (defaults filled in)", async () => {
    const r = await s.kubectl(["get", "pp", "nginx-propagation", "-o", "json"]);
    const spec = (JSON.parse(r.stdout) as { spec: Record<string, unknown> }).spec;
    expect(spec).toMatchObject({
      conflictResolution: "Abort",
      priority: 0,
      preemption: "Never",
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx", namespace: "default" }],
      placement: {
        clusterAffinity: { clusterNames: ["member1", "member2"] },
        replicaScheduling: {
          replicaDivisionPreference: "Weighted",
          replicaSchedulingType: "Divided",
          weightPreference: {
            staticWeightList: [
              { targetCluster: { clusterNames: ["member1"] }, weight: 1 },
              { targetCluster: { clusterNames: ["member2"] }, weight: 1 },
            ],
          },
        },
      },
    });
    const op = await s.kubectl([
      "get",
      "op",
      "guestbook-sample",
      "-o",
      "jsonpath={.spec.overrideRules[0].overriders.plaintext}",
    ]);
    expect(JSON.parse(op.stdout)).toEqual([
      { path: "/spec/size", operator: "replace", value: 4 },
      { path: "/metadata/annotations", operator: "add", value: { OverridePolicy: "test" } },
    ]);
  });

  it("describe a PropagationPolicy", async () => {
    const r = await s.kubectl(["describe", "pp", "nginx-propagation"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/^Name:\s+nginx-propagation\nNamespace:\s+default\n/);
    // The last-applied annotation is hidden by describe.
    expect(out).toMatch(/^Annotations:\s+<none>$/m);
    expect(out).toMatch(/^API Version:\s+policy\.karmada\.io\/v1alpha1$/m);
    expect(out).toMatch(/^Kind:\s+PropagationPolicy$/m);
    expect(out).toMatch(/^Metadata:\n {2}Creation Timestamp:\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    expect(out).toMatch(/^ {2}Generation:\s+1$/m);
    expect(out).toMatch(
      /^Spec:\n {2}Conflict Resolution:\s+Abort\n {2}Placement:\n {4}Cluster Affinity:\n {6}Cluster Names:\n {8}member1\n {8}member2\n/m,
    );
    expect(out).toMatch(
      /^ {4}Replica Scheduling:\n {6}Replica Division Preference:\s+Weighted\n {6}Replica Scheduling Type:\s+Divided\n/m,
    );
    expect(out).toMatch(
      /^ {2}Resource Selectors:\n {4}API Version:\s+apps\/v1\n {4}Kind:\s+Deployment\n {4}Name:\s+nginx\n/m,
    );
    expect(out).toMatch(/^Events:\s+<none>\n$/m);
  });
});
