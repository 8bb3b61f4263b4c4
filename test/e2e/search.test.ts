/**
 * karmada-search against `karmada up` with the real kubectl, upstream's search e2e scenarios
 * (reference §9.3): the proxy as kubectl's server (registries turn kinds on and off, nodes and
 * pods of two members, chunked lists, a watch that sees a member-side change, patch and
 * update that reach the member without the cache annotation, logs), the search API, and the
 * cluster proxy with a user it admits and one it denies.
 */
import { execFile, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { contextKubectl, eventually, KUBECTL } from "../support/kubectl.ts";

const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));
const PROXY = "/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy";
const CACHED_FROM = "resource.karmada.io/cached-from-cluster";

interface Obj {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
}
interface List {
  metadata: { resourceVersion?: string; continue?: string };
  items: Obj[];
}

let fleet: TestFleet;
const { kubectl, cp, ok } = fleetKubectl<List>(() => fleet);

/** kubectl with the proxy as its server (same CA and admin credentials). */
const viaProxy = (args: string[], stdin?: string) =>
  kubectl("karmada-apiserver", [`--server=${fleet.up.url}${PROXY}`, ...args], stdin);

function registry(
  name: string,
  kinds: Array<{ apiVersion: string; kind: string; namespace?: string }>,
  clusters = ["member1", "member2"],
): string {
  return JSON.stringify({
    apiVersion: "search.karmada.io/v1alpha1",
    kind: "ResourceRegistry",
    metadata: { name },
    spec: { targetCluster: { clusterNames: clusters }, resourceSelectors: kinds },
  });
}

/** Documents as one v1 List (kubectl reads a JSON stdin as one document). */
function listOf(...docs: string[]): string {
  return `{"apiVersion":"v1","kind":"List","items":[${docs.join(",")}]}`;
}

/** `kubectl get --raw` sends its path as is (no server prefix): the proxy's path in full. */
const rawViaProxy = async (path: string): Promise<List> =>
  JSON.parse(await ok(cp(["get", "--raw", `${PROXY}${path}`]))) as List;

async function names(args: string[]): Promise<string[]> {
  const out = await ok(viaProxy([...args, "-o", "name"]));
  return out.split("\n").filter(Boolean).sort();
}

async function registryReady(name: string): Promise<void> {
  await eventually(
    async () => {
      const r = await cp([
        "get",
        "resourceregistry",
        name,
        "-o",
        "jsonpath={.status.conditions[?(@.type=='Ready')].status}",
      ]);
      return r.stdout === "True";
    },
    `registry ${name} Ready`,
    200,
  );
}

beforeAll(async () => {
  fleet = await startTestFleet("search", 2);
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
});

