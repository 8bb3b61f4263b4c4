/**
 * `kubectl apply` (client-side three-way patches: strategic merge for built-ins, JSON merge
 * patch for custom resources), server-side apply with field managers and conflicts, server
 * dry runs, `kubectl diff`, and `create -f` / `replace -f` / `replace --force`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/kubectl.ts";
import { configMap, deployment, json, lines, manifest } from "../support/kubectl-output.ts";

const NS = "ap";

describe.concurrent("kubectl apply, diff, create -f, replace", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    expect((await s.kubectl(["create", "namespace", NS])).code).toBe(0);
  });
  afterAll(async () => {
    await s.close();
  });

  const apply = (objects: unknown[], ...extra: string[]) =>
    s.kubectl(["-n", NS, "apply", ...extra, "-f", "-"], { stdin: manifest(...objects) });
  const get = async (...args: string[]): Promise<string> => {
    const r = await s.kubectl(["-n", NS, "get", ...args]);
    expect(r.stderr).toBe("");
    return r.stdout;
  };

  describe("client-side apply", () => {
    it("a kind: List file applies item by item; a bad item is still refused by the server", async () => {
      const list = (items: unknown[]) => JSON.stringify({ apiVersion: "v1", kind: "List", items });
      const r = await s.kubectl(["-n", NS, "apply", "-f", "-"], {
        stdin: list([configMap("listed-a", { a: "1" }), configMap("listed-b", { b: "2" })]),
      });
      expect(r).toEqual({
        code: 0,
        stdout: "configmap/listed-a created\nconfigmap/listed-b created\n",
        stderr: "",
      });
      const bad = { ...configMap("listed-c", {}), bogus: 1 };
      const refused = await s.kubectl(["-n", NS, "apply", "-f", "-"], { stdin: list([bad]) });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('unknown field "bogus"');
    });

    it("new → created, same again → unchanged, changed → configured", async () => {
      const cm = configMap("cfg", { a: "1" });
      expect(await apply([cm])).toEqual({ code: 0, stdout: "configmap/cfg created\n", stderr: "" });
      expect(await apply([cm])).toEqual({ code: 0, stdout: "configmap/cfg unchanged\n", stderr: "" });
      expect(await apply([configMap("cfg", { a: "2", b: "3" })])).toEqual({
        code: 0,
        stdout: "configmap/cfg configured\n",
        stderr: "",
      });
      expect(await get("cm", "cfg", "-o", "jsonpath={.data}")).toBe('{"a":"2","b":"3"}');
      // A key dropped from the manifest is removed (it was in last-applied).
      expect(await apply([configMap("cfg", { b: "3" })])).toMatchObject({
        code: 0,
        stdout: "configmap/cfg configured\n",
      });
      expect(await get("cm", "cfg", "-o", "jsonpath={.data}")).toBe('{"b":"3"}');
      const annotation = await get(
        "cm",
        "cfg",
        "-o",
        "jsonpath={.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration}",
      );
      expect(json(annotation)).toEqual({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { annotations: {}, name: "cfg", namespace: NS },
        data: { b: "3" },
      });
    });

    it("a Deployment image/env change is a strategic merge (containers and env merged by name)", async () => {
      const containers = (image: string, env: Array<{ name: string; value: string }>) => [
        { name: "nginx", image, env },
        { name: "sidecar", image: "busybox:1.36", command: ["sleep", "3600"] },
      ];
      const v1 = deployment("smp", {
        replicas: 2,
        containers: containers("nginx:1", [
          { name: "A", value: "1" },
          { name: "B", value: "2" },
        ]),
      });
      expect(await apply([v1])).toMatchObject({ code: 0, stdout: "deployment.apps/smp created\n" });
      // Someone else adds an env var and a resource limit to the nginx container (not in the manifest).
      const p = await s.kubectl([
        "-n",
        NS,
        "patch",
        "deployment",
        "smp",
        "-p",
        '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"C","value":"3"}],"resources":{"limits":{"cpu":"1"}}}]}}}}',
      ]);
      expect(p).toEqual({ code: 0, stdout: "deployment.apps/smp patched\n", stderr: "" });
      const v2 = deployment("smp", {
        replicas: 2,
        containers: containers("nginx:2", [{ name: "A", value: "2" }]),
      });
      expect(await apply([v2])).toEqual({ code: 0, stdout: "deployment.apps/smp configured\n", stderr: "" });
      const d = json<{
        metadata: { generation: number };
        spec: { template: { spec: { containers: Array<Record<string, unknown>> } } };
      }>(await get("deploy", "smp", "-o", "json"));
      const byName = Object.fromEntries(d.spec.template.spec.containers.map((c) => [c.name, c]));
      expect(Object.keys(byName).sort()).toEqual(["nginx", "sidecar"]);
      expect(byName.nginx).toMatchObject({ image: "nginx:2", resources: { limits: { cpu: "1" } } });
      // A changed, B removed (it was applied before), C kept (never applied).
      const env = ((byName.nginx?.env ?? []) as Array<{ name: string; value: string }>).map(
        (e) => `${e.name}=${e.value}`,
      );
      expect(env.sort()).toEqual(["A=2", "C=3"]);
      expect(byName.sidecar).toMatchObject({ image: "busybox:1.36", command: ["sleep", "3600"] });
      expect(d.metadata.generation).toBe(3);
      const patches = s.requests.filter(
        (r) => r.method === "PATCH" && r.path === `/apis/apps/v1/namespaces/${NS}/deployments/smp`,
      );
      expect(patches.map((r) => r.contentType)).toEqual([
        "application/strategic-merge-patch+json",
        "application/strategic-merge-patch+json",
      ]);
    });

    it("a custom resource (PropagationPolicy) change is a JSON merge patch", async () => {
      const pp = (clusters: string[], extra: Record<string, unknown> = {}) => ({
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "pp-apply" },
        spec: {
          // With the namespace spelled out: Karmada's webhook fills it in otherwise, and since a
          // merge patch replaces whole lists, kubectl would re-send the list ("configured").
          resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "smp", namespace: NS }],
          placement: { clusterAffinity: { clusterNames: clusters } },
          ...extra,
        },
      });
      expect(await apply([pp(["m1", "m2"])])).toEqual({
        code: 0,
        stdout: "propagationpolicy.policy.karmada.io/pp-apply created\n",
        stderr: "",
      });
      expect(await s.kubectl(["-n", NS, "label", "pp", "pp-apply", "team=a"])).toMatchObject({ code: 0 });
      expect(await apply([pp(["m1", "m2"])])).toMatchObject({
        code: 0,
        stdout: "propagationpolicy.policy.karmada.io/pp-apply unchanged\n",
      });
      expect(await apply([pp(["m3"], { priority: 5 })])).toEqual({
        code: 0,
        stdout: "propagationpolicy.policy.karmada.io/pp-apply configured\n",
        stderr: "",
      });
      const got = json<{ metadata: { labels: Record<string, string> }; spec: Record<string, unknown> }>(
        await get("pp", "pp-apply", "-o", "json"),
      );
      expect(got.spec).toMatchObject({
        placement: { clusterAffinity: { clusterNames: ["m3"] } },
        priority: 5,
        conflictResolution: "Abort",
      });
      expect(got.metadata.labels).toMatchObject({ team: "a" });
      const patch = s.requests.findLast(
        (r) =>
          r.method === "PATCH" &&
          r.path === `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/pp-apply`,
      );
      expect(patch?.contentType).toBe("application/merge-patch+json");
      expect(patch?.status).toBe(200);
    });

    it("a Service applied twice is unchanged (allocated clusterIP and defaults do not show up as a diff)", async () => {
      const svc = {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "svc-apply" },
        spec: { selector: { app: "x" }, ports: [{ port: 80 }] },
      };
      expect(await apply([svc])).toMatchObject({ code: 0, stdout: "service/svc-apply created\n" });
      expect(await apply([svc])).toEqual({ code: 0, stdout: "service/svc-apply unchanged\n", stderr: "" });
    });
  });

  describe("server-side apply", () => {
    const ssa = (cm: unknown, ...extra: string[]) => apply([cm], "--server-side", ...extra);

    it("creates, re-applies, reports conflicts between managers, and --force-conflicts takes over", async () => {
      expect(await ssa(configMap("ssa", { a: "1", b: "1" }), "--field-manager=mgr-a")).toEqual({
        code: 0,
        stdout: "configmap/ssa serverside-applied\n",
        stderr: "",
      });
      expect(await ssa(configMap("ssa", { a: "1", b: "1" }), "--field-manager=mgr-a")).toEqual({
        code: 0,
        stdout: "configmap/ssa serverside-applied\n",
        stderr: "",
      });
      const managed = json<
        Array<{ manager: string; operation: string; apiVersion: string; fieldsType: string }>
      >(await get("cm", "ssa", "-o", "jsonpath={.metadata.managedFields}"));
      expect(managed).toEqual([
        expect.objectContaining({
          manager: "mgr-a",
          operation: "Apply",
          apiVersion: "v1",
          fieldsType: "FieldsV1",
        }),
      ]);

      const conflict = await ssa(configMap("ssa", { a: "2" }), "--field-manager=mgr-b");
      expect(conflict.code).toBe(1);
      expect(conflict.stdout).toBe("");
      expect(conflict.stderr).toBe(
        [
          'error: Apply failed with 1 conflict: conflict with "mgr-a": .data.a',
          "Please review the fields above--they currently have other managers. Here",
          "are the ways you can resolve this warning:",
          "* If you intend to manage all of these fields, please re-run the apply",
          "  command with the `--force-conflicts` flag.",
          "* If you do not intend to manage all of the fields, please edit your",
          "  manifest to remove references to the fields that should keep their",
          "  current managers.",
          "* You may co-own fields by updating your manifest to match the existing",
          "  value; in this case, you'll become the manager if the other manager(s)",
          "  stop managing the field (remove it from their configuration).",
          "See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts",
          "",
        ].join("\n"),
      );
      expect(await get("cm", "ssa", "-o", "jsonpath={.data.a}")).toBe("1");

      // Applying the same value is co-ownership, not a conflict.
      expect(await ssa(configMap("ssa", { b: "1" }), "--field-manager=mgr-c")).toMatchObject({ code: 0 });

      expect(await ssa(configMap("ssa", { a: "2" }), "--field-manager=mgr-b", "--force-conflicts")).toEqual({
        code: 0,
        stdout: "configmap/ssa serverside-applied\n",
        stderr: "",
      });
      expect(await get("cm", "ssa", "-o", "jsonpath={.data}")).toBe('{"a":"2","b":"1"}');
      const after = json<Array<{ manager: string; fieldsV1: { "f:data"?: Record<string, unknown> } }>>(
        await get("cm", "ssa", "-o", "jsonpath={.metadata.managedFields}"),
      );
      const owners = Object.fromEntries(
        after.map((m) => [m.manager, Object.keys(m.fieldsV1["f:data"] ?? {}).sort()]),
      );
      expect(owners).toEqual({ "mgr-a": ["f:b"], "mgr-b": ["f:a"], "mgr-c": ["f:b"] });
    });

    it("a field dropped from the applied config is removed when no one else owns it", async () => {
      expect(await ssa(configMap("ssa-prune", { a: "1", b: "2" }))).toMatchObject({ code: 0 });
      expect(await ssa(configMap("ssa-prune", { a: "1" }))).toMatchObject({
        code: 0,
        stdout: "configmap/ssa-prune serverside-applied\n",
      });
      expect(await get("cm", "ssa-prune", "-o", "jsonpath={.data}")).toBe('{"a":"1"}');
    });

    it("a built-in with a list-map (Deployment containers) is merged by key under server-side apply", async () => {
      const d = deployment("ssa-deploy", { replicas: 1, image: "nginx:1" });
      expect(await ssa(d)).toMatchObject({
        code: 0,
        stdout: "deployment.apps/ssa-deploy serverside-applied\n",
      });
      expect(await s.kubectl(["-n", NS, "scale", "deploy", "ssa-deploy", "--replicas=4"])).toMatchObject({
        code: 0,
      });
      // kubectl scale (manager "kubectl", an Update through /scale) took .spec.replicas: re-applying 1 conflicts.
      const c = await ssa(d);
      expect(c.code).toBe(1);
      expect(lines(c.stderr)[0]).toBe(
        'error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas',
      );
      expect(await ssa(deployment("ssa-deploy", { replicas: 4, image: "nginx:2" }))).toMatchObject({
        code: 0,
      });
      expect(
        await get(
          "deploy",
          "ssa-deploy",
          "-o",
          "jsonpath={.spec.replicas} {.spec.template.spec.containers[*].image}",
        ),
      ).toBe("4 nginx:2");
    });
  });

  describe("dry runs and diff", () => {
    it("apply --dry-run=server persists nothing", async () => {
      expect(await apply([configMap("dry", { a: "1" })], "--dry-run=server")).toEqual({
        code: 0,
        stdout: "configmap/dry created (server dry run)\n",
        stderr: "",
      });
      const missing = await s.kubectl(["-n", NS, "get", "cm", "dry"]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe('Error from server (NotFound): configmaps "dry" not found\n');
      expect(await apply([configMap("dry", { a: "1" })])).toMatchObject({ code: 0 });
      expect(await apply([configMap("dry", { a: "2" })], "--dry-run=server")).toEqual({
        code: 0,
        stdout: "configmap/dry configured (server dry run)\n",
        stderr: "",
      });
      expect(await get("cm", "dry", "-o", "jsonpath={.data.a}")).toBe("1");
      expect(await apply([configMap("dry", { a: "2" })], "--server-side", "--dry-run=server")).toEqual({
        code: 0,
        stdout: "configmap/dry serverside-applied (server dry run)\n",
        stderr: "",
      });
      expect(await get("cm", "dry", "-o", "jsonpath={.data.a}")).toBe("1");
    });

    it("diff exits 0 without changes and 1 with a unified diff", async () => {
      const d = deployment("diffme", { replicas: 2 });
      expect(await apply([d])).toMatchObject({ code: 0 });
      const same = await s.kubectl(["-n", NS, "diff", "-f", "-"], { stdin: manifest(d) });
      expect(same).toEqual({ code: 0, stdout: "", stderr: "" });
      const changed = await s.kubectl(["-n", NS, "diff", "-f", "-"], {
        stdin: manifest(deployment("diffme", { replicas: 3 })),
      });
      expect(changed.stderr).toBe("");
      expect(changed.code).toBe(1);
      expect(changed.stdout).toMatch(
        /^diff -u -N .*\/LIVE-\d+\/apps\.v1\.Deployment\.ap\.diffme .*\/MERGED-\d+\//,
      );
      expect(changed.stdout).toContain("\n-  replicas: 2\n+  replicas: 3\n");
      expect(changed.stdout).toContain("\n-  generation: 1\n+  generation: 2\n");
      // Nothing was changed by diff's server-side dry run.
      expect(await get("deploy", "diffme", "-o", "jsonpath={.spec.replicas}/{.metadata.generation}")).toBe(
        "2/1",
      );
      const newObj = await s.kubectl(["-n", NS, "diff", "-f", "-"], {
        stdin: manifest(configMap("diff-new", { k: "v" })),
      });
      expect(newObj.code).toBe(1);
      expect(newObj.stdout).toContain("\n+kind: ConfigMap\n");
    });
  });

  describe("create -f and replace", () => {
    it("create -f, replace -f, replace --force", async () => {
      const path = await s.writeFile("cf.yaml", manifest(configMap("cf", { a: "1" }, { namespace: NS })));
      expect(await s.kubectl(["create", "-f", path])).toEqual({
        code: 0,
        stdout: "configmap/cf created\n",
        stderr: "",
      });
      const uid = await get("cm", "cf", "-o", "jsonpath={.metadata.uid}");
      const rv = await get("cm", "cf", "-o", "jsonpath={.metadata.resourceVersion}");

      const path2 = await s.writeFile("cf2.yaml", manifest(configMap("cf", { a: "2" }, { namespace: NS })));
      expect(await s.kubectl(["replace", "-f", path2])).toEqual({
        code: 0,
        stdout: "configmap/cf replaced\n",
        stderr: "",
      });
      expect(await get("cm", "cf", "-o", "jsonpath={.data.a} {.metadata.uid}")).toBe(`2 ${uid}`);
      expect(Number(await get("cm", "cf", "-o", "jsonpath={.metadata.resourceVersion}"))).toBeGreaterThan(
        Number(rv),
      );

      const path3 = await s.writeFile("cf3.yaml", manifest(configMap("cf", { a: "3" }, { namespace: NS })));
      expect(await s.kubectl(["replace", "--force", "-f", path3])).toEqual({
        code: 0,
        stdout: 'configmap "cf" deleted\nconfigmap/cf replaced\n',
        stderr: "",
      });
      const after = await get("cm", "cf", "-o", "jsonpath={.data.a} {.metadata.uid}");
      expect(after.split(" ")[0]).toBe("3");
      expect(after.split(" ")[1]).not.toBe(uid);
    });

    it("replace of a Deployment keeps server-owned fields and bumps generation", async () => {
      expect(await apply([deployment("rep", { replicas: 1 })])).toMatchObject({ code: 0 });
      const r = await s.kubectl(["-n", NS, "replace", "-f", "-"], {
        stdin: manifest(deployment("rep", { replicas: 2, namespace: NS })),
      });
      expect(r).toEqual({ code: 0, stdout: "deployment.apps/rep replaced\n", stderr: "" });
      expect(await get("deploy", "rep", "-o", "jsonpath={.spec.replicas} {.metadata.generation}")).toBe(
        "2 2",
      );
    });
  });
});
