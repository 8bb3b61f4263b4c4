/**
 * The crash trials' fleet: every component its own process with its own identity over real
 * TLS: `karmada apiserver` on SQLite or on a local TLS etcd, `controller-manager`,
 * `scheduler`, two Push members and one Pull member as `karmada member-sim` processes keeping
 * their objects in SQLite, and `karmada agent` for the Pull member (registered with a bootstrap
 * token by `karmadactl register`, as a user would). Every listening port is fixed at start, so a
 * killed process comes back with the same flags, the same data and the same address.
 */

import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isObject, type StoredObject } from "../src/api/meta.ts";
import { RESOURCES } from "../src/client/client.ts";
import type { HttpClient } from "../src/client/http.ts";
import { httpClientFor, kubeconfigFor, loadKubeconfig, writeKubeconfig } from "../src/client/kubeconfig.ts";
import { CONTROLLER_MANAGER_USER, SCHEDULER_USER } from "../src/karmada/rbac.ts";
import { issueClientCertificate } from "../src/pki/cluster-pki.ts";
import { type LocalEtcd, startLocalEtcd } from "../src/storage/etcd/local-etcd.ts";
import { writeApiserverPki, writeEtcdTls } from "../test/support/pki-files.ts";
import { Component, freePort, KARMADACTL_BIN } from "./process.ts";

/** Components log at `quiet` unless TRIALS_LOG_LEVEL says otherwise (with TRIALS_LOG_DIR, to read why a run was slow). */
const logLevel = (quiet: string): string => `--log-level=${process.env.TRIALS_LOG_LEVEL ?? quiet}`;

export type Backend = "sqlite" | "etcd";
export const PUSH_MEMBERS = ["member1", "member2"] as const;
export const PULL_MEMBER = "pull1";
export const MEMBERS = [...PUSH_MEMBERS, PULL_MEMBER] as const;

/** Short leases, so a restarted elected component takes over within seconds of its crash. */
const LEASE = [
  "--leader-elect-lease-duration=3s",
  "--leader-elect-renew-deadline=2s",
  "--leader-elect-retry-period=500ms",
];
const CLIENT_TIMEOUT_MS = 15_000;

export interface Fleet {
  backend: Backend;
  apiserver: Component;
  controllerManager: Component;
  scheduler: Component;
  agent: Component;
  members: Record<string, Component>;
  etcd: LocalEtcd | undefined;
  /** The control plane as its administrator. */
  admin: HttpClient;
  /** Each member as its administrator. */
  memberClients: Record<string, HttpClient>;
  /** Every component process, in start order. */
  components(): Component[];
  stop(): Promise<void>;
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [file, ...args], { timeout: 120_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${args.slice(0, 2).join(" ")}: ${stdout}${stderr}`)) : resolve(stdout),
    ),
  );
}

function readyStatus(cluster: StoredObject): string | undefined {
  const conditions =
    isObject(cluster.status) && Array.isArray(cluster.status.conditions) ? cluster.status.conditions : [];
  const ready = conditions.find((c) => isObject(c) && c.type === "Ready");
  return isObject(ready) ? String(ready.status) : undefined;
}

/** Polls every 250 ms until `check` is truthy or `ms` pass. */
export async function waitFor(check: () => Promise<boolean>, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`);
}

/**
 * Where an API server of the trials stores: a SQLite file, or a local etcd serving TLS with
 * client certificates (its CA, serving and client files written beside the others).
 */
export async function startStorage(
  backend: Backend,
  file: (name: string) => string,
): Promise<{ flags: string[]; etcd?: LocalEtcd }> {
  if (backend === "sqlite") return { flags: [`--storage=sqlite://${file("karmada.db")}`] };
  const etcdTls = await writeEtcdTls(file);
  const etcd = await startLocalEtcd({ tls: etcdTls.tls });
  return { flags: etcdTls.apiserverFlags([etcd.endpoint]), etcd };
}

/** Every member cluster Ready in the control plane. */
export async function clustersReady(admin: HttpClient): Promise<boolean> {
  const list = await admin.list(RESOURCES.clusters, undefined);
  const ready = new Set(list.items.filter((c) => readyStatus(c) === "True").map((c) => c.metadata.name));
  return MEMBERS.every((m) => ready.has(m));
}

