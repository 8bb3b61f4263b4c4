/**
 * `karmada up --ha`: the production topology of issue H on one machine. Three etcd members
 * (Debian's `etcd`, client and peer TLS with certificates from the control plane's CA, kept in
 * `<data-dir>/etcd`), and three control-plane "nodes", each a `karmada apiserver` on all three
 * etcd members plus a `karmada controller-manager` and a `karmada scheduler` talking to that
 * node's API server, each its own process (logs in `<data-dir>/nodes/node-N/`), leader-elected
 * through Leases as upstream's replicas are. A TCP load balancer on `--port` fronts the API
 * servers, as a Service does; members, the agent and the `karmada-apiserver` context go through
 * it, and `karmada-apiserver-1..3` reach each node directly.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ClusterConnection, HttpClient } from "../client/http.ts";
import { httpClientFor, writeKubeconfig } from "../client/kubeconfig.ts";
import { CONTROLLER_MANAGER_USER, SCHEDULER_USER } from "../karmada/rbac.ts";
import { type ClusterPki, loadOrCreateIssued, localHosts } from "../pki/cluster-pki.ts";
import type { CertificateAndKey } from "../pki/x509.ts";
import { ETCD_BINARY, startKeptEtcdCluster } from "../storage/etcd/local-etcd.ts";
import { startChild, stopChild } from "./children.ts";
import { StartupError } from "./control-plane.ts";
import { startTcpBalancer } from "./load-balancer.ts";

export const HA_NODES = 3;

/** Flags passed through to every node's components (the same `up` flags the in-process path takes as options). */
export interface HaComponentArgs {
  apiserver: string[];
  controllerManager: string[];
  scheduler: string[];
  logLevel: string;
}

export interface HaNode {
  name: string;
  url: string;
  connection: ClusterConnection;
  processes: { apiserver: ChildProcess; controllerManager: ChildProcess; scheduler: ChildProcess };
  /** Where the node's controller manager and scheduler serve /metrics (HTTPS, delegated authentication). */
  metrics: { controllerManager: string; scheduler: string };
  etcdEndpoint: string;
  logDir: string;
}

export interface HaControlPlane {
  /** The load balancer's URL. */
  url: string;
  port: number;
  connection: ClusterConnection;
  /** The administrator, through the load balancer. */
  admin: HttpClient;
  nodes: HaNode[];
  etcdEndpoints: string[];
  stop(): Promise<void>;
}

const LISTENING = /listening on (https:\/\/\S+)/;