describe("the search proxy as kubectl's server", () => {
  it("serves nodes of both members once a registry names them, and nothing after", async () => {
    // No registry: the request falls through to the control plane, which has no nodes.
    expect(await names(["get", "nodes"])).toEqual([]);
    await ok(cp(["apply", "-f", "-"], registry("rr-nodes", [{ apiVersion: "v1", kind: "Node" }])));
    await registryReady("rr-nodes");
    const members = [
      ...(await ok(kubectl("member1", ["get", "nodes", "-o", "name"]))).split("\n"),
      ...(await ok(kubectl("member2", ["get", "nodes", "-o", "name"]))).split("\n"),
    ]
      .filter(Boolean)
      .sort();
    expect(await names(["get", "nodes"])).toEqual(members);
    // Pods are not registered yet: the control plane's (none) answer.
    expect(await names(["get", "pods", "-A"])).toEqual([]);

    const node = JSON.parse(await ok(viaProxy(["get", "node", "member1-node-0", "-o", "json"]))) as Obj;
    expect(node.metadata.annotations?.[CACHED_FROM]).toBe("member1");
    const list = JSON.parse(await ok(viaProxy(["get", "nodes", "-o", "json"]))) as List;
    for (const item of list.items) {
      expect(item.metadata.annotations?.[CACHED_FROM]).toBe(item.metadata.name.split("-node-")[0]);
    }
    // kubectl's table (server-side printing) works through the proxy.
    expect(await ok(viaProxy(["get", "nodes"]))).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION/);
  });

  it("pages a list across clusters with upstream's continue token", async () => {
    const first = await rawViaProxy("/api/v1/nodes?limit=1");
    expect(first.items).toHaveLength(1);
    expect(first.metadata.continue).toBeTruthy();
    const token = encodeURIComponent(first.metadata.continue!);
    const rest = await rawViaProxy(`/api/v1/nodes?limit=999999999&continue=${token}`);
    const all = await rawViaProxy("/api/v1/nodes");
    expect(rest.items.length).toBe(all.items.length - 1);
    expect([first.items[0]!, ...rest.items].map((n) => n.metadata.name)).toEqual(
      all.items.map((n) => n.metadata.name),
    );
    // kubectl's own chunking walks the same pages.
    expect(await names(["get", "nodes", "--chunk-size=1"])).toEqual(
      all.items.map((n) => `node/${n.metadata.name}`).sort(),
    );
  });

  it("watches from a list's resourceVersion and sees a change made in a member", async () => {
    const list = await rawViaProxy("/api/v1/nodes");
    const watcher = spawn(
      KUBECTL,
      [
        `--kubeconfig=${fleet.up.kubeconfig}`,
        `--cache-dir=${join(fleet.dir, "cache")}`,
        "--context=karmada-apiserver",
        "get",
        "--raw",
        `${PROXY}/api/v1/nodes?watch=true&resourceVersion=${encodeURIComponent(list.metadata.resourceVersion!)}`,
      ],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: fleet.dir } },
    );
    let out = "";
    watcher.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    try {
      await ok(kubectl("member2", ["annotate", "node", "member2-node-0", "proxy-ann-watch=seen"]));
      const line = await eventually(
        async () => out.split("\n").find((l) => l.includes("proxy-ann-watch")),
        "the watch event",
        200,
      );
      const event = JSON.parse(line) as { type: string; object: Obj };
      expect(event.type).toBe("MODIFIED");
      expect(event.object.metadata.annotations?.[CACHED_FROM]).toBe("member2");
    } finally {
      watcher.kill();
    }
  });

  it("patches and updates reach the member, without the cache annotation", async () => {
    await ok(viaProxy(["annotate", "node", "member1-node-0", "proxy-ann-patch=true"]));
    const patched = JSON.parse(
      await ok(kubectl("member1", ["get", "node", "member1-node-0", "-o", "json"])),
    ) as Obj;
    expect(patched.metadata.annotations?.["proxy-ann-patch"]).toBe("true");

    const current = JSON.parse(await ok(viaProxy(["get", "node", "member1-node-0", "-o", "json"]))) as Obj;
    current.metadata.annotations = { ...current.metadata.annotations, "proxy-ann-update": "true" };
    await ok(viaProxy(["replace", "-f", "-"], JSON.stringify(current)));
    const updated = JSON.parse(
      await ok(kubectl("member1", ["get", "node", "member1-node-0", "-o", "json"])),
    ) as Obj;
    expect(updated.metadata.annotations?.["proxy-ann-update"]).toBe("true");
    expect(updated.metadata.annotations?.[CACHED_FROM]).toBeUndefined();
  });

  it("lists the pods of a propagated Deployment from two members and shows their logs", async () => {
    await ok(
      cp(
        ["apply", "-f", "-"],
        listOf(
          registry("rr-pods", [
            { apiVersion: "v1", kind: "Node" },
            { apiVersion: "v1", kind: "Pod", namespace: "default" },
          ]),
          JSON.stringify({
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "web", namespace: "default" },
            spec: {
              replicas: 2,
              selector: { matchLabels: { app: "web" } },
              template: {
                metadata: { labels: { app: "web" } },
                spec: { containers: [{ name: "nginx", image: "nginx" }] },
              },
            },
          }),
          JSON.stringify({
            apiVersion: "policy.karmada.io/v1alpha1",
            kind: "PropagationPolicy",
            metadata: { name: "web", namespace: "default" },
            spec: {
              resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
              placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } },
            },
          }),
        ),
      ),
    );
    await registryReady("rr-pods");
    const pods = await eventually(
      async () => {
        const list = JSON.parse(
          await ok(viaProxy(["get", "pods", "-n", "default", "-l", "app=web", "-o", "json"])),
        ) as List;
        const from = new Set(list.items.map((p) => p.metadata.annotations?.[CACHED_FROM]));
        return list.items.length === 4 && from.has("member1") && from.has("member2") ? list.items : undefined;
      },
      "web pods from both members",
      300,
    );
    const pod = pods[0]!.metadata.name;
    await eventually(
      async () => {
        const r = await viaProxy(["logs", "-n", "default", pod, "--tail=1"]);
        return r.code === 0 && r.stdout.includes(pod);
      },
      "the pod's log through the proxy",
      100,
    );
  });

  it("answers the search API with every cached cluster's objects", async () => {
    const found = JSON.parse(
      await ok(cp(["get", "--raw", "/apis/search.karmada.io/v1alpha1/search/cache/api/v1/nodes"])),
    ) as List & { kind: string };
    expect(found.kind).toBe("NodeList");
    const clusters = new Set(found.items.map((n) => n.metadata.annotations?.[CACHED_FROM]));
    expect([...clusters].sort()).toEqual(["member1", "member2"]);
    const services = JSON.parse(
      await ok(cp(["get", "--raw", "/apis/search.karmada.io/v1alpha1/search/cache/api/v1/services"])),
    ) as List;
    expect(services.items).toEqual([]);
  });

  it("is empty again once the registries are gone", async () => {
    await ok(cp(["delete", "resourceregistry", "rr-nodes", "rr-pods"]));
    await eventually(
      async () => (await names(["get", "nodes"])).length === 0,
      "nodes gone from the view",
      200,
    );
    expect(await names(["get", "pods", "-A"])).toEqual([]);
  });
});