export async function startFleet(backend: Backend, log: (line: string) => void): Promise<Fleet> {
  const dir = await mkdtemp(join(tmpdir(), `karmada-trials-${backend}-`));
  const file = (name: string) => join(dir, name);
  const started: Component[] = [];
  let etcd: LocalEtcd | undefined;
  const clients: HttpClient[] = [];
  // Every component restarts when it exits on its own, as under a kubelet.
  const supervise = { supervised: true, log };
  const stop = async (): Promise<void> => {
    for (const c of clients) c.close();
    for (const c of [...started].reverse()) await c.stop();
    await etcd?.destroy();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const { pki, servingFlags, signingFlags } = await writeApiserverPki(file);
    const store = await startStorage(backend, file);
    etcd = store.etcd;
    const storage = store.flags;

    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    const apiserver = new Component(
      "apiserver",
      [
        "apiserver",
        `--secure-port=${port}`,
        ...servingFlags(file("apiserver-certs")),
        ...signingFlags,
        "--enable-bootstrap-token-auth",
        ...storage,
        logLevel("warn"),
      ],
      /listening on (https:\/\/\S+)/,
      supervise,
    );
    started.push(apiserver);
    await apiserver.start();
    log(`  ${backend}: apiserver on ${url}`);

    const members: Record<string, Component> = {};
    for (const name of MEMBERS) {
      const member = new Component(
        name,
        [
          "member-sim",
          `--name=${name}`,
          `--port=${await freePort()}`,
          `--cert-dir=${file(`${name}-certs`)}`,
          `--storage=sqlite://${file(`${name}.db`)}`,
          `--kubeconfig-out=${file(`${name}.config`)}`,
          "--nodes=3",
          "--node-pods=300",
          logLevel("error"),
        ],
        /listening on (https:\/\/\S+)/,
        supervise,
      );
      started.push(member);
      members[name] = member;
      await member.start();
    }
    const admin = httpClientFor(
      { server: url, caData: pki.ca.certPem, certData: pki.admin.certPem, keyData: pki.admin.keyPem },
      { userAgent: "crash-trials", timeoutMs: CLIENT_TIMEOUT_MS },
    );
    clients.push(admin);
    const memberConns = Object.fromEntries(
      await Promise.all(
        MEMBERS.map(
          async (m) => [m, await loadKubeconfig({ path: file(`${m}.config`), context: m })] as const,
        ),
      ),
    );
    const memberClients: Record<string, HttpClient> = {};
    for (const m of MEMBERS) {
      memberClients[m] = httpClientFor(memberConns[m]!, {
        userAgent: "crash-trials",
        timeoutMs: CLIENT_TIMEOUT_MS,
      });
      clients.push(memberClients[m]);
    }
    const fleetConfig = file("fleet.config");
    await writeKubeconfig(
      fleetConfig,
      kubeconfigFor([
        {
          name: "karmada-apiserver",
          connection: {
            server: url,
            caData: pki.ca.certPem,
            certData: pki.admin.certPem,
            keyData: pki.admin.keyPem,
          },
        },
        ...MEMBERS.map((m) => ({ name: m, connection: memberConns[m]! })),
      ]),
    );

    const identity = async (name: string, commonName: string): Promise<string> => {
      const cert = await issueClientCertificate(pki, { commonName });
      const path = file(`${name}.kubeconfig`);
      await writeKubeconfig(
        path,
        kubeconfigFor([
          {
            name: "karmada-apiserver",
            connection: { server: url, caData: pki.ca.certPem, certData: cert.certPem, keyData: cert.keyPem },
          },
        ]),
      );
      return path;
    };
    const elected = (name: string, kubeconfig: string): string[] => [
      name,
      `--kubeconfig=${kubeconfig}`,
      ...LEASE,
      "--health-probe-bind-address=0",
      "--metrics-bind-address=0",
      logLevel("error"),
    ];
    const controllerManager = new Component(
      "controller-manager",
      elected("controller-manager", await identity("controller-manager", CONTROLLER_MANAGER_USER)),
      /controller-manager (\S+) started/,
      supervise,
    );
    const scheduler = new Component(
      "scheduler",
      elected("scheduler", await identity("scheduler", SCHEDULER_USER)),
      /scheduler (\S+) started/,
      supervise,
    );
    started.push(controllerManager, scheduler);
    await controllerManager.start();
    await scheduler.start();

    for (const m of PUSH_MEMBERS) {
      const out = await run(KARMADACTL_BIN, [
        "join",
        m,
        `--kubeconfig=${fleetConfig}`,
        "--karmada-context=karmada-apiserver",
        `--cluster-kubeconfig=${fleetConfig}`,
        `--cluster-context=${m}`,
      ]);
      if (!out.includes(`cluster(${m}) is joined successfully`)) throw new Error(`join ${m}: ${out}`);
    }
    // Pull mode as a user does it: a bootstrap token, `karmadactl register` from the member's
    // side (it leaves the agent's kubeconfig in the member), then the agent reads it there.
    const registerCommand = await run(KARMADACTL_BIN, [
      "token",
      "create",
      "--print-register-command",
      `--kubeconfig=${fleetConfig}`,
      "--karmada-context=karmada-apiserver",
    ]);
    const registerArgs = registerCommand.trim().split(/\s+/).slice(2);
    await run(KARMADACTL_BIN, [
      "register",
      ...registerArgs,
      `--kubeconfig=${fleetConfig}`,
      `--context=${PULL_MEMBER}`,
      `--cluster-name=${PULL_MEMBER}`,
    ]);
    const agent = new Component(
      "agent",
      [
        "agent",
        // Only the member's credentials: the agent's own for the control plane are in the member.
        `--kubeconfig=${file(`${PULL_MEMBER}.config`)}`,
        `--cluster-context=${PULL_MEMBER}`,
        `--cluster-name=${PULL_MEMBER}`,
        ...LEASE,
        "--health-probe-bind-address=0",
        "--metrics-bind-address=0",
        logLevel("error"),
      ],
      /agent for cluster \S+ \(Pull mode\) (started)/,
      supervise,
    );
    started.push(agent);
    await agent.start();
    await waitFor(() => clustersReady(admin), "every member Ready", 120_000);
    log(`  ${backend}: fleet ready (${MEMBERS.join(", ")})`);
    return {
      backend,
      apiserver,
      controllerManager,
      scheduler,
      agent,
      members,
      etcd,
      admin,
      memberClients,
      components: () => [...started],
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
