/**
 * kubectl's imperative commands: `create <kind>` (protobuf request bodies), `edit` with a
 * scripted editor, `patch` of every type, `label`, `annotate`, `scale`, and `describe`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/kubectl.ts";
import { configMap, deployment, json, manifest } from "../support/kubectl-output.ts";

const NS = "crud";
const PROTOBUF = "application/vnd.kubernetes.protobuf";

describe("kubectl imperative commands", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    expect(await s.kubectl(["create", "namespace", NS])).toEqual({
      code: 0,
      stdout: `namespace/${NS} created\n`,
      stderr: "",
    });
  });
  afterAll(async () => {
    await s.close();
  });

  const k = (...args: string[]) => s.kubectl(["-n", NS, ...args]);
  const jsonpath = async (resource: string, path: string): Promise<string> => {
    const r = await k("get", resource, "-o", `jsonpath=${path}`);
    expect(r.stderr).toBe("");
    return r.stdout;
  };
  const getJson = async <T = Record<string, unknown>>(resource: string): Promise<T> => {
    const r = await k("get", resource, "-o", "json");
    expect(r.stderr).toBe("");
    return json<T>(r.stdout);
  };
  /** The content type of the POST that created `path` (kubectl's typed clients send protobuf). */
  const postType = (path: string) =>
    s.requests.find((r) => r.method === "POST" && r.path === path)?.contentType;

  describe.concurrent("create <kind> (protobuf bodies)", () => {
    it("namespace, configmap, secret generic, serviceaccount", async () => {
      expect(postType("/api/v1/namespaces")).toBe(PROTOBUF);
      const results = await Promise.all([
        k("create", "configmap", "c1", "--from-literal=a=b", "--from-literal=c=d"),
        k("create", "secret", "generic", "s1", "--from-literal=k=v"),
        k("create", "serviceaccount", "sa1"),
      ]);
      expect(results).toEqual([
        { code: 0, stdout: "configmap/c1 created\n", stderr: "" },
        { code: 0, stdout: "secret/s1 created\n", stderr: "" },
        { code: 0, stdout: "serviceaccount/sa1 created\n", stderr: "" },
      ]);
      expect(postType(`/api/v1/namespaces/${NS}/configmaps`)).toBe(PROTOBUF);
      expect(postType(`/api/v1/namespaces/${NS}/secrets`)).toBe(PROTOBUF);
      expect(postType(`/api/v1/namespaces/${NS}/serviceaccounts`)).toBe(PROTOBUF);
      expect(await jsonpath("cm/c1", "{.data}")).toBe('{"a":"b","c":"d"}');
      expect(await jsonpath("secret/s1", "{.type} {.data.k}")).toBe("Opaque dg==");
      expect(await jsonpath("sa/sa1", "{.metadata.name} {.metadata.uid}")).toMatch(/^sa1 [0-9a-f-]{36}$/);
      expect(await jsonpath(`ns/${NS}`, "{.status.phase} {.spec.finalizers}")).toBe('Active ["kubernetes"]');
    });

    it("deployment", async () => {
      expect(
        await k("create", "deployment", "d1", "--image=nginx:1.25", "--replicas=2", "--port=80"),
      ).toEqual({
        code: 0,
        stdout: "deployment.apps/d1 created\n",
        stderr: "",
      });
      expect(postType(`/apis/apps/v1/namespaces/${NS}/deployments`)).toBe(PROTOBUF);
      const d = await getJson<{
        metadata: { labels: Record<string, string> };
        spec: {
          replicas: number;
          selector: unknown;
          strategy: { type: string };
          template: {
            metadata: { labels: Record<string, string> };
            spec: { containers: Array<Record<string, unknown>> };
          };
        };
      }>("deploy/d1");
      expect(d.metadata.labels).toEqual({ app: "d1" });
      expect(d.spec.replicas).toBe(2);
      expect(d.spec.selector).toEqual({ matchLabels: { app: "d1" } });
      expect(d.spec.strategy.type).toBe("RollingUpdate");
      expect(d.spec.template.metadata.labels).toEqual({ app: "d1" });
      expect(d.spec.template.spec.containers).toEqual([
        expect.objectContaining({
          name: "nginx",
          image: "nginx:1.25",
          ports: [{ containerPort: 80, protocol: "TCP" }],
          resources: {},
        }),
      ]);
    });

    it("role and rolebinding", async () => {
      expect(await k("create", "role", "r1", "--verb=get,list", "--resource=pods,configmaps")).toEqual({
        code: 0,
        stdout: "role.rbac.authorization.k8s.io/r1 created\n",
        stderr: "",
      });
      expect(
        await k(
          "create",
          "rolebinding",
          "rb1",
          "--role=r1",
          `--serviceaccount=${NS}:sa1`,
          "--user=alice",
          "--group=devs",
        ),
      ).toEqual({ code: 0, stdout: "rolebinding.rbac.authorization.k8s.io/rb1 created\n", stderr: "" });
      expect(postType(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`)).toBe(PROTOBUF);
      expect(postType(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`)).toBe(PROTOBUF);
      const role = await getJson<{ rules: unknown[] }>("role/r1");
      expect(role.rules).toEqual([
        { apiGroups: [""], resources: ["pods", "configmaps"], verbs: ["get", "list"] },
      ]);
      const rb = await getJson<{ roleRef: unknown; subjects: unknown[] }>("rolebinding/rb1");
      expect(rb.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r1" });
      expect(rb.subjects).toHaveLength(3);
      expect(rb.subjects).toEqual(
        expect.arrayContaining([
          { kind: "ServiceAccount", name: "sa1", namespace: NS },
          { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" },
          { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "devs" },
        ]),
      );
    });

    it("job and cronjob", async () => {
      const [job, cron] = await Promise.all([
        k("create", "job", "j1", "--image=busybox:1.36", "--", "echo", "hi"),
        k("create", "cronjob", "cj1", "--image=busybox:1.36", "--schedule=*/5 * * * *", "--", "echo", "hi"),
      ]);
      expect(job).toEqual({ code: 0, stdout: "job.batch/j1 created\n", stderr: "" });
      expect(cron).toEqual({ code: 0, stdout: "cronjob.batch/cj1 created\n", stderr: "" });
      expect(postType(`/apis/batch/v1/namespaces/${NS}/jobs`)).toBe(PROTOBUF);
      expect(postType(`/apis/batch/v1/namespaces/${NS}/cronjobs`)).toBe(PROTOBUF);
      expect(
        await jsonpath(
          "job/j1",
          "{.spec.template.spec.restartPolicy} {.spec.template.spec.containers[0].command}",
        ),
      ).toBe('Never ["echo","hi"]');
      expect(
        await jsonpath(
          "cronjob/cj1",
          "{.spec.schedule}|{.spec.jobTemplate.spec.template.spec.restartPolicy}|{.spec.jobTemplate.spec.template.spec.containers[0].image}",
        ),
      ).toBe("*/5 * * * *|OnFailure|busybox:1.36");
    });

    it("service clusterip", async () => {
      expect(await k("create", "service", "clusterip", "svc1", "--tcp=80:8080")).toEqual({
        code: 0,
        stdout: "service/svc1 created\n",
        stderr: "",
      });
      expect(postType(`/api/v1/namespaces/${NS}/services`)).toBe(PROTOBUF);
      const svc = await getJson<{ spec: Record<string, unknown> }>("svc/svc1");
      expect(svc.spec).toMatchObject({
        type: "ClusterIP",
        selector: { app: "svc1" },
        ports: [{ name: "80-8080", port: 80, protocol: "TCP", targetPort: 8080 }],
        sessionAffinity: "None",
      });
      expect(svc.spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    });

    it("priorityclass", async () => {
      expect(
        await s.kubectl(["create", "priorityclass", "high", "--value=1000", "--description=e2e priority"]),
      ).toEqual({
        code: 0,
        stdout: "priorityclass.scheduling.k8s.io/high created\n",
        stderr: "",
      });
      expect(postType("/apis/scheduling.k8s.io/v1/priorityclasses")).toBe(PROTOBUF);
      const pc = json<Record<string, unknown>>((await s.kubectl(["get", "pc", "high", "-o", "json"])).stdout);
      expect(pc).toMatchObject({
        value: 1000,
        description: "e2e priority",
        preemptionPolicy: "PreemptLowerPriority",
      });
      expect(pc.globalDefault).toBeUndefined();
    });
  });

  describe.concurrent("edit with a scripted EDITOR", () => {
    it("edits a ConfigMap (strategic merge patch)", async () => {
      expect((await k("create", "configmap", "ed", "--from-literal=greeting=foo-value")).code).toBe(0);
      const r = await s.kubectl(["-n", NS, "edit", "cm", "ed"], {
        env: { EDITOR: "sed -i s/foo-value/bar-value/" },
      });
      expect(r).toEqual({ code: 0, stdout: "configmap/ed edited\n", stderr: "" });
      expect(await jsonpath("cm/ed", "{.data.greeting}")).toBe("bar-value");
      const noop = await s.kubectl(["-n", NS, "edit", "cm", "ed"], { env: { EDITOR: "true" } });
      expect(noop).toEqual({ code: 0, stdout: "", stderr: "Edit cancelled, no changes made.\n" });
    });

    it("edits a Deployment's image without losing the other containers", async () => {
      const d = deployment("ed-deploy", {
        containers: [
          { name: "nginx", image: "nginx:1" },
          { name: "sidecar", image: "busybox:1" },
        ],
      });
      expect((await s.kubectl(["-n", NS, "apply", "-f", "-"], { stdin: manifest(d) })).code).toBe(0);
      const r = await s.kubectl(["-n", NS, "edit", "deploy", "ed-deploy"], {
        env: { EDITOR: "sed -i s/nginx:1/nginx:2/" },
      });
      expect(r).toEqual({ code: 0, stdout: "deployment.apps/ed-deploy edited\n", stderr: "" });
      expect(await jsonpath("deploy/ed-deploy", "{.spec.template.spec.containers[*].image}")).toBe(
        "nginx:2 busybox:1",
      );
    });

    it("edits a custom resource (PropagationPolicy, JSON merge patch)", async () => {
      const pp = {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "pe" },
        spec: {
          resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", name: "ed" }],
          placement: { clusterAffinity: { clusterNames: ["member1"] } },
        },
      };
      expect((await s.kubectl(["-n", NS, "apply", "-f", "-"], { stdin: manifest(pp) })).code).toBe(0);
      const script = await s.writeFile(
        "edit-pp.sh",
        "#!/bin/sh\nsed -i -e 's/member1/member9/' -e 's/conflictResolution: Abort/conflictResolution: Overwrite/' \"$1\"\n",
      );
      const r = await s.kubectl(["-n", NS, "edit", "pp", "pe"], { env: { EDITOR: `sh ${script}` } });
      expect(r).toEqual({ code: 0, stdout: "propagationpolicy.policy.karmada.io/pe edited\n", stderr: "" });
      expect(
        await jsonpath("pp/pe", "{.spec.placement.clusterAffinity.clusterNames} {.spec.conflictResolution}"),
      ).toBe('["member9"] Overwrite');
      const patch = s.requests.findLast(
        (r) => r.method === "PATCH" && r.path.endsWith("/propagationpolicies/pe"),
      );
      expect(patch?.contentType).toBe("application/merge-patch+json");
    });
  });

  describe.concurrent("patch", () => {
    it("default (strategic) merges containers by name; --type strategic understands $patch: delete", async () => {
      const d = deployment("pd", {
        replicas: 1,
        containers: [
          { name: "nginx", image: "nginx:1" },
          { name: "sidecar", image: "busybox:1" },
        ],
      });
      expect((await s.kubectl(["-n", NS, "apply", "-f", "-"], { stdin: manifest(d) })).code).toBe(0);
      expect(
        await k(
          "patch",
          "deploy",
          "pd",
          "-p",
          '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:2"}]}}}}',
        ),
      ).toEqual({
        code: 0,
        stdout: "deployment.apps/pd patched\n",
        stderr: "",
      });
      expect(await jsonpath("deploy/pd", "{.spec.template.spec.containers[*].image}")).toBe(
        "nginx:2 busybox:1",
      );
      expect(
        await k(
          "patch",
          "deploy",
          "pd",
          "--type",
          "strategic",
          "-p",
          '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}',
        ),
      ).toMatchObject({ code: 0, stdout: "deployment.apps/pd patched\n" });
      expect(await jsonpath("deploy/pd", "{.spec.template.spec.containers[*].name}")).toBe("nginx");
    });

    it("--type merge and --type json; a patch that changes nothing says so", async () => {
      expect((await k("create", "configmap", "pm", "--from-literal=a=1", "--from-literal=keep=k")).code).toBe(
        0,
      );
      expect(await k("patch", "cm", "pm", "--type", "merge", "-p", '{"data":{"a":null,"b":"2"}}')).toEqual({
        code: 0,
        stdout: "configmap/pm patched\n",
        stderr: "",
      });
      expect(await jsonpath("cm/pm", "{.data}")).toBe('{"b":"2","keep":"k"}');
      expect(await k("patch", "cm", "pm", "--type", "merge", "-p", '{"data":{"b":"2"}}')).toEqual({
        code: 0,
        stdout: "configmap/pm patched (no change)\n",
        stderr: "",
      });
      expect(
        await k(
          "patch",
          "cm",
          "pm",
          "--type",
          "json",
          "-p",
          '[{"op":"test","path":"/data/b","value":"2"},{"op":"add","path":"/data/c","value":"3"},{"op":"remove","path":"/data/keep"}]',
        ),
      ).toEqual({ code: 0, stdout: "configmap/pm patched\n", stderr: "" });
      expect(await jsonpath("cm/pm", "{.data}")).toBe('{"b":"2","c":"3"}');
      expect(
        (
          await k(
            "patch",
            "deploy",
            "pd",
            "--type",
            "json",
            "-p",
            '[{"op":"replace","path":"/spec/replicas","value":5}]',
          )
        ).code,
      ).toBe(0);
      expect(await jsonpath("deploy/pd", "{.spec.replicas}")).toBe("5");
      const types = s.requests
        .filter((r) => r.method === "PATCH" && r.path === `/api/v1/namespaces/${NS}/configmaps/pm`)
        .map((r) => r.contentType);
      expect(types).toEqual([
        "application/merge-patch+json",
        "application/merge-patch+json",
        "application/json-patch+json",
      ]);
    });

    it("a merge patch on a custom resource", async () => {
      expect(await k("patch", "pp", "pe", "--type", "merge", "-p", '{"spec":{"priority":7}}')).toEqual({
        code: 0,
        stdout: "propagationpolicy.policy.karmada.io/pe patched\n",
        stderr: "",
      });
      expect(await jsonpath("pp/pe", "{.spec.priority}")).toBe("7");
    });
  });

  describe("label and annotate", () => {
    it("label: add, refuse to overwrite, --overwrite, remove", async () => {
      expect((await k("create", "configmap", "lb", "--from-literal=a=1")).code).toBe(0);
      expect(await k("label", "cm", "lb", "env=prod", "team=a")).toEqual({
        code: 0,
        stdout: "configmap/lb labeled\n",
        stderr: "",
      });
      expect(await k("label", "cm", "lb", "env=dev")).toEqual({
        code: 1,
        stdout: "",
        stderr: "error: 'env' already has a value (prod), and --overwrite is false\n",
      });
      expect(await k("label", "cm", "lb", "env=dev", "--overwrite")).toEqual({
        code: 0,
        stdout: "configmap/lb labeled\n",
        stderr: "",
      });
      expect(await jsonpath("cm/lb", "{.metadata.labels}")).toBe('{"env":"dev","team":"a"}');
      expect(await k("label", "cm", "lb", "env-")).toEqual({
        code: 0,
        stdout: "configmap/lb unlabeled\n",
        stderr: "",
      });
      expect(await jsonpath("cm/lb", "{.metadata.labels}")).toBe('{"team":"a"}');
      expect(await k("label", "pp", "pe", "tier=gold")).toEqual({
        code: 0,
        stdout: "propagationpolicy.policy.karmada.io/pe labeled\n",
        stderr: "",
      });
      expect(await jsonpath("pp/pe", "{.metadata.labels.tier}")).toBe("gold");
    });

    it("annotate: add, overwrite, remove", async () => {
      expect(await k("annotate", "cm", "lb", "note=hello world")).toEqual({
        code: 0,
        stdout: "configmap/lb annotated\n",
        stderr: "",
      });
      expect(await jsonpath("cm/lb", "{.metadata.annotations.note}")).toBe("hello world");
      expect((await k("annotate", "cm", "lb", "note=bye")).code).toBe(1);
      expect(await k("annotate", "cm", "lb", "note=bye", "--overwrite")).toMatchObject({ code: 0 });
      expect(await jsonpath("cm/lb", "{.metadata.annotations.note}")).toBe("bye");
      expect(await k("annotate", "cm", "lb", "note-")).toEqual({
        code: 0,
        stdout: "configmap/lb annotated\n",
        stderr: "",
      });
      expect(await jsonpath("cm/lb", "{.metadata.annotations}")).toBe("");
    });
  });

  describe("scale", () => {
    it("scales through the scale subresource; --current-replicas must match", async () => {
      expect(
        (
          await s.kubectl(["-n", NS, "apply", "-f", "-"], {
            stdin: manifest(deployment("sc", { replicas: 2 })),
          })
        ).code,
      ).toBe(0);
      expect(await k("scale", "deploy", "sc", "--replicas=3")).toEqual({
        code: 0,
        stdout: "deployment.apps/sc scaled\n",
        stderr: "",
      });
      expect(await jsonpath("deploy/sc", "{.spec.replicas}")).toBe("3");
      expect(await k("scale", "deploy", "sc", "--current-replicas=2", "--replicas=4")).toEqual({
        code: 1,
        stdout: "",
        stderr: "error: Expected replicas to be 2, was 3\n",
      });
      expect(await k("scale", "deploy/sc", "--current-replicas=3", "--replicas=4")).toEqual({
        code: 0,
        stdout: "deployment.apps/sc scaled\n",
        stderr: "",
      });
      const scale = json<Record<string, unknown>>(
        (await s.kubectl(["get", "--raw", `/apis/apps/v1/namespaces/${NS}/deployments/sc/scale`])).stdout,
      );
      expect(scale).toMatchObject({
        kind: "Scale",
        apiVersion: "autoscaling/v1",
        metadata: { name: "sc", namespace: NS },
        spec: { replicas: 4 },
        status: { replicas: 0, selector: "app=sc" },
      });
      expect(await jsonpath("deploy/sc", "{.metadata.generation}")).toBe("3");
    });
  });

  describe.concurrent("describe", () => {
    it("a ConfigMap", async () => {
      expect(
        (
          await s.kubectl(["-n", NS, "apply", "-f", "-"], {
            stdin: manifest(configMap("dc", { a: "1" }, { labels: { x: "y" } })),
          })
        ).code,
      ).toBe(0);
      const r = await k("describe", "configmap", "dc");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        [
          "Name:         dc",
          `Namespace:    ${NS}`,
          "Labels:       x=y",
          "Annotations:  <none>",
          "",
          "Data",
          "====",
          "a:",
          "----",
          "1",
          "",
          "",
          "BinaryData",
          "====",
          "",
          "Events:  <none>",
          "",
        ].join("\n"),
      );
    });

    it("a Namespace", async () => {
      const r = await s.kubectl(["describe", "namespace", NS]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        [
          `Name:         ${NS}`,
          `Labels:       kubernetes.io/metadata.name=${NS}`,
          "Annotations:  <none>",
          "Status:       Active",
          "",
          "No resource quota.",
          "",
          "No LimitRange resource.",
          "",
        ].join("\n"),
      );
    });

    it("a Deployment", async () => {
      const r = await k("describe", "deployment", "sc");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const out = r.stdout;
      expect(out).toMatch(/^Name:\s+sc$/m);
      expect(out).toMatch(new RegExp(`^Namespace:\\s+${NS}$`, "m"));
      expect(out).toMatch(/^CreationTimestamp:\s+\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d [+-]\d{4}$/m);
      expect(out).toMatch(/^Labels:\s+app=sc$/m);
      expect(out).toMatch(/^Selector:\s+app=sc$/m);
      expect(out).toMatch(/^Replicas:\s+4 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m);
      expect(out).toMatch(/^StrategyType:\s+RollingUpdate$/m);
      expect(out).toMatch(/^MinReadySeconds:\s+0$/m);
      expect(out).toMatch(/^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$/m);
      expect(out).toMatch(
        /^Pod Template:\n {2}Labels:\s+app=sc\n {2}Containers:\n {3}nginx:\n {4}Image:\s+nginx:1\.25$/m,
      );
      expect(out).toMatch(/^Events:\s+<none>$/m);
    });
  });
});