/** Starts (or resumes) the etcd members, the nodes and the load balancer; `pki` is `<data-dir>/pki`'s. */
export async function startHaControlPlane(opts: {
  dataDir: string;
  pkiDir: string;
  pki: ClusterPki & { clients: Record<string, CertificateAndKey> };
  port: number;
  command: readonly string[];
  args: HaComponentArgs;
  step: (text: string) => void;
}): Promise<HaControlPlane> {
  if (!existsSync(ETCD_BINARY)) {
    throw new StartupError(
      `--ha runs etcd from ${ETCD_BINARY}, which is not installed (apt-get install etcd-server)`,
    );
  }
  const { dataDir, pkiDir, pki } = opts;
  const pkiFile = (name: string): string => join(pkiDir, name);
  // etcd's certificate serves clients and its peers (both directions of peer TLS).
  await loadOrCreateIssued(pkiDir, pki.ca, {
    name: "etcd-server",
    commonName: "karmada-etcd",
    hosts: localHosts(),
    usage: "server+client",
  });
  await loadOrCreateIssued(pkiDir, pki.ca, {
    name: "apiserver-etcd-client",
    commonName: "karmada-apiserver-etcd-client",
    usage: "client",
  });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop();
    stops.length = 0;
  };
  try {
    opts.step(`  etcd: ${HA_NODES} members with client and peer TLS (data in ${join(dataDir, "etcd")}) ...`);
    const etcdDir = join(dataDir, "etcd");
    const etcd = await startKeptEtcdCluster(etcdDir, HA_NODES, {
      tls: {
        caFile: pkiFile("ca.crt"),
        certFile: pkiFile("etcd-server.crt"),
        keyFile: pkiFile("etcd-server.key"),
        clientCertFile: pkiFile("apiserver-etcd-client.crt"),
        clientKeyFile: pkiFile("apiserver-etcd-client.key"),
      },
      peerTls: true,
    }).catch((err: Error) => {
      throw new StartupError(
        `etcd did not start (logs in ${etcdDir}/etcd-*/etcd.log; a member left running by an earlier \`up\` holds its ports): ${err.message.split("\n")[0]!.slice(0, 300)}`,
      );
    });
    stops.push(() => etcd.stop());

    opts.step(`  ${HA_NODES} control-plane nodes (API server, controller manager, scheduler each) ...`);
    const etcdServers = etcd.endpoints.map((e) => `https://${e}`).join(",");
    const nodeDirs = Array.from({ length: HA_NODES }, (_, i) => join(dataDir, "nodes", `node-${i + 1}`));
    for (const dir of nodeDirs) mkdirSync(dir, { recursive: true });
    const apiservers = await Promise.all(
      nodeDirs.map((dir, i) =>
        startChild(
          opts.command,
          [
            "apiserver",
            "--bind-address=127.0.0.1",
            "--secure-port=0",
            `--cert-dir=${join(dir, "certs")}`,
            `--tls-cert-file=${pkiFile("apiserver.crt")}`,
            `--tls-private-key-file=${pkiFile("apiserver.key")}`,
            `--client-ca-file=${pkiFile("ca.crt")}`,
            `--service-account-signing-key-file=${pkiFile("sa.key")}`,
            `--cluster-signing-cert-file=${pkiFile("ca.crt")}`,
            `--cluster-signing-key-file=${pkiFile("ca.key")}`,
            "--enable-bootstrap-token-auth",
            `--etcd-servers=${etcdServers}`,
            `--etcd-cafile=${pkiFile("ca.crt")}`,
            `--etcd-certfile=${pkiFile("apiserver-etcd-client.crt")}`,
            `--etcd-keyfile=${pkiFile("apiserver-etcd-client.key")}`,
            `--log-level=${opts.args.logLevel}`,
            ...opts.args.apiserver,
          ],
          { what: `node-${i + 1}'s API server`, logFile: join(dir, "apiserver.log"), readyLine: LISTENING },
        ),
      ),
    );
    for (const a of apiservers) stops.push(() => stopChild(a.process));
    const nodeConnection = (url: string, cert: CertificateAndKey): ClusterConnection => ({
      server: url,
      caData: pki.ca.certPem,
      certData: cert.certPem,
      keyData: cert.keyPem,
    });
    // Each node's controller manager and scheduler talk to that node's API server, as their own users.
    const component = async (
      i: number,
      name: "controller-manager" | "scheduler",
      cert: CertificateAndKey,
      args: string[],
    ) => {
      const kubeconfig = join(nodeDirs[i]!, `karmada-${name}.config`);
      await writeKubeconfig(kubeconfig, {
        clusters: [{ name: "karmada-apiserver", server: apiservers[i]!.ready, caData: pki.ca.certPem }],
        users: [{ name: `karmada-${name}`, certData: cert.certPem, keyData: cert.keyPem }],
        contexts: [{ name: "karmada-apiserver", cluster: "karmada-apiserver", user: `karmada-${name}` }],
        currentContext: "karmada-apiserver",
      });
      const started = await startChild(
        opts.command,
        [
          name,
          `--kubeconfig=${kubeconfig}`,
          "--health-probe-bind-address=127.0.0.1:0",
          "--metrics-bind-address=127.0.0.1:0",
          `--log-level=${opts.args.logLevel}`,
          ...args,
        ],
        {
          what: `node-${i + 1}'s ${name}`,
          logFile: join(nodeDirs[i]!, `${name}.log`),
          // Printed once it runs (standing by or leading), after its endpoints listen.
          readyLine: new RegExp(`karmada ${name}: metrics at (\\S+)`),
        },
      );
      stops.push(() => stopChild(started.process));
      return { process: started.process, metrics: started.ready };
    };
    const cm = opts.pki.clients["karmada-controller-manager"]!;
    const sched = opts.pki.clients["karmada-scheduler"]!;
    const nodes = await Promise.all(
      apiservers.map(async (a, i): Promise<HaNode> => {
        const [controllerManager, scheduler] = await Promise.all([
          component(i, "controller-manager", cm, opts.args.controllerManager),
          component(i, "scheduler", sched, opts.args.scheduler),
        ]);
        return {
          name: `node-${i + 1}`,
          url: a.ready,
          connection: nodeConnection(a.ready, pki.admin),
          processes: {
            apiserver: a.process,
            controllerManager: controllerManager.process,
            scheduler: scheduler.process,
          },
          metrics: { controllerManager: controllerManager.metrics, scheduler: scheduler.metrics },
          etcdEndpoint: etcd.endpoints[i]!,
          logDir: nodeDirs[i]!,
        };
      }),
    );
    const backends = nodes.map((n) => Number(new URL(n.url).port));
    const balancer = await startTcpBalancer({
      host: "127.0.0.1",
      port: opts.port,
      backends: () => backends,
    }).catch((err: NodeJS.ErrnoException) => {
      const why =
        err.code === "EADDRINUSE"
          ? "the port is already in use (choose another with --port, or --port 0 for a free one)"
          : err.message;
      throw new StartupError(`cannot listen on 127.0.0.1:${opts.port}: ${why}`);
    });
    stops.push(() => balancer.close());
    const url = `https://127.0.0.1:${balancer.port}`;
    const connection = nodeConnection(url, pki.admin);
    const admin = httpClientFor(connection, { userAgent: "karmada-up" });
    stops.push(async () => admin.close());
    return {
      url,
      port: balancer.port,
      connection,
      admin,
      nodes,
      etcdEndpoints: etcd.endpoints,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** The lines `up --ha` prints about its nodes: where each is, its processes, its logs. */
export function describeNodes(ha: HaControlPlane): string {
  const lines = [`API servers behind the load balancer at ${ha.url}:`];
  for (const [i, n] of ha.nodes.entries()) {
    const p = n.processes;
    lines.push(
      `  ${n.name}: ${n.url} (context karmada-apiserver-${i + 1}), pids apiserver ${p.apiserver.pid}, controller-manager ${p.controllerManager.pid}, scheduler ${p.scheduler.pid}; etcd member at ${n.etcdEndpoint}; logs in ${n.logDir}`,
      `    metrics: its API server's /metrics, controller-manager ${n.metrics.controllerManager}, scheduler ${n.metrics.scheduler}`,
    );
  }
  return lines.join("\n");
}