describe("karmadactl through the cluster proxy", () => {
  const karmadactl = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [KARMADACTL, ...args, `--kubeconfig=${fleet.up.kubeconfig}`, "--karmada-context=karmada-apiserver"],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: fleet.dir }, timeout: 60_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it("gets, describes and shows the logs of member objects", async () => {
    const pods = await eventually(
      async () => {
        const r = await karmadactl([
          "get",
          "pods",
          "-n",
          "default",
          "--operation-scope",
          "members",
          "-C",
          "member1",
        ]);
        return r.code === 0 && r.stdout.includes("member1") ? r.stdout : undefined;
      },
      "member1's pods through the proxy",
      100,
    );
    expect(pods.split("\n")[0]).toMatch(/^NAME\s+CLUSTER\s+READY\s+STATUS/);
    const pod = pods.split("\n")[1]!.split(/\s+/)[0]!;
    const logs = await karmadactl(["logs", pod, "-C", "member1", "--tail=1"]);
    expect(logs.stderr).toBe("");
    expect(logs.stdout).toContain(pod);
    const described = await karmadactl([
      "describe",
      "pod",
      pod,
      "--operation-scope=members",
      "--cluster=member1",
    ]);
    expect(described.stderr).toBe("");
    expect(described.stdout).toMatch(new RegExp(`^Name:\\s+${pod}`, "m"));
    const noCluster = await karmadactl(["logs", pod]);
    expect(noCluster.stderr).toBe("error: must specify a cluster\n");
  });
});

