/**
 * Issue H §3: three control-plane "nodes" (each a `karmada apiserver`, `controller-manager`
 * and `scheduler` process, and one member of a three-member etcd with client-certificate
 * auth and a CA of the test's own). The node whose controller manager leads is lost whole
 * (SIGKILL, its etcd member too); the others take over: a workload applied afterwards is
 * scheduled and reaches its members, and what was there before is still there, once.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESOURCES } from "../../src/client/client.ts";
import type { HttpClient } from "../../src/client/http.ts";
import { httpClientFor, kubeconfigFor, writeKubeconfig } from "../../src/client/kubeconfig.ts";
import { CONTROLLER_MANAGER_USER, SCHEDULER_USER } from "../../src/karmada/rbac.ts";
import { KARMADA } from "../../src/karmada/resources.ts";
import { type ServedMemberCluster, serveMemberCluster } from "../../src/member-sim/cluster.ts";
import { FAST } from "../../src/member-sim/test-support.ts";
import { createClusterPki, issueClientCertificate } from "../../src/pki/cluster-pki.ts";
import { issueCertificate } from "../../src/pki/x509.ts";
import { ETCD_BINARY, startLocalEtcdCluster } from "../../src/storage/etcd/local-etcd.ts";
import { eventually } from "./harness.ts";

const KARMADA_BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));
const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));
const LEASE = [
  "--leader-elect-lease-duration=3s",
  "--leader-elect-renew-deadline=2s",
  "--leader-elect-retry-period=500ms",
];

interface Node {
  url: string;
  etcd: number;
  procs: ChildProcess[];
  controllerManager?: string;
  client: HttpClient;
}

/** Spawns a process and resolves with the first match of `pattern` in its output. */
function start(args: string[], pattern: RegExp, procs: ChildProcess[]): Promise<string> {
  const child = spawn(process.execPath, [KARMADA_BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  procs.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} from karmada ${args[0]}: ${out.slice(-1500)}`)),
      60_000,
    );
    const read = (d: Buffer): void => {
      out += d.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => reject(new Error(`karmada ${args[0]} exited ${code}: ${out.slice(-1500)}`)));
  });
}

const deployment = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: "default" },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: "app", image: "nginx" }] },
    },
  },
});

const policy = (name: string) => ({
  apiVersion: "policy.karmada.io/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name, namespace: "default" },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }],
    placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } },
  },
});

describe.skipIf(!existsSync(ETCD_BINARY))("a control-plane node lost whole", { timeout: 240_000 }, () => {
  let dir: string;
  let etcd: Awaited<ReturnType<typeof startLocalEtcdCluster>>;
  const nodes: Node[] = [];
  const members: ServedMemberCluster[] = [];
  const file = (name: string) => join(dir, name);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-ha-"));
    const pki = await createClusterPki({ caName: "karmada" });
    const etcdPki = await createClusterPki({ caName: "etcd-ca" });
    const etcdServing = await issueCertificate(etcdPki.ca, {
      commonName: "etcd",
      hosts: ["127.0.0.1", "localhost"],
      usage: "server+client",
      notAfter: new Date(Date.now() + 3_600_000),
    });
    const files: Record<string, string> = {
      "ca.crt": pki.ca.certPem,
      "ca.key": pki.ca.keyPem,
      "apiserver.crt": pki.serving.certPem + pki.ca.certPem,
      "apiserver.key": pki.serving.keyPem,
      "sa.key": pki.serviceAccountKeyPem,
      "etcd-ca.crt": etcdPki.ca.certPem,
      "etcd-server.crt": etcdServing.certPem,
      "etcd-server.key": etcdServing.keyPem,
      "etcd-client.crt": etcdPki.admin.certPem,
      "etcd-client.key": etcdPki.admin.keyPem,
    };
    for (const [name, content] of Object.entries(files))
      await writeFile(file(name), content, { mode: 0o600 });
    etcd = await startLocalEtcdCluster(3, {
      tls: {
        caFile: file("etcd-ca.crt"),
        certFile: file("etcd-server.crt"),
        keyFile: file("etcd-server.key"),
        clientCertFile: file("etcd-client.crt"),
        clientKeyFile: file("etcd-client.key"),
      },
    });
    const identities = {
      cm: await issueClientCertificate(pki, { commonName: CONTROLLER_MANAGER_USER }),
      scheduler: await issueClientCertificate(pki, { commonName: SCHEDULER_USER }),
    };
    // Every API server reaches every etcd member, as an external etcd is used.
    const etcdServers = etcd.endpoints.map((e) => `https://${e}`).join(",");
    for (let i = 0; i < 3; i++) {
      const procs: ChildProcess[] = [];
      const url = await start(
        [
          "apiserver",
          "--secure-port=0",
          `--cert-dir=${file(`certs-${i}`)}`,
          `--tls-cert-file=${file("apiserver.crt")}`,
          `--tls-private-key-file=${file("apiserver.key")}`,
          `--client-ca-file=${file("ca.crt")}`,
          `--service-account-signing-key-file=${file("sa.key")}`,
          `--cluster-signing-cert-file=${file("ca.crt")}`,
          `--cluster-signing-key-file=${file("ca.key")}`,
          `--etcd-servers=${etcdServers}`,
          `--etcd-cafile=${file("etcd-ca.crt")}`,
          `--etcd-certfile=${file("etcd-client.crt")}`,
          `--etcd-keyfile=${file("etcd-client.key")}`,
          "--log-level=warn",
        ],
        /listening on (https:\/\/\S+)/,
        procs,
      );
      const kubeconfig = async (name: string, cert: { certPem: string; keyPem: string }) => {
        const path = file(`${name}-${i}.config`);
        await writeKubeconfig(
          path,
          kubeconfigFor([
            {
              name: "karmada-apiserver",
              connection: {
                server: url,
                caData: pki.ca.certPem,
                certData: cert.certPem,
                keyData: cert.keyPem,
              },
            },
          ]),
        );
        return path;
      };
      const controllerManager = await start(
        [
          "controller-manager",
          `--kubeconfig=${await kubeconfig("cm", identities.cm)}`,
          ...LEASE,
          "--health-probe-bind-address=0",
          "--log-level=error",
        ],
        /controller-manager (\S+) started/,
        procs,
      );
      await start(
        [
          "scheduler",
          `--kubeconfig=${await kubeconfig("scheduler", identities.scheduler)}`,
          ...LEASE,
          "--health-probe-bind-address=0",
          "--log-level=error",
        ],
        /scheduler (\S+) started/,
        procs,
      );
      nodes.push({
        url,
        etcd: i,
        procs,
        controllerManager,
        client: httpClientFor(
          { server: url, caData: pki.ca.certPem, certData: pki.admin.certPem, keyData: pki.admin.keyPem },
          { userAgent: "ha-test" },
        ),
      });
    }
    for (const name of ["member1", "member2"])
      members.push(await serveMemberCluster({ name, port: 0, timing: FAST }));
    const fleet = file("fleet.config");
    await writeKubeconfig(
      fleet,
      kubeconfigFor([
        {
          name: "karmada-apiserver",
          connection: {
            server: nodes[1]!.url,
            caData: pki.ca.certPem,
            certData: pki.admin.certPem,
            keyData: pki.admin.keyPem,
          },
        },
        ...members.map((m) => ({ name: m.name, connection: m.connection })),
      ]),
    );
    for (const m of members) {
      const joined = await new Promise<string>((resolve) =>
        execFile(
          process.execPath,
          [
            KARMADACTL,
            "join",
            m.name,
            `--kubeconfig=${fleet}`,
            "--karmada-context=karmada-apiserver",
            `--cluster-kubeconfig=${fleet}`,
            `--cluster-context=${m.name}`,
          ],
          { timeout: 60_000 },
          (err, stdout, stderr) => resolve(err ? `${stdout}${stderr}` : stdout),
        ),
      );
      expect(joined).toContain(`cluster(${m.name}) is joined successfully`);
    }
  }, 200_000);

  afterAll(async () => {
    for (const n of nodes) {
      n.client.close();
      for (const p of n.procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    }
    for (const m of members) await m.stop();
    await etcd?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const onMember = (member: ServedMemberCluster, name: string) =>
    member.client.get(RESOURCES.deployments, "default", name).then(
      () => true,
      () => false,
    );

  it("hands leadership over, and work goes on with nothing lost and nothing doubled", async () => {
    const first = nodes[0]!.client;
    await first.create(RESOURCES.deployments, deployment("before"));
    await first.create(KARMADA.propagationPolicies, policy("before"));
    await eventually(
      async () => (await onMember(members[0]!, "before")) && onMember(members[1]!, "before"),
      "the first workload on both members",
      600,
      100,
    );

    // What the members see of the first workload from here on: it must not be deleted or made again.
    const seen: string[] = [];
    const watches = members.map((m) =>
      m.client.watch(RESOURCES.deployments, "default", { resourceVersion: "0" }, (e) => {
        const obj = e.object as { metadata?: { name?: string; uid?: string } };
        if (obj.metadata?.name === "before") seen.push(`${m.name} ${e.type} ${obj.metadata.uid}`);
      }),
    );
    // The node whose controller manager leads goes down whole.
    const holder = await eventually(
      async () => {
        const lease = await first.get(RESOURCES.leases, "karmada-system", "karmada-controller-manager");
        return (lease.spec as { holderIdentity?: string }).holderIdentity;
      },
      "a leading controller manager",
      100,
      100,
    );
    const lost = nodes.find((n) => n.controllerManager === holder)!;
    expect(lost).toBeDefined();
    for (const p of lost.procs) p.kill("SIGKILL");
    await etcd.members[lost.etcd]!.kill();
    const survivor = nodes.find((n) => n !== lost)!.client;

    // While etcd elects a new leader a write may time out (a 500, as kube-apiserver's): clients retry.
    const retried = <T>(write: () => Promise<T>, what: string) =>
      eventually(
        async () =>
          write().then(
            () => true,
            (err: unknown) => {
              if ((err as { status?: { code?: number } }).status?.code === 409) return true;
              throw err;
            },
          ),
        what,
        100,
        200,
      );
    await retried(
      () => survivor.create(RESOURCES.deployments, deployment("after")),
      "the new Deployment written",
    );
    await retried(
      () => survivor.create(KARMADA.propagationPolicies, policy("after")),
      "the new policy written",
    );
    const newLeader = await eventually(
      async () => {
        const lease = await survivor.get(RESOURCES.leases, "karmada-system", "karmada-controller-manager");
        const h = (lease.spec as { holderIdentity?: string }).holderIdentity;
        return h && h !== holder ? h : undefined;
      },
      "another controller manager leading",
      300,
      100,
    );
    expect(nodes.filter((n) => n !== lost).map((n) => n.controllerManager)).toContain(newLeader);
    await eventually(
      async () => {
        const rb = await survivor.get(KARMADA.resourceBindings, "default", "after-deployment");
        return ((rb.spec as { clusters?: unknown[] }).clusters ?? []).length === 2;
      },
      "the new workload scheduled",
      600,
      100,
    );
    await eventually(
      async () => (await onMember(members[0]!, "after")) && onMember(members[1]!, "after"),
      "the new workload on both members",
      600,
      100,
    );

    // Nothing lost: the first workload is where it was, never deleted nor made again; nothing
    // doubled: one Work per workload and member.
    for (const w of watches) w.stop();
    expect(
      seen.filter((e) => e.includes(" DELETED ")),
      seen.join("\n"),
    ).toEqual([]);
    expect(new Set(seen.map((e) => e.split(" ").at(-1))).size, seen.join("\n")).toBe(2);
    for (const m of members) {
      const works = (await survivor.list(KARMADA.works, `karmada-es-${m.name}`)).items.map(
        (w) => w.metadata.name!,
      );
      for (const name of ["before", "after"]) {
        expect(
          works.filter((w) => w.startsWith(`${name}-`)),
          works.join(", "),
        ).toHaveLength(1);
      }
      const copies = (await m.client.list(RESOURCES.deployments, "default")).items.map(
        (d) => d.metadata.name,
      );
      expect(copies.sort()).toEqual(["after", "before"]);
    }
  });
});
