/**
 * `karmadactl` as a user runs it: the real executable (bin/karmadactl, a child process) against
 * a control plane with its controller manager and two simulated members, all in this process on
 * free ports, next to the real kubectl. Join and unjoin in Push mode with what they leave on
 * both sides, errors as one line with exit code 1, `kubectl get clusters` and `karmadactl get`
 * in the control plane and across members (upstream's CLUSTER and ADOPTION columns), version
 * and help.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { isObject, type StoredObject } from "../../src/api/meta.ts";
import { type RunningControlPlane, startLocalControlPlane } from "../../src/bin/control-plane.ts";
import {
  DEFAULT_LEADER_ELECTION,
  type ElectedControllerManager,
  startElectedControllerManager,
} from "../../src/bin/controller-manager.ts";
import { type Client, RESOURCES } from "../../src/client/client.ts";
import { kubeconfigFor, writeKubeconfig } from "../../src/client/kubeconfig.ts";
import { LocalClient } from "../../src/client/local.ts";
import { silentLogger } from "../../src/log.ts";
import { isNotFound } from "../../src/machinery/errors.ts";
import { type ServedMemberCluster, serveMemberCluster } from "../../src/member-sim/cluster.ts";
import { eventually, KUBECTL, type KubectlResult } from "../support/kubectl.ts";
import { AGE, lines, table } from "../support/kubectl-output.ts";
import { FAST } from "../support/member-sim.ts";

const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));

/** Runs a program with its own HOME (no ~/.kube/config) and no KUBECONFIG; never throws. */
function runner(file: string, prefix: string[], home: string) {
  return (args: string[], timeoutMs = 90_000): Promise<KubectlResult> =>
    new Promise((resolve) => {
      execFile(
        file,
        [...prefix, ...args],
        {
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
          timeout: timeoutMs,
          maxBuffer: 64 * 1024 * 1024,
        },
        (err, stdout, stderr) => {
          const code = err
            ? typeof (err as { code?: unknown }).code === "number"
              ? (err as { code: number }).code
              : 1
            : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
}

const ok = (r: KubectlResult): KubectlResult => {
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r;
};

/** One line on stderr (no usage dump, no stack trace), nothing on stdout, exit code 1. */
const oneLineError = (r: KubectlResult, fragment: string): void => {
  expect(r.stderr).toMatch(/^error: [^\n]+\n$/);
  expect(r.stderr).toContain(fragment);
  expect(r.stdout).toBe("");
  expect(r.code).toBe(1);
};

async function absent(client: Pick<Client, "get">, ...ref: Parameters<Client["get"]>): Promise<boolean> {
  try {
    await client.get(...ref);
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!isObject(address)) throw new Error("no port");
  return Number(address.port);
}

function readyOf(cluster: StoredObject): string | undefined {
  const status = isObject(cluster.status) ? cluster.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const ready = conditions.find((c) => isObject(c) && c.type === "Ready");
  return isObject(ready) ? String(ready.status) : undefined;
}

// Each karmadactl run is a Node process (about a second of start-up): generous per-test limits
// keep a loaded machine from failing the suite; the waits inside are bounded on their own.
describe("karmadactl (the executable) and kubectl get clusters", { timeout: 150_000 }, () => {
  let cp: RunningControlPlane;
  let controllers: ElectedControllerManager;
  let m1: ServedMemberCluster;
  let m2: ServedMemberCluster;
  let karmada: LocalClient;
  let dir: string;
  let kubeconfig: string;
  let karmadactl: ReturnType<typeof runner>;
  let kubectl: ReturnType<typeof runner>;
  /** `--kubeconfig K --karmada-context karmada-apiserver` */
  let controlPlane: string[];
  /** The flags that join (and unjoin) a member from the shared kubeconfig. */
  let member: (name: string) => string[];

  beforeAll(async () => {
    cp = await startLocalControlPlane();
    karmada = new LocalClient(cp.api.context, { fieldManager: "karmada-controller-manager" });
    controllers = startElectedControllerManager({
      client: karmada,
      log: silentLogger,
      controllers: ["*"],
      options: {
        clusterStatusUpdateFrequencyMs: 200,
        clusterSuccessThresholdMs: 200,
        clusterFailureThresholdMs: 600,
      },
      leaderElection: { ...DEFAULT_LEADER_ELECTION, enabled: false },
    });
    m1 = await serveMemberCluster({ name: "member1", port: 0, timing: FAST });
    m2 = await serveMemberCluster({ name: "member2", port: 0, timing: FAST });
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-karmadactl-"));
    kubeconfig = join(dir, "karmada.config");
    await writeKubeconfig(
      kubeconfig,
      kubeconfigFor([
        { name: "karmada-apiserver", connection: cp.connection },
        { name: "member1", connection: m1.connection },
        { name: "member2", connection: m2.connection },
      ]),
    );
    karmadactl = runner(process.execPath, [KARMADACTL], dir);
    kubectl = runner(KUBECTL, [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dir, "cache")}`], dir);
    controlPlane = ["--kubeconfig", kubeconfig, "--karmada-context", "karmada-apiserver"];
    member = (name) => [...controlPlane, "--cluster-kubeconfig", kubeconfig, "--cluster-context", name];
  });

  afterAll(async () => {
    await controllers?.stop();
    await m1?.stop();
    await m2?.stop();
    await cp?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Nothing of a join exists: no Cluster in the control plane, no credentials in member1. */
  async function nothingJoined(): Promise<void> {
    expect((await karmada.list(RESOURCES.clusters, undefined)).items).toEqual([]);
    expect(await absent(m1.client, RESOURCES.namespaces, undefined, "karmada-cluster")).toBe(true);
    const roles = await m1.client.list(RESOURCES.clusterroles, undefined, {
      labelSelector: "karmada.io/system=true",
    });
    expect(roles.items).toEqual([]);
  }

  it("version and --help", async () => {
    const version = ok(await karmadactl(["version"]));
    expect(version.stdout).toMatch(
      /^karmadactl version: version\.Info\{GitVersion:"v[^"]+", Platform:"[a-z0-9]+\/[a-z0-9]+"\}\n$/,
    );
    const json = JSON.parse(ok(await karmadactl(["version", "-o", "json"])).stdout) as {
      clientVersion: { gitVersion: string };
    };
    expect(json.clientVersion.gitVersion).toMatch(/^v/);
    expect(ok(await karmadactl(["version", "-o", "yaml"])).stdout).toMatch(
      /^clientVersion:\n {2}gitVersion: v/,
    );

    const help = ok(await karmadactl(["--help"])).stdout;
    for (const command of ["join", "unjoin", "get", "version"])
      expect(help).toMatch(new RegExp(`^ {2}${command} `, "m"));
    const joinHelp = ok(await karmadactl(["join", "--help"])).stdout;
    for (const flag of [
      "--cluster-kubeconfig",
      "--cluster-context",
      "--cluster-namespace",
      "--cluster-provider",
      "--cluster-region",
      "--cluster-zones",
      "--dry-run",
      "--kubeconfig",
      "--karmada-context",
    ]) {
      expect(joinHelp).toContain(flag);
    }
    const unjoinHelp = ok(await karmadactl(["unjoin", "--help"])).stdout;
    for (const flag of ["--cluster-kubeconfig", "--cluster-context", "--wait", "--force", "--dry-run"]) {
      expect(unjoinHelp).toContain(flag);
    }
    const getHelp = ok(await karmadactl(["get", "--help"])).stdout;
    for (const flag of [
      "-s, --operation-scope",
      "-C, --clusters",
      "-l, --labels",
      "-A, --all-namespaces",
      "-o, --output",
    ]) {
      expect(getHelp).toContain(flag);
    }
  });

  it("join: bad flags and an unreachable member are one-line errors with exit code 1, and create nothing", async () => {
    // No --cluster-kubeconfig, and no $KUBECONFIG or ~/.kube/config to fall back to.
    oneLineError(await karmadactl(["join", "member1", ...controlPlane]), "--cluster-kubeconfig");
    oneLineError(
      await karmadactl([
        "join",
        "member1",
        ...controlPlane,
        "--cluster-kubeconfig",
        join(dir, "missing.config"),
      ]),
      join(dir, "missing.config"),
    );
    oneLineError(await karmadactl(["join", "member1", ...member("member9")]), '"member9"');
    oneLineError(
      await karmadactl([
        "join",
        "member1",
        "--kubeconfig",
        kubeconfig,
        "--karmada-context",
        "karmada-nowhere",
        "--cluster-kubeconfig",
        kubeconfig,
        "--cluster-context",
        "member1",
      ]),
      '"karmada-nowhere"',
    );
    oneLineError(
      await karmadactl(["join", "member1", ...member("member1"), "--no-such-flag"]),
      "--no-such-flag",
    );
    // A name the control plane refuses is refused before anything is created in the member.
    oneLineError(
      await karmadactl(["join", "Member_1", ...member("member1")]),
      "invalid cluster name(Member_1)",
    );

    const port = await closedPort();
    const unreachable = join(dir, "unreachable.config");
    await writeKubeconfig(unreachable, {
      clusters: [{ name: "gone", server: `http://127.0.0.1:${port}` }],
      users: [{ name: "gone-admin" }],
      contexts: [{ name: "gone", cluster: "gone", user: "gone-admin" }],
      currentContext: "gone",
    });
    oneLineError(
      await karmadactl(["join", "gone", ...controlPlane, "--cluster-kubeconfig", unreachable]),
      `127.0.0.1:${port}`,
    );
    await nothingJoined();
  });

  it("join --dry-run checks the member and creates nothing", async () => {
    const r = ok(await karmadactl(["join", "member1", ...member("member1"), "--dry-run"]));
    expect(r.stdout).toBe("");
    await nothingJoined();
  });

  it("join prints upstream's success line; the Cluster and the credentials exist on both sides", async () => {
    expect(ok(await karmadactl(["join", "member1", ...member("member1")])).stdout).toBe(
      "cluster(member1) is joined successfully\n",
    );
    expect(
      ok(
        await karmadactl([
          "join",
          "member2",
          ...member("member2"),
          "--cluster-provider",
          "sim",
          "--cluster-region",
          "region-2",
          "--cluster-zones",
          "zone-a,zone-b",
        ]),
      ).stdout,
    ).toBe("cluster(member2) is joined successfully\n");

    const cluster = await karmada.get(RESOURCES.clusters, undefined, "member1");
    expect(cluster.spec).toMatchObject({
      id: m1.clusterId,
      syncMode: "Push",
      apiEndpoint: m1.url,
      secretRef: { namespace: "karmada-cluster", name: "member1" },
      impersonatorSecretRef: { namespace: "karmada-cluster", name: "member1-impersonator" },
    });
    expect((await karmada.get(RESOURCES.clusters, undefined, "member2")).spec).toMatchObject({
      provider: "sim",
      region: "region-2",
      zones: ["zone-a", "zone-b"],
    });
    // Control plane: the two secrets, owned by the Cluster so they go with it.
    for (const name of ["member1", "member1-impersonator"]) {
      const secret = await karmada.get(RESOURCES.secrets, "karmada-cluster", name);
      expect(secret.metadata.ownerReferences).toEqual([
        expect.objectContaining({
          kind: "Cluster",
          name: "member1",
          uid: cluster.metadata.uid,
          controller: true,
        }),
      ]);
      expect(isObject(secret.data) && typeof secret.data.token === "string").toBe(true);
    }
    // Member: namespace, both service accounts, and the RBAC of karmada-member1.
    const system = { "karmada.io/system": "true" };
    expect(
      (await m1.client.get(RESOURCES.namespaces, undefined, "karmada-cluster")).metadata.labels,
    ).toMatchObject(system);
    for (const sa of ["karmada-impersonator", "karmada-member1"]) {
      await m1.client.get(RESOURCES.serviceaccounts, "karmada-cluster", sa);
    }
    const role = "karmada-controller-manager:karmada-member1";
    await m1.client.get(RESOURCES.clusterroles, undefined, role);
    expect((await m1.client.get(RESOURCES.clusterrolebindings, undefined, role)).subjects).toEqual([
      { kind: "ServiceAccount", name: "karmada-member1", namespace: "karmada-cluster" },
    ]);
  });

  it("joining again fails as upstream: the cluster name or ID has been registered", async () => {
    const again = await karmadactl(["join", "member1", ...member("member1")]);
    oneLineError(again, `the cluster ID ${m1.clusterId} or the cluster name member1 has been registered`);
    // The same member under another name: its ID is taken.
    oneLineError(
      await karmadactl(["join", "member3", ...member("member1")]),
      `the cluster ID ${m1.clusterId} or the cluster name member3 has been registered`,
    );
    expect((await karmada.list(RESOURCES.clusters, undefined)).items.map((c) => c.metadata.name)).toEqual([
      "member1",
      "member2",
    ]);
  });

  it("kubectl get clusters: NAME VERSION MODE READY AGE, Push and True once Ready; -o wide adds upstream's columns", async () => {
    const t = await eventually(
      async () => {
        const r = await kubectl(["--context", "karmada-apiserver", "get", "clusters"]);
        const parsed = table(ok(r).stdout);
        return parsed.rows.length === 2 && parsed.rows.every((row) => row[3] === "True") && parsed;
      },
      "both clusters Ready in kubectl get clusters",
      150,
      100,
    );
    expect(t.header).toEqual(["NAME", "VERSION", "MODE", "READY", "AGE"]);
    const status = (await karmada.get(RESOURCES.clusters, undefined, "member1")).status as {
      kubernetesVersion?: string;
    };
    const version = String(status.kubernetesVersion);
    expect(version).toMatch(/^v1\./);
    expect(t.rows.map((row) => row.slice(0, 4))).toEqual([
      ["member1", version, "Push", "True"],
      ["member2", version, "Push", "True"],
    ]);
    for (const row of t.rows) expect(row[4]).toMatch(AGE);

    const wide = table(
      ok(await kubectl(["--context", "karmada-apiserver", "get", "clusters", "-o", "wide"])).stdout,
    );
    // The wide columns of upstream's Cluster table convertor (pkg/printers/internalversion).
    expect(wide.header).toEqual([
      "NAME",
      "VERSION",
      "MODE",
      "READY",
      "AGE",
      "ZONES",
      "REGION",
      "PROVIDER",
      "API-ENDPOINT",
      "PROXY-URL",
    ]);
    // Cells as upstream's convertor prints them: zones joined with commas, `<none>` when unset.
    expect(wide.rows.map((row) => row.slice(5))).toEqual([
      ["<none>", "<none>", "<none>", m1.url, "<none>"],
      ["zone-a,zone-b", "region-2", "sim", m2.url, "<none>"],
    ]);
  });

  it("karmadactl get clusters matches kubectl, with upstream's CLUSTER (Karmada) and ADOPTION (-) columns", async () => {
    await eventually(
      async () => {
        const clusters = (await karmada.list(RESOURCES.clusters, undefined)).items;
        return clusters.length === 2 && clusters.every((c) => readyOf(c) === "True");
      },
      "both clusters Ready",
      150,
      100,
    );
    const byKubectl = table(ok(await kubectl(["--context", "karmada-apiserver", "get", "clusters"])).stdout);
    const t = table(ok(await karmadactl(["get", "clusters", ...controlPlane])).stdout);
    expect(t.header).toEqual(["NAME", "CLUSTER", "VERSION", "MODE", "READY", "AGE", "ADOPTION"]);
    expect(t.rows.map((row) => [row[0], row[2], row[3], row[4]])).toEqual(
      byKubectl.rows.map((row) => [row[0], row[1], row[2], row[3]]),
    );
    for (const row of t.rows) {
      expect(row[1]).toBe("Karmada");
      expect(row[5]).toMatch(AGE);
      expect(row[6]).toBe("-");
    }

    // The current context of the kubeconfig is the control plane: --karmada-context may be left out.
    const wide = table(
      ok(await karmadactl(["get", "clusters", "-o", "wide", "--kubeconfig", kubeconfig])).stdout,
    );
    expect(wide.header).toEqual([
      "NAME",
      "CLUSTER",
      "VERSION",
      "MODE",
      "READY",
      "AGE",
      "ZONES",
      "REGION",
      "PROVIDER",
      "API-ENDPOINT",
      "PROXY-URL",
      "ADOPTION",
    ]);
    expect(wide.rows.map((row) => [row[0], row[1], row[7], row[8], row[9], row[11]])).toEqual([
      ["member1", "Karmada", expect.any(String), expect.any(String), m1.url, "-"],
      ["member2", "Karmada", "region-2", "sim", m2.url, "-"],
    ]);

    const names = ok(await karmadactl(["get", "clusters", "-o", "name", ...controlPlane])).stdout;
    expect(names).toBe(
      ok(await kubectl(["--context", "karmada-apiserver", "get", "clusters", "-o", "name"])).stdout,
    );
    expect(names).toBe("cluster.cluster.karmada.io/member1\ncluster.cluster.karmada.io/member2\n");
  });

  it("karmadactl get nodes --operation-scope members: the members' nodes with a CLUSTER column", async () => {
    const nodeRows = (cluster: string) =>
      [0, 1, 2].map((i) => [`${cluster}-node-${i}`, cluster, "Ready", "<none>", "v1.32.0", "N"]);
    const pick = (row: string[]) => [row[0], row[1], row[2], row[3], row[5], row[6]];

    const all = table(
      ok(await karmadactl(["get", "nodes", "--operation-scope", "members", ...controlPlane])).stdout,
    );
    expect(all.header).toEqual(["NAME", "CLUSTER", "STATUS", "ROLES", "AGE", "VERSION", "ADOPTION"]);
    expect(all.rows.map(pick)).toEqual([...nodeRows("member1"), ...nodeRows("member2")]);
    for (const row of all.rows) expect(row[4]).toMatch(AGE);

    const one = table(
      ok(await karmadactl(["get", "nodes", "-s", "members", "-C", "member2", ...controlPlane])).stdout,
    );
    expect(one.rows.map(pick)).toEqual(nodeRows("member2"));
    // `all`: the control plane (which has no nodes) and member2.
    const both = table(
      ok(await karmadactl(["get", "nodes", "-s", "all", "-C", "member2", ...controlPlane])).stdout,
    );
    expect(both.rows.map(pick)).toEqual(nodeRows("member2"));

    oneLineError(
      await karmadactl(["get", "nodes", "-s", "members", "-C", "member2,member9", ...controlPlane]),
      "clusters don't exist: member9",
    );
    oneLineError(
      await karmadactl(["get", "nodes", "member1-node-7", "-s", "members", "-C", "member1", ...controlPlane]),
      'cluster(member1): nodes "member1-node-7" not found',
    );
    oneLineError(await karmadactl(["get", "nodes", "-s", "everywhere", ...controlPlane]), "everywhere");
  });

  it("karmadactl get nodes -o name and -o yaml across members", async () => {
    const names = ok(
      await karmadactl(["get", "nodes", "-s", "members", "-o", "name", ...controlPlane]),
    ).stdout;
    expect(lines(names)).toEqual(
      ["member1", "member2"].flatMap((c) => [0, 1, 2].map((i) => `node/${c}-node-${i}`)),
    );

    const list = parse(
      ok(await karmadactl(["get", "nodes", "-s", "members", "-C", "member2", "-o", "yaml", ...controlPlane]))
        .stdout,
    ) as { apiVersion: string; kind: string; items: StoredObject[] };
    expect(list.kind).toBe("List");
    expect(list.items.map((n) => [n.apiVersion, n.kind, n.metadata.name])).toEqual(
      [0, 1, 2].map((i) => ["v1", "Node", `member2-node-${i}`]),
    );
    expect(list.items.every((n) => n.metadata.managedFields === undefined)).toBe(true);

    const node = parse(
      ok(
        await karmadactl([
          "get",
          "nodes",
          "member2-node-1",
          "-s",
          "members",
          "-C",
          "member2",
          "-o",
          "yaml",
          ...controlPlane,
        ]),
      ).stdout,
    ) as StoredObject;
    expect([node.kind, node.metadata.name]).toEqual(["Node", "member2-node-1"]);
    const fromMember = await m2.client.get(RESOURCES.nodes, undefined, "member2-node-1");
    expect(node.metadata.uid).toBe(fromMember.metadata.uid);
  });

  it("deployments across members: upstream's No resources found, then NAMESPACE and ADOPTION columns", async () => {
    const empty = await karmadactl([
      "get",
      "deployments",
      "-A",
      "--operation-scope",
      "members",
      ...controlPlane,
    ]);
    expect(empty).toEqual({ code: 0, stdout: "", stderr: "No resources found\n" });
    expect(await karmadactl(["get", "deployments", "--operation-scope", "members", ...controlPlane])).toEqual(
      {
        code: 0,
        stdout: "",
        stderr: "No resources found in default namespace.\n",
      },
    );
    // -C only counts with the members or all scope (upstream): this looks in the control plane.
    expect(await karmadactl(["get", "nodes", "-C", "member1", ...controlPlane])).toEqual({
      code: 0,
      stdout: "",
      stderr: "No resources found\n",
    });

    ok(
      await kubectl([
        "--context",
        "member2",
        "-n",
        "default",
        "create",
        "deployment",
        "web",
        "--image=nginx:1.25",
      ]),
    );
    ok(
      await kubectl([
        "--context",
        "member1",
        "-n",
        "default",
        "create",
        "deployment",
        "adopted",
        "--image=nginx:1.25",
      ]),
    );
    ok(
      await kubectl([
        "--context",
        "member1",
        "-n",
        "default",
        "label",
        "deployment",
        "adopted",
        "karmada.io/managed=true",
      ]),
    );
    try {
      const t = table(
        ok(await karmadactl(["get", "deployments", "-A", "--operation-scope", "members", ...controlPlane]))
          .stdout,
      );
      expect(t.header).toEqual([
        "NAMESPACE",
        "NAME",
        "CLUSTER",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
        "AGE",
        "ADOPTION",
      ]);
      expect(t.rows.map((row) => [row[0], row[1], row[2], row[7]])).toEqual([
        ["default", "adopted", "member1", "Y"],
        ["default", "web", "member2", "N"],
      ]);
      const selected = table(
        ok(await karmadactl(["get", "deploy", "-s", "members", "-l", "app=web", ...controlPlane])).stdout,
      );
      expect(selected.rows.map((row) => [row[0], row[1]])).toEqual([["web", "member2"]]);
    } finally {
      ok(
        await kubectl([
          "--context",
          "member2",
          "-n",
          "default",
          "delete",
          "deployment",
          "web",
          "--wait=false",
        ]),
      );
      ok(
        await kubectl([
          "--context",
          "member1",
          "-n",
          "default",
          "delete",
          "deployment",
          "adopted",
          "--wait=false",
        ]),
      );
    }
  });

  it("unjoin removes the Cluster (waiting for it) and the member-side objects; member1 can join again", async () => {
    oneLineError(
      await karmadactl(["unjoin", "member1", ...member("member1"), "--wait", "0s"]),
      "--wait 0s must be a positive duration",
    );
    const r = ok(await karmadactl(["unjoin", "member1", ...member("member1")]));
    // Upstream prints nothing on success.
    expect(r.stdout).toBe("");
    // The command waited: the Cluster is gone when it returns.
    expect(await absent(karmada, RESOURCES.clusters, undefined, "member1")).toBe(true);
    const role = "karmada-controller-manager:karmada-member1";
    expect(await absent(m1.client, RESOURCES.clusterrolebindings, undefined, role)).toBe(true);
    expect(await absent(m1.client, RESOURCES.clusterroles, undefined, role)).toBe(true);
    expect(await absent(m1.client, RESOURCES.serviceaccounts, "karmada-cluster", "karmada-member1")).toBe(
      true,
    );
    await eventually(
      () => absent(m1.client, RESOURCES.namespaces, undefined, "karmada-cluster"),
      "namespace karmada-cluster gone from member1",
    );
    // The credentials secrets in the control plane went with the Cluster.
    await eventually(
      async () =>
        (await absent(karmada, RESOURCES.secrets, "karmada-cluster", "member1")) &&
        (await absent(karmada, RESOURCES.secrets, "karmada-cluster", "member1-impersonator")),
      "member1's secrets gone from the control plane",
      100,
      100,
    );
    // member2 is untouched.
    const t = table(ok(await kubectl(["--context", "karmada-apiserver", "get", "clusters"])).stdout);
    expect(t.rows.map((row) => row[0])).toEqual(["member2"]);
    await m2.client.get(RESOURCES.namespaces, undefined, "karmada-cluster");

    oneLineError(
      await karmadactl(["unjoin", "member1", ...controlPlane]),
      "no cluster object member1 found in karmada control Plane",
    );
    expect(ok(await karmadactl(["join", "member1", ...member("member1")])).stdout).toBe(
      "cluster(member1) is joined successfully\n",
    );
  });
});
