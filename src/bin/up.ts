/**
 * `karmada up`: the local all-in-one, shaped like upstream's local-up script. The control
 * plane (API server, controllers, scheduler) runs in this process on SQLite under the data directory;
 * each member is a `karmada member-sim` child process (so it can be killed) with its own
 * SQLite file and its own CA; members are joined in Push mode except member3, which is
 * registered in Pull mode as `karmadactl register` does it (a bootstrap token, TLS bootstrap,
 * the agent's credentials in the member's Secret) and served by an agent reading them there;
 * `<data-dir>/karmada.config` gets contexts `karmada-apiserver` and `member1..N`, with CAs and
 * client certificates inline. Everything is HTTPS with real credentials: the control plane's
 * PKI is in `<data-dir>/pki` (the user's own CA when given), the controller manager and the
 * scheduler run as their own users with least privilege. Running `up` again on the same
 * directory resumes.
 */

import type { ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import { BOOTSTRAP_TOKEN_NAMESPACE, bootstrapSecretName } from "../api/bootstrap-token.ts";
import { isObject, type StoredObject } from "../api/meta.ts";
import { AUTHENTICATED } from "../apiserver/authn/authenticator.ts";
import type { UserInfo } from "../apiserver/context.ts";
import { secureServingFrom } from "../apiserver/secure-serving.ts";
import type { ApiServer } from "../apiserver/server.ts";
import { DEFAULT_CLUSTER_NAMESPACE, runJoin } from "../cli/commands/join.ts";
import { DEFAULT_AGENT_IMAGE, runRegister } from "../cli/commands/register.ts";
import { createBootstrapToken, DEFAULT_TOKEN_OPTIONS } from "../cli/commands/token.ts";
import { clientFactory } from "../cli/factory.ts";
import type { CommandIO } from "../cli/io.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import { type ClusterConnection, type HttpClient, pemOf } from "../client/http.ts";
import {
  httpClientFor,
  type KubeconfigConnection,
  kubeconfigFor,
  loadKubeconfig,
  writeKubeconfig,
} from "../client/kubeconfig.ts";
import { LocalClient } from "../client/local.ts";
import {
  agentKubeconfigFromSecret,
  KARMADA_KUBECONFIG_SECRET,
  rotatableConnection,
} from "../cluster/agent-credentials.ts";
import { publishClusterInfo } from "../cluster/cluster-info.ts";
import { REPORTED_SECRETS } from "../cluster/register.ts";
import type { ControllerOptions } from "../controllers/context.ts";
import { schedulerControllers } from "../controllers/index.ts";
import { startLocalDashboard } from "../dashboard/local.ts";
import { CONTROLLER_MANAGER_USER, SCHEDULER_USER } from "../karmada/rbac.ts";
import type { Logger } from "../log.ts";
import { isNotFound } from "../machinery/errors.ts";
import { createMetricsRegistry, type Registry } from "../metrics/registry.ts";
import { type ClusterPki, loadOrCreateClusterPki } from "../pki/cluster-pki.ts";
import { type CertificateAndKey, certificateInfo, publicKeyPin } from "../pki/x509.ts";
import { startAgent } from "./agent.ts";
import { startChild, stopChild } from "./children.ts";
import { StartupError, startControlPlane } from "./control-plane.ts";
import {
  DEFAULT_LEADER_ELECTION,
  SCHEDULER_LEASE,
  startElectedControllerManager,
} from "./controller-manager.ts";
import { describeNodes, type HaComponentArgs, type HaControlPlane, startHaControlPlane } from "./up-ha.ts";

/** The member registered in Pull mode, as in upstream's local-up. */
export const PULL_MEMBER = "member3";

export interface UpOptions {
  dataDir: string;
  port: number;
  members: number;
  /** The command that starts a member simulator (`[node, bin/karmada]`). */
  memberCommand: string[];
  /** A custom-resource stage file every member runs (`member-sim --stages`). */
  memberStages?: string;
  controllerOptions?: Partial<ControllerOptions>;
  /** The default not-ready / unreachable toleration seconds of policy admission (300 each). */
  defaultTolerationSeconds?: { notReady?: number; unreachable?: number };
  /** The control plane's `--request-timeout` in ms (default one minute). */
  requestTimeoutMs?: number;
  /** How long to wait for the clusters to be Ready before reporting which are not (60 s). */
  readyTimeoutMs?: number;
  /** The user's own CA for the control plane (`--ca-cert-file`/`--ca-key-file`); default: a new one in `<data-dir>/pki`. */
  ca?: CertificateAndKey;
  /**
   * `--ha`: three etcd members and three nodes of separate processes (see up-ha.ts), started
   * with these flags, instead of one control plane in this process on SQLite.
   */
  ha?: HaComponentArgs;
  /** Start the web dashboard on 127.0.0.1 as the local admin (`port` 0: a free port). */
  dashboard?: { port: number };
  log: Logger;
}

export interface RunningUp {
  url: string;
  dataDir: string;
  kubeconfig: string;
  members: Array<{ name: string; url: string; process: ChildProcess }>;
  /** The control plane's certificates and keys. */
  pki: ClusterPki;
  /** With `--ha`: the nodes and etcd members. */
  ha?: HaControlPlane;
  /** The dashboard's URL, and what to know about it (another port, or why it did not start). */
  dashboard?: { url?: string; note?: string };
  stop(): Promise<void>;
}

/** Our components' identities (upstream's dev-deploy common names), for their client certificates and in-process clients. */
export const COMPONENTS = [
  { name: "karmada-controller-manager", commonName: CONTROLLER_MANAGER_USER },
  { name: "karmada-scheduler", commonName: SCHEDULER_USER },
] as const;

function componentUser(commonName: string): UserInfo {
  return { name: commonName, groups: [AUTHENTICATED] };
}

async function startMember(
  cmd: string[],
  name: string,
  dir: string,
  index: number,
  stages: string | undefined,
): Promise<{ url: string; process: ChildProcess }> {
  const args = [
    "member-sim",
    "--name",
    name,
    "--port",
    "0",
    "--storage",
    `sqlite://${join(dir, `${name}.db`)}`,
    "--region",
    `region-${index}`,
    "--zone",
    `zone-${index}`,
    "--provider",
    "karmada-ts",
    // Its own CA, kept across restarts (the control plane holds its service-account tokens).
    "--cert-dir",
    join(dir, `${name}-pki`),
    "--kubeconfig-out",
    join(dir, `${name}.config`),
    ...(stages ? ["--stages", stages] : []),
  ];
  // The member writes its kubeconfig before it prints that it listens.
  const started = await startChild(cmd, args, {
    what: `member ${name}`,
    logFile: join(dir, `${name}.log`),
    readyLine: / listening on (\S+)/,
  });
  return { url: started.ready, process: started.process };
}

/** Joins a member in Push mode, or points its Cluster at the member's new port when resuming. */
async function joinOrResume(
  local: Client,
  factory: ReturnType<typeof clientFactory>,
  kubeconfig: string,
  member: { name: string; url: string },
  io: CommandIO,
): Promise<void> {
  let existing: StoredObject | undefined;
  try {
    existing = await local.get(RESOURCES.clusters, undefined, member.name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  if (existing) {
    await pointAt(local, member, existing);
    io.stdout.write(`  ${member.name}: already joined, now at ${member.url}\n`);
    return;
  }
  io.stdout.write(`  joining ${member.name} (${member.url}) in Push mode ...\n`);
  await runJoin(
    {
      name: member.name,
      clusterKubeconfig: kubeconfig,
      clusterContext: member.name,
      clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
      dryRun: false,
    },
    { stdout: { write: (t) => io.stdout.write(`    ${t}`) }, stderr: io.stderr },
    factory,
  );
}

/** A member's kubeconfig as `member-sim --kubeconfig-out` wrote it: its URL, CA and admin certificate. */
async function memberConnection(dir: string, name: string): Promise<KubeconfigConnection> {
  return loadKubeconfig({ path: join(dir, `${name}.config`), context: name });
}

/**
 * Registers the Pull member as `karmadactl token create` + `karmadactl register` do (the token
 * is deleted once used), unless it was registered before (its Secret is in the member).
 */
async function registerPullMember(
  admin: Client,
  member: { name: string; url: string; client: HttpClient },
  controlPlane: { port: number; caPem: string },
  io: CommandIO,
): Promise<void> {
  let existing: string | undefined;
  try {
    existing = await agentKubeconfigFromSecret(member.client, "karmada-system");
  } catch {
    // Not registered yet.
  }
  if (existing !== undefined) {
    await followControlPlane(member.client, existing, controlPlane.port);
    io.stdout.write(`  ${member.name}: already registered in Pull mode\n`);
    return;
  }
  io.stdout.write(`  registering ${member.name} (${member.url}) in Pull mode with a bootstrap token ...\n`);
  const token = await createBootstrapToken(admin, {
    ...DEFAULT_TOKEN_OPTIONS,
    ttlMs: 3_600_000,
    description: `karmada up: registration of ${member.name}`,
  });
  const indent = {
    stdout: { write: (t: string) => io.stdout.write(t.replace(/^(?=.)/gm, "    ")) },
    stderr: io.stderr,
  };
  try {
    await runRegister(
      {
        endpoint: `127.0.0.1:${controlPlane.port}`,
        token,
        caCertHashes: [publicKeyPin(controlPlane.caPem)],
        unsafeSkipCaVerification: false,
        clusterName: member.name,
        member: { client: member.client, server: member.url },
        namespace: "karmada-system",
        clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
        enableCertRotation: true,
        discoveryTimeoutMs: 60_000,
        discoveryRetryMs: 200,
        agentImage: DEFAULT_AGENT_IMAGE,
        agentReplicas: 1,
        certExpirationSeconds: 31_536_000,
        dryRun: false,
      },
      indent,
    );
  } finally {
    await admin
      .delete(RESOURCES.secrets, BOOTSTRAP_TOKEN_NAMESPACE, bootstrapSecretName(token.split(".")[0]!))
      .catch(() => undefined);
  }
}

/**
 * A resumed `up` may serve on another port (`--port 0`): the agent's kubeconfig in the member
 * is pointed at the control plane's current address, as an administrator would re-register.
 */
async function followControlPlane(member: Client, kubeconfig: string, port: number): Promise<void> {
  const doc = YAML.parse(kubeconfig) as { clusters?: Array<{ cluster?: { server?: string } }> };
  const server = `https://127.0.0.1:${port}`;
  const cluster = doc.clusters?.[0]?.cluster;
  if (!cluster || cluster.server === server) return;
  cluster.server = server;
  await member.patch(RESOURCES.secrets, "karmada-system", KARMADA_KUBECONFIG_SECRET, "merge", {
    data: { [KARMADA_KUBECONFIG_SECRET]: Buffer.from(YAML.stringify(doc)).toString("base64") },
  });
}

export async function runUp(opts: UpOptions, io: CommandIO): Promise<RunningUp> {
  const dataDir = resolve(opts.dataDir);
  const memberDir = join(dataDir, "members");
  const pkiDir = join(dataDir, "pki");
  if (existsSync(join(dataDir, "karmada.db")) && !existsSync(join(pkiDir, "ca.crt"))) {
    throw new StartupError(
      `${dataDir} holds a control plane made by an earlier karmada-ts without TLS; remove it (rm -rf ${dataDir}) to start afresh`,
    );
  }
  const single = existsSync(join(dataDir, "karmada.db"));
  const kept = existsSync(join(dataDir, "etcd", "cluster.json"));
  if (opts.ha && single) {
    throw new StartupError(
      `${dataDir} holds a single-process control plane (karmada.db); start --ha in a new --data-dir, or move the data with \`karmada snapshot save\` and \`karmada snapshot restore --storage etcd://...\``,
    );
  }
  if (!opts.ha && kept) {
    throw new StartupError(
      `${dataDir} holds an HA control plane (etcd/); run \`karmada up --ha\` to resume it`,
    );
  }
  mkdirSync(memberDir, { recursive: true });
  const step = (text: string): void => io.stdout.write(`${text}\n`);
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop();
    stops.length = 0;
  };

  try {
    step(
      opts.ha
        ? `Starting the Karmada control plane in HA (data in ${dataDir}) ...`
        : `Starting the Karmada control plane (data in ${dataDir}) ...`,
    );
    const pki = await loadOrCreateClusterPki(pkiDir, {
      caName: "karmada",
      ...(opts.ca ? { ca: opts.ca } : {}),
      clients: COMPONENTS.map((c) => ({ name: c.name, commonName: c.commonName })),
    });
    let cp: { url: string; port: number; connection: ClusterConnection; admin: Client };
    // One registry for everything this process runs: the API server's /metrics serves it all.
    const metrics = createMetricsRegistry();
    let inProcess: { api: ApiServer } | undefined;
    let ha: HaControlPlane | undefined;
    if (opts.ha) {
      ha = await startHaControlPlane({
        dataDir,
        pkiDir,
        pki,
        port: opts.port,
        command: opts.memberCommand,
        args: opts.ha,
        step,
      });
      stops.push(() => ha!.stop());
      cp = ha;
    } else {
      const running = await startControlPlane({
        storage: `sqlite://${join(dataDir, "karmada.db")}`,
        host: "127.0.0.1",
        port: opts.port,
        log: opts.log,
        metrics,
        ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
        ...(opts.defaultTolerationSeconds ? { defaultTolerationSeconds: opts.defaultTolerationSeconds } : {}),
        security: secureServingFrom(pki, { bootstrapTokens: true }),
        admin: pki.admin,
      });
      stops.push(() => running.stop());
      inProcess = running;
      cp = { ...running, admin: new LocalClient(running.api.context, { fieldManager: "karmada-up" }) };
    }
    const admin = cp.admin;
    await publishClusterInfo(admin, cp.url, pki.ca.certPem);

    const names = Array.from({ length: opts.members }, (_, i) => `member${i + 1}`);
    if (names.length > 0)
      step(
        `Starting ${names.length} member cluster${names.length === 1 ? "" : "s"} (${names.join(", ")}) ...`,
      );
    const started: RunningUp["members"] = [];
    const results = await Promise.allSettled(
      names.map((name, i) =>
        startMember(opts.memberCommand, name, memberDir, i + 1, opts.memberStages).then((m) => ({
          name,
          ...m,
        })),
      ),
    );
    for (const r of results) {
      if (r.status === "fulfilled") {
        started.push(r.value);
        stops.push(() => stopChild(r.value.process));
      }
    }
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;

    const kubeconfig = join(dataDir, "karmada.config");
    const memberConns = await Promise.all(started.map((m) => memberConnection(memberDir, m.name)));
    await writeKubeconfig(
      kubeconfig,
      kubeconfigFor([
        { name: "karmada-apiserver", connection: cp.connection },
        ...(ha?.nodes ?? []).map((n, i) => ({
          name: `karmada-apiserver-${i + 1}`,
          connection: n.connection,
        })),
        ...started.map((m, i) => ({ name: m.name, connection: { ...memberConns[i]!, server: m.url } })),
      ]),
    );
    // Each component's own kubeconfig, for running it as its own process against this control plane.
    for (const c of COMPONENTS) {
      const cert = pki.clients[c.name]!;
      await writeKubeconfig(join(dataDir, `${c.name}.config`), {
        clusters: [{ name: "karmada-apiserver", server: cp.url, caData: pki.ca.certPem }],
        users: [{ name: c.name, certData: cert.certPem, keyData: cert.keyPem }],
        contexts: [{ name: "karmada-apiserver", cluster: "karmada-apiserver", user: c.name }],
        currentContext: "karmada-apiserver",
      });
    }

    const factory = clientFactory({ kubeconfig, karmadaContext: "karmada-apiserver" }, {});
    try {
      for (const m of started) {
        if (m.name === PULL_MEMBER) continue;
        await joinOrResume(admin, factory, kubeconfig, m, io);
      }
    } finally {
      factory.close();
    }
    const pull = started.find((m) => m.name === PULL_MEMBER);
    // A resumed Pull member has moved to a new port; its agent may not change its Cluster's
    // spec (least privilege), so the administrator points it at the new address.
    if (pull) await pointAt(admin, pull);

    // The controllers start once every Cluster points at its member's current address, so a
    // resumed fleet is not first probed at last run's ports (and held NotReady for the
    // success threshold). They run before the Pull registration: it waits for their approval.
    const gates = opts.controllerOptions?.features?.toString();
    step(`Feature gates: ${gates || "upstream's defaults"} (--feature-gates to change)`);
    if (inProcess) startInProcessControllers(inProcess.api, opts, dataDir, stops, metrics);

    if (pull) {
      const index = started.indexOf(pull);
      const memberConn = memberConns[index]!;
      const memberClient = httpClientFor(memberConn, { userAgent: "karmada-agent", metrics });
      stops.push(async () => memberClient.close());
      await registerPullMember(
        admin,
        { ...pull, client: memberClient },
        { port: cp.port, caPem: pki.ca.certPem },
        io,
      );
      // The agent, as its Deployment would run it: credentials from the member's Secret.
      const agentConn = await loadKubeconfig({
        contents: await agentKubeconfigFromSecret(memberClient, "karmada-system"),
      });
      const rotating = rotatableConnection(agentConn);
      const karmada = httpClientFor(rotating.conn, { userAgent: "karmada-agent", metrics });
      stops.push(async () => karmada.close());
      const agent = await startAgent({
        karmada,
        member: {
          client: memberClient,
          server: pull.url,
          insecureSkipTLSVerify: false,
          settings: memberConn,
        },
        register: {
          name: pull.name,
          clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
          reportSecrets: REPORTED_SECRETS,
        },
        controllers: ["*", "certRotation"],
        options: { ...opts.controllerOptions, onAgentCertificateRotated: (cert) => rotating.rotate(cert) },
        leaderElection: { ...DEFAULT_LEADER_ELECTION, identity: upIdentity(dataDir) },
        log: opts.log.child({ component: "agent", cluster: pull.name }),
        metrics,
      });
      stops.push(() => agent.stop());
      const agentIdentity = agentConn.certData
        ? certificateInfo(pemOf(agentConn.certData)).commonName
        : agentConn.user;
      io.stdout.write(`  the agent of ${pull.name} runs as ${agentIdentity} and reports its status\n`);
    }

    step("Waiting for the clusters to be Ready ...");
    const notReady = await waitClustersReady(
      admin,
      started.map((m) => m.name),
      opts.readyTimeoutMs ?? 60_000,
    );
    if (notReady.length > 0) {
      step(
        `  not Ready yet: ${notReady.join(", ")} (see \`kubectl describe cluster\` and ${join(dataDir, "karmada.log")})`,
      );
    }

    return {
      url: cp.url,
      dataDir,
      kubeconfig,
      members: started,
      pki,
      ...(ha ? { ha } : {}),
      ...(await startUpDashboard(cp.connection, opts, stops)),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * The dashboard when asked for, as the local admin on 127.0.0.1 (`{}` when not); one that
 * cannot start is reported, not fatal.
 */
async function startUpDashboard(
  connection: ClusterConnection,
  opts: UpOptions,
  stops: Array<() => Promise<void>>,
): Promise<Pick<RunningUp, "dashboard">> {
  if (!opts.dashboard) return {};
  try {
    const { dashboard, note } = await startLocalDashboard({
      connection,
      port: opts.dashboard.port,
      log: opts.log.child({ component: "dashboard" }),
    });
    stops.push(() => dashboard.close());
    return { dashboard: { url: dashboard.url, ...(note ? { note } : {}) } };
  } catch (err) {
    return { dashboard: { note: `the dashboard did not start: ${(err as Error).message}` } };
  }
}

/**
 * The controller manager and the scheduler of the single-process `up`, in this process as
 * their own users. One identity per data directory: a restarted `up` takes its Leases back at once.
 */
function startInProcessControllers(
  api: ApiServer,
  opts: UpOptions,
  dataDir: string,
  stops: Array<() => Promise<void>>,
  metrics: Registry,
): void {
  const local = (commonName: string, fieldManager: string) =>
    new LocalClient(api.context, { user: componentUser(commonName), fieldManager });
  const identity = upIdentity(dataDir);
  const controllers = startElectedControllerManager({
    client: local(CONTROLLER_MANAGER_USER, "karmada-controller-manager"),
    log: opts.log.child({ component: "controller-manager" }),
    controllers: ["*"],
    ...(opts.controllerOptions ? { options: opts.controllerOptions } : {}),
    leaderElection: { ...DEFAULT_LEADER_ELECTION, identity },
    metrics,
  });
  stops.push(() => controllers.stop());
  const scheduler = startElectedControllerManager({
    client: local(SCHEDULER_USER, "karmada-scheduler"),
    log: opts.log.child({ component: "scheduler" }),
    controllers: ["*"],
    registry: schedulerControllers,
    ...(opts.controllerOptions ? { options: opts.controllerOptions } : {}),
    leaderElection: { ...DEFAULT_LEADER_ELECTION, name: SCHEDULER_LEASE, identity },
    metrics,
  });
  stops.push(() => scheduler.stop());
}

/** Points an already registered Cluster at its member's current address (a resumed `up`). */
async function pointAt(
  admin: Client,
  member: { name: string; url: string },
  existing?: StoredObject,
): Promise<void> {
  try {
    const cluster = existing ?? (await admin.get(RESOURCES.clusters, undefined, member.name));
    const spec = isObject(cluster.spec) ? cluster.spec : {};
    if (spec.apiEndpoint !== member.url) {
      await admin.patch(RESOURCES.clusters, undefined, member.name, "merge", {
        spec: { apiEndpoint: member.url },
      });
    }
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** Waits (bounded) for each Cluster's Ready condition to be True; returns those that are not. */
async function waitClustersReady(client: Client, names: string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let pending = names;
  while (pending.length > 0 && Date.now() < deadline) {
    const ready = await Promise.all(pending.map((name) => clusterReady(client, name)));
    pending = pending.filter((_, i) => !ready[i]);
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 100));
  }
  return pending;
}

async function clusterReady(client: Client, name: string): Promise<boolean> {
  try {
    const cluster = await client.get(RESOURCES.clusters, undefined, name);
    const status = isObject(cluster.status) ? cluster.status : {};
    const conditions = Array.isArray(status.conditions) ? status.conditions : [];
    return conditions.some((c) => isObject(c) && c.type === "Ready" && c.status === "True");
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** One leader-election identity per data directory: a restarted `up` takes its Leases back at once. */
function upIdentity(dataDir: string): string {
  return `${hostname()}_karmada-up_${dataDirId(dataDir)}`;
}

/** A short stable id for a data directory. */
function dataDirId(dir: string): string {
  return createHash("sha256").update(dir).digest("hex").slice(0, 10);
}

/** Where each component's Prometheus metrics are served, and how to read them. */
function metricsSteps(up: RunningUp): string[] {
  const members = `  kubectl --context ${up.members[0]?.name ?? "member1"} get --raw /metrics   # each member's API server`;
  if (!up.ha) {
    return [
      "Metrics (Prometheus text; the API server, controller manager, scheduler and the Pull member's agent share this process):",
      "  kubectl --context karmada-apiserver get --raw /metrics",
      members,
      "",
    ];
  }
  return [
    "Metrics: each API server's /metrics (kubectl --context karmada-apiserver-1 get --raw /metrics); the controller",
    "managers and schedulers serve theirs over HTTPS (URLs above) to a token allowed get on /metrics, e.g.:",
    "  kubectl -n karmada-system create serviceaccount prometheus",
    "  kubectl create clusterrolebinding prometheus --clusterrole=system:monitoring --serviceaccount=karmada-system:prometheus",
    `  curl -sk -H "Authorization: Bearer $(kubectl -n karmada-system create token prometheus)" ${up.ha.nodes[0]?.metrics.controllerManager ?? "<url>"}`,
    members,
    "",
  ];
}

/** What to try next, after upstream's local-up message and quick start. */
export function nextSteps(up: RunningUp): string {
  return [
    "",
    "Local Karmada is running.",
    "",
    ...(up.dashboard?.url
      ? [
          `Dashboard: ${up.dashboard.url} (as the local admin, on this machine only; --no-dashboard to leave it off)`,
        ]
      : []),
    ...(up.dashboard?.note ? [`  (${up.dashboard.note})`] : []),
    ...(up.dashboard ? [""] : []),
    "To start using your karmada, run:",
    `  export KUBECONFIG=${up.kubeconfig}`,
    "Please use 'kubectl config use-context karmada-apiserver' for the control plane,",
    ...(up.ha
      ? [
          `(through the load balancer; 'karmada-apiserver-1'..'karmada-apiserver-${up.ha.nodes.length}' reach each node's API server),`,
        ]
      : []),
    ...(up.members.length > 0
      ? [
          `and 'kubectl config use-context ${up.members.map((m) => m.name).join("/")}' to switch to the different member cluster.`,
        ]
      : ["(no simulated members: join your clusters with 'karmadactl join')."]),
    "",
    "Then try:",
    "  kubectl --context karmada-apiserver get clusters",
    ...(up.members.length > 0
      ? [
          `  kubectl --context ${up.members[Math.min(1, up.members.length - 1)]!.name} get nodes`,
          "  karmadactl get clusters",
          "  karmadactl get nodes --operation-scope members",
        ]
      : ["  karmadactl get clusters"]),
    "",
    ...(up.ha ? [describeNodes(up.ha), `etcd members: ${up.ha.etcdEndpoints.join(", ")}.`, ""] : []),
    ...metricsSteps(up),
    `Logs: ${join(up.dataDir, "karmada.log")} and ${join(up.dataDir, "members", "<name>.log")}.`,
    "Press Ctrl-C to stop everything; run the same command again to resume.",
    "",
  ].join("\n");
}
