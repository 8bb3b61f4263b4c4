/**
 * The real kubectl (v1.32) as an oracle. kubectl has no client-side printers for built-in kinds
 * (with `--server-print=false` it shows only NAME and AGE), so it cannot check our cells directly.
 * It does check, against a stub apiserver serving our Tables:
 * - that it decodes and lays out our Tables (wide columns, NAMESPACE from the row metadata, labels);
 * - our AGE format, which it computes itself from creationTimestamp with `--server-print=false`;
 * - our JSONPath, which `-o custom-columns` and `-o jsonpath` evaluate with client-go's.
 */

import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrinterColumn } from "../../api/schema.ts";
import { evaluateJsonPath, goNumberText, KUBECTL_OPTIONS, parseJsonPath } from "../../machinery/jsonpath.ts";
import { humanDuration } from "./age.ts";
import { toTable } from "./table.ts";

const KUBECTL = "/usr/bin/kubectl";
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Resource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  objects: () => Array<Record<string, unknown>>;
  crdColumns?: PrinterColumn[];
}

/** A creation time `age` ago, plus half a second so kubectl's later clock stays in the same bucket. */
function created(age: number): string {
  return new Date(Date.now() - age - 500).toISOString();
}

const workColumns: PrinterColumn[] = [
  { name: "Workload-Kind", type: "string", jsonPath: ".spec.workload.manifests[*].kind" },
  { name: "Applied", type: "string", jsonPath: '.status.conditions[?(@.type=="Applied")].status' },
  { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
  { name: "Suspended", type: "boolean", jsonPath: ".spec.suspendDispatching" },
  { name: "Weight", type: "number", jsonPath: ".spec.weight", priority: 1 },
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
];

function work(name: string, age: number, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: "work.karmada.io/v1alpha1",
    kind: "Work",
    metadata: {
      name,
      namespace: "karmada-es-member1",
      creationTimestamp: created(age),
      labels: { "app.kubernetes.io/name": name },
    },
    ...extra,
  };
}

const resources: Resource[] = [
  {
    group: "apps",
    version: "v1",
    plural: "deployments",
    kind: "Deployment",
    namespaced: true,
    objects: () => [
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: {
          name: "web",
          namespace: "default",
          creationTimestamp: created(5 * DAY),
          labels: { app: "web", tier: "frontend" },
        },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: "web" } },
          template: { spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] } },
        },
        status: { replicas: 3, readyReplicas: 3, updatedReplicas: 3, availableReplicas: 3 },
      },
    ],
  },
  {
    group: "",
    version: "v1",
    plural: "pods",
    kind: "Pod",
    namespaced: true,
    objects: () => [
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "web-1", namespace: "default", creationTimestamp: created(2 * DAY + 3 * HOUR) },
        spec: { nodeName: "member1-worker", containers: [{ name: "app" }] },
        status: {
          phase: "Running",
          podIPs: [{ ip: "10.244.1.17" }],
          containerStatuses: [
            {
              name: "app",
              ready: true,
              restartCount: 2,
              state: { running: {} },
              lastState: { terminated: { exitCode: 1, finishedAt: created(5 * MINUTE) } },
            },
          ],
        },
      },
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "job-x", namespace: "default", creationTimestamp: created(HOUR) },
        spec: { containers: [{ name: "job" }] },
        status: {
          phase: "Succeeded",
          containerStatuses: [{ name: "job", state: { terminated: { exitCode: 0, reason: "Completed" } } }],
        },
      },
    ],
  },
  {
    group: "",
    version: "v1",
    plural: "events",
    kind: "Event",
    namespaced: true,
    objects: () => [
      {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "web-1.17d8f2a1b3c4", namespace: "default", creationTimestamp: created(HOUR) },
        involvedObject: {
          kind: "Pod",
          name: "web-1",
          namespace: "default",
          fieldPath: "spec.containers{app}",
        },
        reason: "BackOff",
        message: "Back-off restarting failed container",
        source: { component: "kubelet", host: "member1-worker" },
        firstTimestamp: created(HOUR),
        lastTimestamp: created(2 * MINUTE),
        count: 14,
        type: "Warning",
      },
    ],
  },
  {
    group: "",
    version: "v1",
    plural: "services",
    kind: "Service",
    namespaced: true,
    objects: () => [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "web", namespace: "default", creationTimestamp: created(10 * MINUTE) },
        spec: {
          type: "LoadBalancer",
          clusterIPs: ["10.96.12.7"],
          ports: [{ port: 80, nodePort: 31080, protocol: "TCP" }],
          selector: { app: "web" },
        },
        status: { loadBalancer: { ingress: [{ ip: "203.0.113.9" }] } },
      },
    ],
  },
  {
    group: "",
    version: "v1",
    plural: "configmaps",
    kind: "ConfigMap",
    namespaced: true,
    objects: () =>
      AGES.map((age, i) => ({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `cm-${i}`, namespace: "default", creationTimestamp: created(age) },
      })),
  },
  {
    group: "work.karmada.io",
    version: "v1alpha1",
    plural: "works",
    kind: "Work",
    namespaced: true,
    crdColumns: workColumns,
    objects: () => [
      work("web", 3 * DAY, {
        spec: {
          replicas: 3,
          weight: 0.25,
          bigWeight: 1234567.5,
          tiny: 0.00001,
          suspendDispatching: false,
          workload: {
            manifests: [
              { kind: "Deployment", metadata: { name: "web" } },
              { kind: "Service", metadata: { name: "web" } },
            ],
          },
        },
        status: {
          conditions: [
            { type: "Applied", status: "True", observedGeneration: 2 },
            { type: "Available", status: "False", ready: true },
          ],
          ports: [
            { name: "http", port: 80 },
            { name: "https", port: 443 },
          ],
        },
      }),
      work("empty", 90 * SECOND, { spec: {} }),
    ],
  },
];