describe("the cluster proxy", () => {
  it("serves the administrator, an admitted user, and refuses a user for another cluster", async () => {
    const raw = (cluster: string, path: string) => [
      "get",
      "--raw",
      `/apis/cluster.karmada.io/v1alpha1/clusters/${cluster}/proxy${path}`,
    ];
    // system:admin may proxy every member (upstream's cluster-proxy-admin), once unified-auth
    // has let the member's impersonator act as it.
    await eventually(async () => (await cp(raw("member1", "/api/v1/nodes"))).code === 0, "admin proxy", 200);

    await ok(cp(["create", "serviceaccount", "tom"]));
    await ok(
      cp(
        ["apply", "-f", "-"],
        listOf(
          JSON.stringify({
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRole",
            metadata: { name: "tom-proxy" },
            rules: [
              {
                apiGroups: ["cluster.karmada.io"],
                resources: ["clusters/proxy"],
                resourceNames: ["member1"],
                verbs: ["*"],
              },
            ],
          }),
          JSON.stringify({
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRoleBinding",
            metadata: { name: "tom-proxy" },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "tom-proxy" },
            // As upstream's e2e: a service account's groups go to the member too, so the
            // impersonator must be allowed them as well.
            subjects: [
              { kind: "ServiceAccount", name: "tom", namespace: "default" },
              { kind: "Group", name: "system:serviceaccounts" },
              { kind: "Group", name: "system:serviceaccounts:default" },
            ],
          }),
        ),
      ),
    );
    // In the member, tom may read nodes.
    await ok(
      kubectl("member1", [
        "create",
        "clusterrolebinding",
        "tom-view",
        "--clusterrole=system:node-reader-tom",
        "--user=system:serviceaccount:default:tom",
      ]),
    );
    await ok(
      kubectl("member1", [
        "create",
        "clusterrole",
        "system:node-reader-tom",
        "--verb=get,list",
        "--resource=nodes",
      ]),
    );
    const token = (await ok(cp(["create", "token", "tom"]))).trim();
    // tom's own kubeconfig: the control plane's CA and tom's token, no client certificate.
    const admin = JSON.parse(await ok(cp(["config", "view", "--raw", "--minify", "-o", "json"]))) as {
      clusters: Array<{ cluster: { server: string; "certificate-authority-data": string } }>;
    };
    const tomConfig = join(fleet.dir, "tom.config");
    await writeFile(
      tomConfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "karmada", cluster: admin.clusters[0]!.cluster }],
        users: [{ name: "tom", user: { token } }],
        contexts: [{ name: "tom", context: { cluster: "karmada", user: "tom" } }],
        "current-context": "tom",
      }),
    );
    const asTom = contextKubectl(
      () => tomConfig,
      () => fleet.dir,
    ).bind(null, "tom");
    const admitted = await eventually(
      async () => {
        const r = await asTom(raw("member1", "/api/v1/nodes"));
        return r.code === 0 ? r.stdout : undefined;
      },
      "tom's proxied list",
      200,
    );
    expect((JSON.parse(admitted) as List).items.map((n) => n.metadata.name)).toContain("member1-node-0");
    // Nothing in member1 lets tom read secrets: the member refuses, naming tom.
    const memberDenied = await asTom(raw("member1", "/api/v1/secrets"));
    expect(memberDenied.code).not.toBe(0);
    expect(memberDenied.stderr).toContain("system:serviceaccount:default:tom");
    // member2 is not among tom's resourceNames: the control plane refuses.
    const denied = await asTom(raw("member2", "/api/v1/nodes"));
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('cannot get resource "clusters/proxy"');
    // Nor may tom use the search proxy: that takes proxying/proxy.
    const noSearch = await asTom(["get", "--raw", `${PROXY}/api/v1/nodes`]);
    expect(noSearch.code).not.toBe(0);
    expect(noSearch.stderr).toContain(
      'cannot get resource "proxying/proxy" in API group "search.karmada.io"',
    );
  });
});
