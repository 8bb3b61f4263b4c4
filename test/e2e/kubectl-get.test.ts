/**
 * `kubectl get` as a real cluster answers it: server-side tables with kubectl's usual columns,
 * the output formats, label/field selectors, all namespaces, sorting, chunked lists, `get all`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startTestServer, type TestServer } from "../support/kubectl.ts";
import {
  age,
  configMap,
  deployment,
  json,
  lines,
  manifest,
  table,
  tables,
} from "../support/kubectl-output.ts";

const NS = "gt";

const node = {
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "n1", labels: { "node-role.kubernetes.io/control-plane": "", zone: "a" } },
  status: {
    conditions: [
      {
        type: "Ready",
        status: "True",
        reason: "KubeletReady",
        message: "kubelet is posting ready status",
        lastHeartbeatTime: "2026-01-01T00:00:00Z",
        lastTransitionTime: "2026-01-01T00:00:00Z",
      },
    ],
    addresses: [
      { type: "InternalIP", address: "10.0.0.5" },
      { type: "Hostname", address: "n1" },
    ],
    nodeInfo: {
      machineID: "m",
      systemUUID: "s",
      bootID: "b",
      kernelVersion: "6.1.0",
      osImage: "Ubuntu 22.04",
      containerRuntimeVersion: "containerd://1.7.0",
      kubeletVersion: "v1.32.0",
      kubeProxyVersion: "",
      operatingSystem: "linux",
      architecture: "amd64",
    },
  },
};

const fixtures = manifest(
  { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } },
  deployment("web", { namespace: NS, replicas: 2, labels: { app: "web", tier: "fe" } }),
  deployment("api", {
    namespace: NS,
    replicas: 1,
    labels: { app: "api", tier: "be" },
    containers: [{ name: "api", image: "busybox:1.36" }],
  }),
  deployment("solo", { namespace: NS, replicas: 3, labels: { app: "solo" } }),
  {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p1", namespace: NS, labels: { app: "web" } },
    spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] },
  },
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web-svc", namespace: NS },
    spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080, protocol: "TCP" }] },
  },
  configMap("c1", { a: "1", b: "2" }, { namespace: NS, labels: { e2e: "get" } }),
  {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s1", namespace: NS },
    type: "Opaque",
    data: { k1: "djE=", k2: "djI=" },
  },
  node,
  { apiVersion: "v1", kind: "Namespace", metadata: { name: "gt2" } },
  configMap("c2", { a: "1" }, { namespace: "gt2", labels: { e2e: "get" } }),
);

describe.concurrent("kubectl get", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    const r = await s.kubectl(["apply", "-f", "-"], { stdin: fixtures });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
  afterAll(async () => {
    await s.close();
  });

  describe("default tables", () => {
    it("deployments: NAME READY UP-TO-DATE AVAILABLE AGE", async () => {
      const r = await s.kubectl(["-n", NS, "get", "deployments"]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        rows: [
          ["api", "0/1", "0", "0", age()],
          ["solo", "0/3", "0", "0", age()],
          ["web", "0/2", "0", "0", age()],
        ],
      });
    });

    it("deployments -o wide add CONTAINERS IMAGES SELECTOR", async () => {
      const r = await s.kubectl(["-n", NS, "get", "deploy", "-o", "wide"]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
        rows: [
          ["api", "0/1", "0", "0", age(), "api", "busybox:1.36", "app=api"],
          ["solo", "0/3", "0", "0", age(), "nginx", "nginx:1.25", "app=solo"],
          ["web", "0/2", "0", "0", age(), "nginx", "nginx:1.25", "app=web"],
        ],
      });
    });

    it("a single deployment by name", async () => {
      const r = await s.kubectl(["-n", NS, "get", "deploy", "web"]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        rows: [["web", "0/2", "0", "0", age()]],
      });
    });

    it("pods: NAME READY STATUS RESTARTS AGE (+ wide columns)", async () => {
      const [r, w] = await Promise.all([
        s.kubectl(["-n", NS, "get", "pods"]),
        s.kubectl(["-n", NS, "get", "po", "-o", "wide"]),
      ]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        rows: [["p1", "0/1", "Pending", "0", age()]],
      });
      expect(w.code).toBe(0);
      expect(table(w.stdout)).toEqual({
        header: [
          "NAME",
          "READY",
          "STATUS",
          "RESTARTS",
          "AGE",
          "IP",
          "NODE",
          "NOMINATED NODE",
          "READINESS GATES",
        ],
        rows: [["p1", "0/1", "Pending", "0", age(), "<none>", "<none>", "<none>", "<none>"]],
      });
    });

    it("services: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE (+ SELECTOR wide)", async () => {
      const [r, w] = await Promise.all([
        s.kubectl(["-n", NS, "get", "services"]),
        s.kubectl(["-n", NS, "get", "svc", "-o", "wide"]),
      ]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
        rows: [
          ["web-svc", "ClusterIP", expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/), "<none>", "80/TCP", age()],
        ],
      });
      expect(table(w.stdout).header).toEqual([
        "NAME",
        "TYPE",
        "CLUSTER-IP",
        "EXTERNAL-IP",
        "PORT(S)",
        "AGE",
        "SELECTOR",
      ]);
      expect(table(w.stdout).rows[0]?.[6]).toBe("app=web");
    });

    it("configmaps: NAME DATA AGE", async () => {
      const r = await s.kubectl(["-n", NS, "get", "cm"]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({ header: ["NAME", "DATA", "AGE"], rows: [["c1", "2", age()]] });
    });

    it("secrets: NAME TYPE DATA AGE", async () => {
      const r = await s.kubectl(["-n", NS, "get", "secrets"]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "TYPE", "DATA", "AGE"],
        rows: [["s1", "Opaque", "2", age()]],
      });
    });

    it("namespaces: NAME STATUS AGE", async () => {
      const r = await s.kubectl(["get", "ns", NS, "default"]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "STATUS", "AGE"],
        rows: [
          [NS, "Active", age()],
          ["default", "Active", age()],
        ],
      });
    });

    it("nodes: NAME STATUS ROLES AGE VERSION (+ wide columns)", async () => {
      const [r, w] = await Promise.all([s.kubectl(["get", "nodes"]), s.kubectl(["get", "no", "-o", "wide"])]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
        rows: [["n1", "Ready", "control-plane", age(), "v1.32.0"]],
      });
      expect(w.code).toBe(0);
      expect(table(w.stdout)).toEqual({
        header: [
          "NAME",
          "STATUS",
          "ROLES",
          "AGE",
          "VERSION",
          "INTERNAL-IP",
          "EXTERNAL-IP",
          "OS-IMAGE",
          "KERNEL-VERSION",
          "CONTAINER-RUNTIME",
        ],
        rows: [
          [
            "n1",
            "Ready",
            "control-plane",
            age(),
            "v1.32.0",
            "10.0.0.5",
            "<none>",
            "Ubuntu 22.04",
            "6.1.0",
            "containerd://1.7.0",
          ],
        ],
      });
    });
  });

  describe("output formats", () => {
    it("-o yaml shows the stored object with server-set metadata and defaults", async () => {
      const r = await s.kubectl(["-n", NS, "get", "deploy", "web", "-o", "yaml"]);
      expect(r.code).toBe(0);
      const d = parse(r.stdout) as {
        apiVersion: string;
        kind: string;
        metadata: Record<string, unknown>;
        spec: {
          replicas: number;
          revisionHistoryLimit: number;
          progressDeadlineSeconds: number;
          strategy: { type: string; rollingUpdate: { maxSurge: string; maxUnavailable: string } };
          template: {
            spec: { restartPolicy: string; dnsPolicy: string; containers: Array<Record<string, unknown>> };
          };
        };
      };
      expect(d.apiVersion).toBe("apps/v1");
      expect(d.kind).toBe("Deployment");
      expect(d.metadata).toMatchObject({
        name: "web",
        namespace: NS,
        generation: 1,
        labels: { app: "web", tier: "fe" },
      });
      expect(d.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(d.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(d.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(d.spec.replicas).toBe(2);
      expect(d.spec.revisionHistoryLimit).toBe(10);
      expect(d.spec.progressDeadlineSeconds).toBe(600);
      expect(d.spec.strategy).toEqual({
        type: "RollingUpdate",
        rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" },
      });
      expect(d.spec.template.spec.restartPolicy).toBe("Always");
      expect(d.spec.template.spec.dnsPolicy).toBe("ClusterFirst");
      expect(d.spec.template.spec.containers[0]).toMatchObject({
        name: "nginx",
        image: "nginx:1.25",
        imagePullPolicy: "IfNotPresent",
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
      });
    });

    it("-o json of a list is a v1 List with every item", async () => {
      const r = await s.kubectl(["-n", NS, "get", "deploy", "-o", "json"]);
      expect(r.code).toBe(0);
      const list = json<{
        kind: string;
        apiVersion: string;
        items: Array<{ kind: string; metadata: { name: string } }>;
      }>(r.stdout);
      expect(list.kind).toBe("List");
      expect(list.apiVersion).toBe("v1");
      expect(list.items.map((i) => [i.kind, i.metadata.name])).toEqual([
        ["Deployment", "api"],
        ["Deployment", "solo"],
        ["Deployment", "web"],
      ]);
    });

    it("-o name", async () => {
      const [d, c, n] = await Promise.all([
        s.kubectl(["-n", NS, "get", "deploy", "-o", "name"]),
        s.kubectl(["-n", NS, "get", "cm,secret", "-o", "name"]),
        s.kubectl(["get", "ns", NS, "-o", "name"]),
      ]);
      expect(d.stdout).toBe("deployment.apps/api\ndeployment.apps/solo\ndeployment.apps/web\n");
      expect(c.stdout).toBe("configmap/c1\nsecret/s1\n");
      expect(n.stdout).toBe(`namespace/${NS}\n`);
    });

    it("-o jsonpath", async () => {
      const [list, one, range] = await Promise.all([
        s.kubectl(["-n", NS, "get", "deploy", "-o", "jsonpath={.items[*].metadata.name}"]),
        s.kubectl(["-n", NS, "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"]),
        s.kubectl([
          "-n",
          NS,
          "get",
          "deploy",
          "-o",
          'jsonpath={range .items[*]}{.metadata.name}={.spec.template.spec.containers[0].image}{"\\n"}{end}',
        ]),
      ]);
      expect(list.stdout).toBe("api solo web");
      expect(one.stdout).toBe("2");
      expect(range.stdout).toBe("api=busybox:1.36\nsolo=nginx:1.25\nweb=nginx:1.25\n");
    });

    it("-o custom-columns", async () => {
      const r = await s.kubectl([
        "-n",
        NS,
        "get",
        "deploy",
        "-o",
        "custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas,IMAGE:.spec.template.spec.containers[0].image,MISSING:.status.nothing",
      ]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "REPLICAS", "IMAGE", "MISSING"],
        rows: [
          ["api", "1", "busybox:1.36", "<none>"],
          ["solo", "3", "nginx:1.25", "<none>"],
          ["web", "2", "nginx:1.25", "<none>"],
        ],
      });
    });

    it("--show-labels adds a LABELS column", async () => {
      const r = await s.kubectl(["-n", NS, "get", "deploy", "--show-labels"]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "LABELS"],
        rows: [
          ["api", "0/1", "0", "0", age(), "app=api,tier=be"],
          ["solo", "0/3", "0", "0", age(), "app=solo"],
          ["web", "0/2", "0", "0", age(), "app=web,tier=fe"],
        ],
      });
      const ns = await s.kubectl(["get", "ns", NS, "--show-labels"]);
      expect(table(ns.stdout).rows).toEqual([[NS, "Active", age(), `kubernetes.io/metadata.name=${NS}`]]);
    });

    it("-L adds a column per label key", async () => {
      const r = await s.kubectl(["-n", NS, "get", "deploy", "-L", "tier", "-L", "app"]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "TIER", "APP"],
        rows: [
          ["api", "0/1", "0", "0", age(), "be", "api"],
          ["solo", "0/3", "0", "0", age(), "", "solo"],
          ["web", "0/2", "0", "0", age(), "fe", "web"],
        ],
      });
    });
  });

  describe("selectors", () => {
    const names = async (...args: string[]): Promise<string> => {
      const r = await s.kubectl(["-n", NS, "get", "deploy", "-o", "name", ...args]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      return r.stdout.replaceAll("deployment.apps/", "").trim().split("\n").join(",");
    };

    it("-l with equality and set-based selectors", async () => {
      const got = await Promise.all([
        names("-l", "app=web"),
        names("-l", "app==web"),
        names("-l", "app!=web"),
        names("-l", "tier in (fe,be)"),
        names("-l", "tier notin (fe)"),
        names("-l", "tier"),
        names("-l", "!tier"),
        names("-l", "app in (web,solo),tier=fe"),
      ]);
      expect(got).toEqual(["web", "web", "api,solo", "api,web", "api,solo", "api,web", "solo", "web"]);
    });

    it("-l matching nothing prints kubectl's 'No resources found'", async () => {
      const r = await s.kubectl(["-n", NS, "get", "deploy", "-l", "app=none"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`No resources found in ${NS} namespace.\n`);
    });

    it("--field-selector", async () => {
      expect(await names("--field-selector", "metadata.name=web")).toBe("web");
      expect(await names("--field-selector", "metadata.name!=web")).toBe("api,solo");
      expect(await names("--field-selector", `metadata.namespace=${NS},metadata.name!=api`)).toBe("solo,web");
      const pods = await s.kubectl([
        "-n",
        NS,
        "get",
        "pods",
        "--field-selector",
        "status.phase=Pending",
        "-o",
        "name",
      ]);
      expect(pods.stdout).toBe("pod/p1\n");
      const running = await s.kubectl(["-n", NS, "get", "pods", "--field-selector", "status.phase=Running"]);
      expect(running.code).toBe(0);
      expect(running.stderr).toBe(`No resources found in ${NS} namespace.\n`);
      const secrets = await s.kubectl([
        "get",
        "secrets",
        "-A",
        "--field-selector",
        "type=Opaque",
        "-o",
        "name",
      ]);
      expect(secrets.stdout).toBe("secret/s1\n");
    });

    it("-A lists across namespaces with a NAMESPACE column", async () => {
      const r = await s.kubectl(["get", "cm", "-A", "-l", "e2e=get"]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAMESPACE", "NAME", "DATA", "AGE"],
        rows: [
          [NS, "c1", "2", age()],
          ["gt2", "c2", "1", age()],
        ],
      });
    });
  });

  describe("sorting and paging", () => {
    it("--sort-by a numeric field orders rows (table and -o name)", async () => {
      const [t, n] = await Promise.all([
        s.kubectl(["-n", NS, "get", "deploy", "--sort-by=.spec.replicas"]),
        s.kubectl(["-n", NS, "get", "deploy", "--sort-by=.spec.replicas", "-o", "name"]),
      ]);
      expect(t.code).toBe(0);
      expect(table(t.stdout).rows.map((r) => r[0])).toEqual(["api", "web", "solo"]);
      expect(n.stdout).toBe("deployment.apps/api\ndeployment.apps/web\ndeployment.apps/solo\n");
      const byName = await s.kubectl([
        "get",
        "cm",
        "-A",
        "-l",
        "e2e=get",
        "--sort-by=.metadata.namespace",
        "-o",
        "name",
      ]);
      expect(byName.stdout).toBe("configmap/c1\nconfigmap/c2\n");
    });

    it("--chunk-size=2 pages through 7 objects, each listed once", async () => {
      const cms = Array.from({ length: 7 }, (_, i) =>
        configMap(`chunk-${i}`, { i: String(i) }, { namespace: "paging" }),
      );
      const created = await s.kubectl(["apply", "-f", "-"], {
        stdin: manifest({ apiVersion: "v1", kind: "Namespace", metadata: { name: "paging" } }, ...cms),
      });
      expect(created.code).toBe(0);
      const before = s.requests.length;
      const [n, t] = await Promise.all([
        s.kubectl(["-n", "paging", "get", "cm", "--chunk-size=2", "-o", "name"]),
        s.kubectl(["-n", "paging", "get", "cm", "--chunk-size=2"]),
      ]);
      expect(n.code).toBe(0);
      expect(n.stdout).toBe(`${cms.map((_, i) => `configmap/chunk-${i}`).join("\n")}\n`);
      expect(t.code).toBe(0);
      expect(table(t.stdout)).toEqual({
        header: ["NAME", "DATA", "AGE"],
        rows: cms.map((_, i) => [`chunk-${i}`, "1", age()]),
      });
      // Both commands really paged: 4 requests each with limit=2, the last three carrying a continue token.
      const pages = s.requests
        .slice(before)
        .filter((r) => r.path === "/api/v1/namespaces/paging/configmaps" && r.query.get("limit") === "2");
      expect(pages).toHaveLength(8);
      expect(pages.filter((r) => r.query.has("continue"))).toHaveLength(6);
    });
  });

  it("get all lists pods, services and deployments, each type in its own table", async () => {
    const r = await s.kubectl(["-n", NS, "get", "all"]);
    expect(r.code).toBe(0);
    const ts = tables(r.stdout);
    expect(ts.map((t) => t.header)).toEqual([
      ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
      ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
      ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
    ]);
    expect(ts.map((t) => t.rows.map((row) => row[0]))).toEqual([
      ["pod/p1"],
      ["service/web-svc"],
      ["deployment.apps/api", "deployment.apps/solo", "deployment.apps/web"],
    ]);
    const names = await s.kubectl(["-n", NS, "get", "all", "-o", "name"]);
    expect(lines(names.stdout)).toEqual([
      "pod/p1",
      "service/web-svc",
      "deployment.apps/api",
      "deployment.apps/solo",
      "deployment.apps/web",
    ]);
  });

  it("--ignore-not-found on a missing object exits 0 silently", async () => {
    const r = await s.kubectl(["-n", NS, "get", "deploy", "missing", "--ignore-not-found"]);
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});