/** Ages around each boundary of the format. */
const AGES = [
  0,
  59 * SECOND,
  119 * SECOND,
  2 * MINUTE,
  3 * MINUTE + 2 * SECOND,
  9 * MINUTE + 59 * SECOND,
  10 * MINUTE + 30 * SECOND,
  179 * MINUTE,
  3 * HOUR,
  3 * HOUR + 4 * MINUTE,
  7 * HOUR + 59 * MINUTE,
  8 * HOUR,
  47 * HOUR + 59 * MINUTE,
  2 * DAY,
  5 * DAY + 2 * HOUR,
  7 * DAY + 23 * HOUR,
  8 * DAY,
  729 * DAY,
  730 * DAY,
  830 * DAY,
  8 * 365 * DAY,
  20 * 365 * DAY,
];

function list(res: Resource, namespace: string | undefined) {
  return res
    .objects()
    .filter((o) => namespace === undefined || (o.metadata as { namespace?: string }).namespace === namespace);
}

function discovery(path: string): unknown {
  if (path === "/version") return { major: "1", minor: "32", gitVersion: "v1.32.2" };
  if (path === "/api") {
    return {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1" }],
    };
  }
  const groups = [...new Set(resources.filter((r) => r.group !== "").map((r) => `${r.group}/${r.version}`))];
  if (path === "/apis") {
    return {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: groups.map((gv) => {
        const [name = "", version = ""] = gv.split("/");
        return {
          name,
          versions: [{ groupVersion: gv, version }],
          preferredVersion: { groupVersion: gv, version },
        };
      }),
    };
  }
  const gv = path === "/api/v1" ? "v1" : path.startsWith("/apis/") ? path.slice("/apis/".length) : undefined;
  if (gv === undefined || (gv !== "v1" && !groups.includes(gv))) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: gv,
    resources: resources
      .filter((r) => (r.group === "" ? r.version : `${r.group}/${r.version}`) === gv)
      .map((r) => ({
        name: r.plural,
        singularName: r.kind.toLowerCase(),
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ["get", "list"],
      })),
  };
}

function handle(url: URL, accept: string): unknown {
  const found = discovery(url.pathname);
  if (found !== undefined) return found;
  const m = /^\/(?:api|apis\/([^/]+))\/([^/]+)(?:\/namespaces\/([^/]+))?\/([^/]+)$/.exec(url.pathname);
  const res = resources.find((r) => m && r.group === (m[1] ?? "") && r.version === m[2] && r.plural === m[4]);
  if (!m || !res) return undefined;
  const objects = list(res, m[3]);
  if (accept.includes("as=Table")) {
    const opts = { now: Date.now(), includeObject: "Metadata" as const, resourceVersion: "10" };
    return toTable(
      `${res.group}/${res.kind}`,
      objects,
      res.crdColumns ? { ...opts, crdColumns: res.crdColumns } : opts,
    );
  }
  return {
    kind: `${res.kind}List`,
    apiVersion: res.group === "" ? res.version : `${res.group}/${res.version}`,
    metadata: { resourceVersion: "10" },
    items: objects,
  };
}

