/**
 * Control-plane "nodes" for HA tests and benchmarks: each a `karmada apiserver`,
 * `controller-manager` and `scheduler` process, plus one member of a three-member etcd with
 * client-certificate auth and a CA of its own; simulated members joined with `karmadactl join`.
 * `loseNode` kills a node whole (SIGKILL, its etcd member too), as a machine lost.
 */

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { HttpClient } from "../../src/client/http.ts";
import { httpClientFor, kubeconfigFor, writeKubeconfig } from "../../src/client/kubeconfig.ts";
import { CONTROLLER_MANAGER_USER, SCHEDULER_USER } from "../../src/karmada/rbac.ts";
import { type ServedMemberCluster, serveMemberCluster } from "../../src/member-sim/cluster.ts";
import { issueClientCertificate } from "../../src/pki/cluster-pki.ts";
import { startLocalEtcdCluster } from "../../src/storage/etcd/local-etcd.ts";
import { FAST } from "./member-sim.ts";
import { writeApiserverPki, writeEtcdTls } from "./pki-files.ts";

const KARMADA_BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));
const KARMADACTL = fileURLToPath(new URL("../../bin/karmadactl", import.meta.url));
const LEASE = [
  "--leader-elect-lease-duration=3s",
  "--leader-elect-renew-deadline=2s",
  "--leader-elect-retry-period=500ms",
];

export interface HaNode {
  url: string;
  etcd: number;
  procs: ChildProcess[];
  controllerManager?: string;
  client: HttpClient;
}

/** Spawns `karmada <args>` and resolves with the first capture of `pattern` in its output. */
export function startKarmada(args: string[], pattern: RegExp, procs: ChildProcess[]): Promise<string> {
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

export interface HaFleet {
  nodes: HaNode[];
  members: ServedMemberCluster[];
  etcd: Awaited<ReturnType<typeof startLocalEtcdCluster>>;
  /** Kills a node's processes and its etcd member (SIGKILL). */
  loseNode(node: HaNode): Promise<void>;
  stop(): Promise<void>;
}

/** Three nodes on a three-member TLS etcd, and simulated members `member1`, `member2`. */
export async function startHaFleet(): Promise<HaFleet> {
  const dir = await mkdtemp(join(tmpdir(), "karmada-ha-"));
  const file = (name: string) => join(dir, name);
  const nodes: HaNode[] = [];
  const members: ServedMemberCluster[] = [];
  const { pki, servingFlags, signingFlags } = await writeApiserverPki(file);
  const etcdTls = await writeEtcdTls(file, 3_600_000);
  const etcd = await startLocalEtcdCluster(3, { tls: etcdTls.tls });
  const identities = {
    cm: await issueClientCertificate(pki, { commonName: CONTROLLER_MANAGER_USER }),
    scheduler: await issueClientCertificate(pki, { commonName: SCHEDULER_USER }),
  };
  // Every API server reaches every etcd member, as an external etcd is used.
  const etcdFlags = etcdTls.apiserverFlags(etcd.endpoints);
  for (let i = 0; i < 3; i++) {
    const procs: ChildProcess[] = [];
    const url = await startKarmada(
      [
        "apiserver",
        "--secure-port=0",
        ...servingFlags(file(`certs-${i}`)),
        ...signingFlags,
        ...etcdFlags,
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
    const controllerManager = await startKarmada(
      [
        "controller-manager",
        `--kubeconfig=${await kubeconfig("cm", identities.cm)}`,
        ...LEASE,
        "--health-probe-bind-address=0",
        "--metrics-bind-address=0",
        "--log-level=error",
      ],
      /controller-manager (\S+) started/,
      procs,
    );
    await startKarmada(
      [
        "scheduler",
        `--kubeconfig=${await kubeconfig("scheduler", identities.scheduler)}`,
        ...LEASE,
        "--health-probe-bind-address=0",
        "--metrics-bind-address=0",
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
    if (!joined.includes(`cluster(${m.name}) is joined successfully`))
      throw new Error(`join ${m.name}: ${joined}`);
  }

  return {
    nodes,
    members,
    etcd,
    async loseNode(node) {
      for (const p of node.procs) p.kill("SIGKILL");
      await etcd.members[node.etcd]!.kill();
    },
    async stop() {
      for (const n of nodes) {
        n.client.close();
        for (const p of n.procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
      }
      for (const m of members) await m.stop();
      await etcd.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