let server: Server;
let dir: string;
let base: string[];

function kubectl(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      KUBECTL,
      [...base, ...args],
      { env: { ...process.env, KUBECONFIG: join(dir, "kubeconfig") } },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`kubectl ${args.join(" ")}: ${stderr || err.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** Output lines split into cells (kubectl separates columns by at least three spaces). */
function rows(text: string): string[][] {
  return text
    .trimEnd()
    .split("\n")
    .map((line) => line.trimEnd().split(/ {3,}/));
}

describe.skipIf(!existsSync(KUBECTL))("kubectl as an oracle", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "table-oracle-"));
    writeFileSync(join(dir, "kubeconfig"), "");
    server = createServer((req, res) => {
      const body = handle(new URL(req.url ?? "/", "http://localhost"), req.headers.accept ?? "");
      res.setHeader("Content-Type", "application/json");
      if (body === undefined) {
        res.statusCode = 404;
        res.end(
          JSON.stringify({
            kind: "Status",
            apiVersion: "v1",
            status: "Failure",
            reason: "NotFound",
            code: 404,
          }),
        );
        return;
      }
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    base = [
      `--server=http://127.0.0.1:${port}`,
      `--cache-dir=${join(dir, "cache")}`,
      "--request-timeout=10s",
    ];
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("lays out our Deployment table, wide columns only with -o wide", async () => {
    expect(rows(await kubectl("get", "deployments", "-n", "default"))).toEqual([
      ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
      ["web", "3/3", "3", "3", "5d"],
    ]);
    expect(rows(await kubectl("get", "deployments", "-A", "-o", "wide", "--show-labels"))).toEqual([
      [
        "NAMESPACE",
        "NAME",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
        "AGE",
        "CONTAINERS",
        "IMAGES",
        "SELECTOR",
        "LABELS",
      ],
      ["default", "web", "3/3", "3", "3", "5d", "nginx", "nginx:1.25", "app=web", "app=web,tier=frontend"],
    ]);
  });

  it("lays out our Pod table", async () => {
    expect(rows(await kubectl("get", "pods", "-n", "default", "-o", "wide"))).toEqual([
      ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
      ["web-1", "1/1", "Running", "2 (5m ago)", "2d3h", "10.244.1.17", "member1-worker", "<none>", "<none>"],
      ["job-x", "0/1", "Completed", "0", "60m", "<none>", "<none>", "<none>", "<none>"],
    ]);
  });

  it("lays out Service and Event tables", async () => {
    expect(rows(await kubectl("get", "services", "-n", "default", "-o", "wide"))).toEqual([
      ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
      ["web", "LoadBalancer", "10.96.12.7", "203.0.113.9", "80:31080/TCP", "10m", "app=web"],
    ]);
    expect(rows(await kubectl("get", "events", "-n", "default"))).toEqual([
      ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"],
      ["2m", "Warning", "BackOff", "pod/web-1", "Back-off restarting failed container"],
    ]);
    expect(rows(await kubectl("get", "events", "-n", "default", "-o", "wide"))).toEqual([
      [
        "LAST SEEN",
        "TYPE",
        "REASON",
        "OBJECT",
        "SUBOBJECT",
        "SOURCE",
        "MESSAGE",
        "FIRST SEEN",
        "COUNT",
        "NAME",
      ],
      [
        "2m",
        "Warning",
        "BackOff",
        "pod/web-1",
        "spec.containers{app}",
        "kubelet, member1-worker",
        "Back-off restarting failed container",
        "60m",
        "14",
        "web-1.17d8f2a1b3c4",
      ],
    ]);
  });

  it("lays out a custom resource table; null cells print blank", async () => {
    expect(rows(await kubectl("get", "works", "-n", "karmada-es-member1"))).toEqual([
      ["NAME", "WORKLOAD-KIND", "APPLIED", "REPLICAS", "SUSPENDED", "AGE"],
      ["web", "Deployment", "True", "3", "false", "3d"],
      ["empty", "90s"],
    ]);
    expect(rows(await kubectl("get", "works", "-n", "karmada-es-member1", "-o", "wide"))[1]).toEqual([
      "web",
      "Deployment",
      "True",
      "3",
      "false",
      "0.25",
      "3d",
    ]);
  });

  it("computes AGE as we do", async () => {
    const printed = rows(
      await kubectl("get", "configmaps", "-n", "default", "--server-print=false", "--no-headers"),
    );
    expect(printed.map((r) => r[1])).toEqual(AGES.map((age) => humanDuration(age + 500)));
  });

  describe("evaluates JSONPath as we do", () => {
    const paths = [
      ".metadata.name",
      ".spec.replicas",
      ".spec.weight",
      ".spec.suspendDispatching",
      ".metadata.labels.app\\.kubernetes\\.io/name",
      ".spec.workload.manifests[*].kind",
      ".spec.workload.manifests[0].metadata.name",
      ".spec.workload.manifests[-1].kind",
      ".spec.workload.manifests[0:1].kind",
      '.status.conditions[?(@.type=="Applied")].status',
      ".status.conditions[?(@.type!='Applied')].type",
      ".status.conditions[?(@.observedGeneration)].type",
      ".status.conditions[?(@.observedGeneration>=2)].type",
      ".status.ports[?(@.port>80)].name",
      ".status.ports[*].port",
      ".status.ports[-1:].name",
      ".status.ports[::2].port",
      '.status.ports[?(@.name=="https")].port',
      ".status.conditions[?(@.ready==true)].type",
      '.spec.workload.manifests[?(@.kind=="Service")].metadata.name',
      "..port",
      ".spec.bigWeight",
      ".spec.tiny",
      ".spec.missing",
      ".status.conditions[0]['type']",
    ];

    /** What custom-columns prints for one path: `%v` of each result joined by commas, `<none>` when none. */
    function customColumn(path: string, obj: unknown): string {
      const values = evaluateJsonPath(path, obj, KUBECTL_OPTIONS);
      if (values.length === 0) return "<none>";
      return values
        .map((v) => (v === null ? "<nil>" : typeof v === "number" ? goNumberText(v) : String(v)))
        .join(",");
    }

    it("with -o custom-columns", async () => {
      const spec = paths.map((p, i) => `C${i}:${p}`).join(",");
      const printed = rows(
        await kubectl(
          "get",
          "works",
          "-n",
          "karmada-es-member1",
          "--no-headers",
          "-o",
          `custom-columns=${spec}`,
        ),
      );
      const objects = resources.find((r) => r.plural === "works")?.objects() ?? [];
      expect(printed).toEqual(objects.map((o) => paths.map((p) => customColumn(p, o))));
    });

    it("with -o jsonpath", async () => {
      const template = (p: string) => `{.items[0]${p}}`;
      const obj = resources.find((r) => r.plural === "works")?.objects()[0];
      const more = [
        ".spec.workload.manifests[0,1].kind",
        ".spec.workload.manifests[0]",
        ".status.conditions",
        ".spec.nothing",
      ];
      for (const path of [...paths, ...more]) {
        const printed = await kubectl(
          "get",
          "works",
          "-n",
          "karmada-es-member1",
          "-o",
          `jsonpath=${template(path)}`,
        );
        expect(printed, path).toBe(parseJsonPath(`{${path}}`).execute(obj, KUBECTL_OPTIONS));
      }
    });

    it("failing where we fail", async () => {
      const obj = resources.find((r) => r.plural === "works")?.objects()[0];
      const failing = [
        ".spec.workload.manifests[5].kind",
        ".spec.replicas[0]",
        '.status.ports[?(@.port=="80")].name',
        ".status.ports[?(@.port==80.0)].name",
        ".spec[?(@.a)]",
      ];
      for (const path of failing) {
        expect(() => evaluateJsonPath(path, obj, KUBECTL_OPTIONS), path).toThrow();
        await expect(
          kubectl("get", "works", "-n", "karmada-es-member1", "-o", `jsonpath={.items[0]${path}}`),
          path,
        ).rejects.toThrow();
      }
    });
  });
});
