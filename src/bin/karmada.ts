/**
 * `karmada <component>`: the only place that reads argv and the environment and exits.
 */

import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { defaultKubeconfigPath } from "../cli/factory.ts";
import type { ClusterConnection, HttpClient } from "../client/http.ts";
import {
  httpClientFor,
  inClusterConnection,
  type KubeconfigConnection,
  loadKubeconfig,
  renderKubeconfig,
} from "../client/kubeconfig.ts";
import { LocalClient } from "../client/local.ts";
import { agentKubeconfigFromSecret, rotatableConnection } from "../cluster/agent-credentials.ts";
import { publishClusterInfo } from "../cluster/cluster-info.ts";
import { REPORTED_SECRETS, type ReportedSecret } from "../cluster/register.ts";
import {
  agentControllers,
  controllers,
  isControllerEnabled,
  schedulerControllers,
} from "../controllers/index.ts";
import {
  AGENT_KUBECONFIG_OPTIONS,
  CERT_ROTATION_OPTIONS,
  CLUSTER_LEASE_OPTIONS,
  CLUSTER_MONITOR_OPTIONS,
  CLUSTER_STATUS_OPTIONS,
  CONTROLLER_OPTIONS,
  FAILOVER_OPTIONS,
} from "../controllers/options.ts";
import { createLogger, type Logger } from "../log.ts";
import { errorMessage } from "../machinery/errors.ts";
import { serveMemberCluster } from "../member-sim/cluster.ts";
import { type CustomStage, parseStageFile, StageFileError } from "../member-sim/custom-stages.ts";
import { type FaultArgs, faultFromArgs, sendFault } from "../member-sim/fault-client.ts";
import { FAULT_TYPES, FaultError } from "../member-sim/faults.ts";
import { createMetricsRegistry, type Registry } from "../metrics/registry.ts";
import { ensureHostReady, startOperator } from "../operator/run.ts";
import { createClusterPki, loadOrCreateClusterPki } from "../pki/cluster-pki.ts";
import { type CertificateAndKey, caProblem } from "../pki/x509.ts";
import { FeatureGates, UP_FEATURE_GATES } from "../runtime/features.ts";
import { type HealthProbeOptions, healthProbeOptions } from "../runtime/health-options.ts";
import { LEADER_ELECTION_OPTIONS, type LeaderElectionOptions } from "../runtime/leader-options.ts";
import { type MetricsOptions, metricsOptions } from "../runtime/metrics-options.ts";
import {
  addOptions,
  argsFor,
  mergeOptions,
  type OptionTable,
  type OptionValues,
  optionsFrom,
  pickValues,
} from "../runtime/options.ts";
import { FILTER_PLUGINS, SCORE_PLUGINS } from "../scheduler/core/plugins.ts";
import type { ScheduleOptions } from "../scheduler/core/types.ts";
import { openStore, storeUrlFromEtcdFlags } from "../storage/open.ts";
import { restoreSnapshot, SnapshotError, saveSnapshot } from "../storage/snapshot.ts";
import type { Store } from "../storage/store.ts";
import { startAgent } from "./agent.ts";
import { securityFromFlags } from "./apiserver-security.ts";
import { electedHealthChecks, startComponentEndpoints } from "./component-endpoints.ts";
import {
  AGENT_COMPATIBILITY_OPTIONS,
  AGENT_KARMADA_KUBECONFIG_OPTIONS,
  AGENT_OPTIONS,
  APISERVER_DEFAULT_STORAGE,
  APISERVER_OPTIONS,
  controllersOptions,
  FEATURE_GATES_OPTIONS,
  kubeconfigOptions,
  logLevelOptions,
  MEMBER_SIM_OPTIONS,
  OPERATOR_OPTIONS,
  REQUEST_TIMEOUT_OPTIONS,
  SCHEDULER_OPTIONS,
  STOP_WITH_STDIN_OPTIONS,
  TOLERATION_OPTIONS,
  UP_OPTIONS,
} from "./component-options.ts";
import { StartupError, startControlPlane, stopOnSignals } from "./control-plane.ts";
import {
  DEFAULT_LEADER_ELECTION,
  type LeaderElectionFlags,
  SCHEDULER_LEASE,
  startElectedControllerManager,
} from "./controller-manager.ts";
import { DASHBOARD_COMMAND, DASHBOARD_HELP, runDashboardCommand } from "./dashboard.ts";
import { nextSteps, runUp } from "./up.ts";
import type { HaComponentArgs } from "./up-ha.ts";

/** A component that cannot start says why in one line (never a stack trace) and exits 1. */
function fail(component: string, err: unknown): never {
  process.stderr.write(
    `karmada ${component}: ${err instanceof StartupError ? err.message : errorMessage(err)}\n`,
  );
  process.exit(1);
}

/** What a command's option table reads from commander's flags; a value it refuses fails the component. */
function readOptions<const Table extends OptionTable>(
  component: string,
  table: Table,
  flags: Record<string, unknown>,
): OptionValues<Table> {
  try {
    return optionsFrom(table, flags);
  } catch (err) {
    return fail(component, new StartupError((err as Error).message));
  }
}

const APISERVER_COMMAND = mergeOptions(
  APISERVER_OPTIONS,
  REQUEST_TIMEOUT_OPTIONS,
  logLevelOptions("info"),
  TOLERATION_OPTIONS,
  STOP_WITH_STDIN_OPTIONS,
);

type ApiserverFlags = OptionValues<typeof APISERVER_COMMAND>;

/** `--storage`, or the store kube-apiserver's `--etcd-*` flags describe (not both). */
function apiserverStorage(flags: ApiserverFlags): string {
  if (!flags.etcdServers) return flags.storage;
  if (flags.storage !== APISERVER_DEFAULT_STORAGE) {
    return fail("apiserver", new StartupError("give --storage or --etcd-servers, not both"));
  }
  try {
    return storeUrlFromEtcdFlags({
      servers: flags.etcdServers,
      prefix: flags.etcdPrefix,
      ...(flags.etcdCafile ? { caFile: flags.etcdCafile } : {}),
      ...(flags.etcdCertfile ? { certFile: flags.etcdCertfile } : {}),
      ...(flags.etcdKeyfile ? { keyFile: flags.etcdKeyfile } : {}),
    });
  } catch (err) {
    return fail("apiserver", new StartupError((err as Error).message));
  }
}

async function runApiserver(flags: ApiserverFlags): Promise<void> {
  const log = createLogger({
    level: flags.logLevel,
    format: flags.loggingFormat,
    fields: { component: "apiserver" },
  });
  const port = flags.port ?? flags.securePort;
  let security: Awaited<ReturnType<typeof securityFromFlags>> | undefined;
  if (flags.insecure) {
    log.warn(
      "serving plain HTTP without authentication or authorization (--insecure): for benchmarks and tests only",
    );
    process.stderr.write(
      "karmada apiserver: WARNING: --insecure: plain HTTP, no authentication, no authorization; anyone who reaches the port is cluster-admin. Never expose this.\n",
    );
  } else {
    security = await securityFromFlags(flags).catch((e) => fail("apiserver", e));
    if (security.selfSigned)
      log.info("serving with a self-signed certificate", { file: security.selfSigned });
  }
  const storage = apiserverStorage(flags);
  const cp = await startControlPlane({
    storage,
    metrics: createMetricsRegistry(),
    compactionIntervalMs: flags.etcdCompactionInterval,
    inflight: { readOnly: flags.maxRequestsInflight, mutating: flags.maxMutatingRequestsInflight },
    requestTimeoutMs: flags.requestTimeout,
    minRequestTimeoutSeconds: flags.minRequestTimeout,
    host: flags.bindAddress,
    port,
    log,
    defaultTolerationSeconds: tolerationSecondsFrom(flags),
    ...(security ? { security } : {}),
    ...(flags.advertiseAddress ? { advertiseAddress: flags.advertiseAddress } : {}),
    search: {
      disableSearch: flags.disableSearch,
      disableProxy: flags.disableProxy,
      maxCacheBytes: flags.searchCacheMaxBytes,
    },
  }).catch((e) => fail("apiserver", e));
  if (security && flags.enableBootstrapTokenAuth && security.api.rootCaPem) {
    // What `karmadactl init` sets up for bootstrap tokens: cluster-info, which register reads.
    const server = `https://${cp.api.context.externalAddress}`;
    await publishClusterInfo(
      new LocalClient(cp.api.context, { fieldManager: "karmada-apiserver" }),
      server,
      security.api.rootCaPem,
    ).catch((e) =>
      fail("apiserver", new StartupError(`cannot publish kube-public/cluster-info: ${errorMessage(e)}`)),
    );
  }
  log.info("serving", { url: cp.url, port: cp.port, storage: cp.store.backend });
  process.stdout.write(`karmada apiserver listening on ${cp.url}\n`);
  stopWithStdin(
    flags,
    stopOnSignals(() => cp.stop(), log),
  );
}

type FeatureGatesFlags = OptionValues<typeof FEATURE_GATES_OPTIONS>;

/** `--feature-gates`, or a startup error saying which gate or value to fix. */
function featuresFrom(component: string, flags: FeatureGatesFlags): FeatureGates {
  try {
    return FeatureGates.parse(flags.featureGates ?? []);
  } catch (err) {
    fail(component, new StartupError((err as Error).message));
  }
}

function tolerationSecondsFrom(flags: OptionValues<typeof TOLERATION_OPTIONS>): {
  notReady: number;
  unreachable: number;
} {
  return {
    notReady: flags.defaultNotReadyTolerationSeconds,
    unreachable: flags.defaultUnreachableTolerationSeconds,
  };
}

const UP_COMMAND = mergeOptions(
  UP_OPTIONS,
  REQUEST_TIMEOUT_OPTIONS,
  logLevelOptions("warn"),
  CLUSTER_STATUS_OPTIONS,
  FAILOVER_OPTIONS,
  TOLERATION_OPTIONS,
  FEATURE_GATES_OPTIONS,
);

type UpFlags = OptionValues<typeof UP_COMMAND>;

/** `--ca-cert-file`/`--ca-key-file`: the user's own CA, checked to be a CA whose key matches. */
function userCa(flags: UpFlags): CertificateAndKey | undefined {
  if (!flags.caCertFile && !flags.caKeyFile) return undefined;
  if (!flags.caCertFile || !flags.caKeyFile) {
    fail("up", new StartupError("--ca-cert-file and --ca-key-file go together"));
  }
  let ca: CertificateAndKey;
  try {
    ca = { certPem: readFileSync(flags.caCertFile, "utf8"), keyPem: readFileSync(flags.caKeyFile, "utf8") };
  } catch (err) {
    fail("up", new StartupError(`cannot read the CA: ${(err as Error).message}`));
  }
  const problem = caProblem(ca);
  if (problem) fail("up", new StartupError(`--ca-cert-file ${flags.caCertFile}: ${problem}`));
  return ca;
}

/**
 * `up --ha`: the flags each node's components get, from `up`'s own (the options the
 * single-process `up` hands its in-process controllers).
 */
function haComponentArgs(flags: UpFlags, features: FeatureGates): HaComponentArgs {
  const gates = features.toString();
  return {
    apiserver: [...argsFor(TOLERATION_OPTIONS, flags), ...argsFor(REQUEST_TIMEOUT_OPTIONS, flags)],
    controllerManager: [
      ...argsFor(CONTROLLER_OPTIONS, pickValues(flags, CONTROLLER_OPTIONS)),
      ...(gates ? [`--feature-gates=${gates}`] : []),
    ],
    scheduler: gates ? [`--feature-gates=${gates}`] : [],
    logLevel: flags.logLevel,
  };
}

async function runUpCommand(flags: UpFlags): Promise<void> {
  // Checked here, so that a bad file is one clear line rather than every member failing.
  if (flags.memberStages) readStages("up", "--member-stages", flags.memberStages);
  const ca = userCa(flags);
  // The terminal is for the user; component logs go to <data-dir>/karmada.log (members: members/<name>.log).
  mkdirSync(resolve(flags.dataDir), { recursive: true });
  const logFile = createWriteStream(join(resolve(flags.dataDir), "karmada.log"), { flags: "a" });
  const log = createLogger({
    level: flags.logLevel,
    format: flags.loggingFormat,
    sink: logFile,
    fields: { component: "up" },
  });
  const io = { stdout: process.stdout, stderr: process.stderr };
  const features = UP_FEATURE_GATES.with(featuresFrom("up", flags).settings());
  const up = await runUp(
    {
      dataDir: flags.dataDir,
      port: flags.port,
      members: flags.members,
      memberCommand: [process.execPath, ...process.execArgv, process.argv[1]!],
      ...(flags.memberStages ? { memberStages: resolve(flags.memberStages) } : {}),
      controllerOptions: { ...pickValues(flags, CONTROLLER_OPTIONS), features },
      ...(flags.ha ? { ha: haComponentArgs(flags, features) } : {}),
      requestTimeoutMs: flags.requestTimeout,
      defaultTolerationSeconds: tolerationSecondsFrom(flags),
      ...(ca ? { ca } : {}),
      ...(flags.dashboard ? { dashboard: { port: flags.dashboardPort } } : {}),
      log,
    },
    io,
  ).catch((err: unknown) => fail("up", err));
  process.stdout.write(nextSteps(up));
  stopOnSignals(async () => {
    process.stdout.write("Stopping the members and the control plane ...\n");
    await up.stop();
  }, log);
}

/** Probes and metrics, as the flags ask (component-endpoints.ts); a problem fails the component in one line. */
function endpoints(
  component: string,
  flags: HealthProbeOptions & Partial<MetricsOptions>,
  opts: Omit<Parameters<typeof startComponentEndpoints>[2], "write">,
): Promise<Array<() => Promise<void>>> {
  return startComponentEndpoints(component, flags, {
    ...opts,
    write: (line) => process.stdout.write(line),
  }).catch((err) => fail(component, err));
}

const CONTROLLER_MANAGER_COMMAND = mergeOptions(
  kubeconfigOptions("the Karmada control plane"),
  controllersOptions(Object.keys(controllers)),
  STOP_WITH_STDIN_OPTIONS,
  LEADER_ELECTION_OPTIONS,
  healthProbeOptions(":10357"),
  metricsOptions(":8080"),
  CLUSTER_STATUS_OPTIONS,
  FAILOVER_OPTIONS,
  FEATURE_GATES_OPTIONS,
  CLUSTER_MONITOR_OPTIONS,
  logLevelOptions("info"),
);

type ControllerManagerFlags = OptionValues<typeof CONTROLLER_MANAGER_COMMAND>;

/** `--controllers` may only name controllers the component has. */
function checkControllers(component: string, names: readonly string[], known: readonly string[]): void {
  const unknown = names.map((c) => c.replace(/^-/, "")).filter((c) => c !== "*" && !known.includes(c));
  if (unknown.length > 0) {
    fail(
      component,
      new StartupError(`--controllers: unknown controller ${unknown.join(", ")}; known: ${known.join(", ")}`),
    );
  }
}

async function kubeconfigClient(
  component: string,
  flag: string,
  path: string,
  context: string | undefined,
  metrics?: Registry,
): Promise<{ client: HttpClient; conn: KubeconfigConnection }> {
  try {
    const conn = await loadKubeconfig({ path, ...(context ? { context } : {}) });
    return {
      client: httpClientFor(conn, { userAgent: `karmada-${component}`, ...(metrics ? { metrics } : {}) }),
      conn,
    };
  } catch (err) {
    fail(component, new StartupError(`${flag}: cannot load kubeconfig ${path}: ${(err as Error).message}`));
  }
}

/**
 * The client that renews a component's leader Lease: its own connection and concurrency, as
 * upstream's components build a separate "leader-election" client, so that a backlog of
 * controller requests (a restart's resync, a slow API server) cannot hold a renewal past its
 * deadline and make the process exit.
 */
function leaderElectionClientFor(conn: ClusterConnection, component: string, metrics: Registry): HttpClient {
  return httpClientFor(conn, {
    userAgent: `karmada-${component}/leader-election`,
    maxConcurrent: 2,
    metrics,
  });
}

/** The Lease the flags describe; the controller manager's name unless the caller gives its own. */
function leaderElectionFrom(flags: Partial<LeaderElectionOptions>): LeaderElectionFlags {
  return { ...DEFAULT_LEADER_ELECTION, ...pickValues(flags, LEADER_ELECTION_OPTIONS) };
}

type StopWithStdinFlag = OptionValues<typeof STOP_WITH_STDIN_OPTIONS>;

/** `--stop-with-stdin`: stop when stdin closes, however `up` ended. */
function stopWithStdin(flags: StopWithStdinFlag, stop: () => void): void {
  if (flags.stopWithStdin) process.stdin.on("end", stop).on("error", stop).resume();
}

/** Runs a started component until SIGINT/SIGTERM; a standby has only unref'd timers, so something must keep the process alive. */
function runUntilSignalled(stop: () => Promise<void>, log: Logger, flags: StopWithStdinFlag): void {
  const keepAlive = setInterval(() => {}, 60_000);
  const handler = stopOnSignals(async () => {
    clearInterval(keepAlive);
    await stop();
  }, log);
  stopWithStdin(flags, handler);
}

const leaderElectionLost = (component: string) => (): void => {
  process.stderr.write(`karmada ${component}: leader election lost\n`);
  process.exit(1);
};

async function runControllerManagerCommand(flags: ControllerManagerFlags): Promise<void> {
  const log = createLogger({
    level: flags.logLevel,
    format: flags.loggingFormat,
    fields: { component: "controller-manager" },
  });
  const features = featuresFrom("controller-manager", flags);
  const names = flags.controllers ?? ["*"];
  checkControllers("controller-manager", names, Object.keys(controllers));
  const path = flags.kubeconfig ?? defaultKubeconfigPath(process.env);
  const metrics = createMetricsRegistry();
  const { client, conn } = await kubeconfigClient(
    "controller-manager",
    "--kubeconfig",
    path,
    flags.context,
    metrics,
  );
  const leaderElectionClient = leaderElectionClientFor(conn, "controller-manager", metrics);
  let manager: ReturnType<typeof startElectedControllerManager>;
  try {
    manager = startElectedControllerManager({
      client,
      leaderElectionClient,
      log,
      controllers: [...names],
      options: { ...pickValues(flags, CONTROLLER_OPTIONS), features },
      leaderElection: leaderElectionFrom(flags),
      onLost: leaderElectionLost("controller-manager"),
      metrics,
    });
  } catch (err) {
    // The elector rejects inconsistent durations (lease > renew deadline > 1.2 × retry period).
    fail("controller-manager", new StartupError(`--leader-elect-*: ${(err as Error).message}`));
  }
  const health = await endpoints("controller-manager", flags, {
    checks: electedHealthChecks(manager, () => manager.manager()?.informers.hasSynced() ?? true),
    metrics: { registry: metrics, delegate: client },
    log,
  });
  process.stdout.write(`karmada controller-manager ${manager.identity} started (${client.server})\n`);
  runUntilSignalled(
    async () => {
      await manager.stop();
      for (const stop of health) await stop();
      client.close();
      leaderElectionClient.close();
    },
    log,
    flags,
  );
}

const SCHEDULER_COMMAND = mergeOptions(
  kubeconfigOptions("the Karmada control plane"),
  STOP_WITH_STDIN_OPTIONS,
  LEADER_ELECTION_OPTIONS,
  healthProbeOptions(":10351"),
  metricsOptions(":8080"),
  FEATURE_GATES_OPTIONS,
  SCHEDULER_OPTIONS,
  logLevelOptions("info"),
);

type SchedulerFlags = OptionValues<typeof SCHEDULER_COMMAND>;

/** `--plugins` with upstream's semantics (`*` all, `Name` on, `-Name` off), as the scheduler core takes it. */
function scheduleOptionsFrom(flags: SchedulerFlags): ScheduleOptions {
  const known = [...new Set([...FILTER_PLUGINS, ...SCORE_PLUGINS].map((p) => p.name as string))];
  const plugins = flags.plugins ?? ["*"];
  const unknown = plugins.map((p) => p.replace(/^-/, "")).filter((p) => p !== "*" && !known.includes(p));
  if (unknown.length > 0)
    fail(
      "scheduler",
      new StartupError(`--plugins: unknown plugin ${unknown.join(", ")}; known: ${known.join(", ")}`),
    );
  const disabled = known.filter((name) => !isControllerEnabled(name, plugins));
  return {
    ...(disabled.length ? { disabledPlugins: new Set(disabled) } : {}),
    ...(flags.enableEmptyWorkloadPropagation ? { enableEmptyWorkloadPropagation: true } : {}),
  };
}

async function runSchedulerCommand(flags: SchedulerFlags): Promise<void> {
  const log = createLogger({
    level: flags.logLevel,
    format: flags.loggingFormat,
    fields: { component: "scheduler" },
  });
  const features = featuresFrom("scheduler", flags);
  const schedule = scheduleOptionsFrom(flags);
  const path = flags.kubeconfig ?? defaultKubeconfigPath(process.env);
  const metrics = createMetricsRegistry();
  const { client, conn } = await kubeconfigClient("scheduler", "--kubeconfig", path, flags.context, metrics);
  const leaderElectionClient = leaderElectionClientFor(conn, "scheduler", metrics);
  let scheduler: ReturnType<typeof startElectedControllerManager>;
  try {
    scheduler = startElectedControllerManager({
      client,
      leaderElectionClient,
      log,
      controllers: ["*"],
      registry: schedulerControllers,
      options: { features, schedule },
      leaderElection: { ...leaderElectionFrom(flags), name: SCHEDULER_LEASE },
      onLost: leaderElectionLost("scheduler"),
      metrics,
    });
  } catch (err) {
    fail("scheduler", new StartupError(`--leader-elect-*: ${(err as Error).message}`));
  }
  const health = await endpoints("scheduler", flags, {
    checks: electedHealthChecks(scheduler, () => scheduler.manager()?.informers.hasSynced() ?? true),
    metrics: { registry: metrics, delegate: client },
    log,
  });
  process.stdout.write(`karmada scheduler ${scheduler.identity} started (${client.server})\n`);
  runUntilSignalled(
    async () => {
      await scheduler.stop();
      for (const stop of health) await stop();
      client.close();
      leaderElectionClient.close();
    },
    log,
    flags,
  );
}

const OPERATOR_COMMAND = mergeOptions(
  kubeconfigOptions("the host cluster"),
  OPERATOR_OPTIONS,
  STOP_WITH_STDIN_OPTIONS,
  LEADER_ELECTION_OPTIONS,
  healthProbeOptions(":8443"),
  metricsOptions(":8080"),
  logLevelOptions("info"),
);

type OperatorFlags = OptionValues<typeof OPERATOR_COMMAND>;

/** `karmada operator`: reconciles upstream's `Karmada` objects on the host cluster its kubeconfig names. */
async function runOperatorCommand(flags: OperatorFlags): Promise<void> {
  const log = createLogger({
    level: flags.logLevel,
    format: flags.loggingFormat,
    fields: { component: "karmada-operator" },
  });
  const path = flags.kubeconfig ?? defaultKubeconfigPath(process.env);
  const metrics = createMetricsRegistry();
  const { client } = await kubeconfigClient("operator", "--kubeconfig", path, flags.context, metrics);
  const le = leaderElectionFrom(flags);
  await ensureHostReady(client, le.namespace, log).catch((err) =>
    fail(
      "operator",
      new StartupError(`cannot prepare the host cluster ${client.server}: ${errorMessage(err)}`),
    ),
  );
  let operator: ReturnType<typeof startOperator>;
  try {
    operator = startOperator({
      client,
      log,
      image: flags.karmadaImage,
      workers: flags.concurrentKarmadaSyncs,
      leaderElection: le,
      onLost: leaderElectionLost("operator"),
      metrics,
    });
  } catch (err) {
    fail("operator", new StartupError(`--leader-elect-*: ${(err as Error).message}`));
  }
  const health = await endpoints("operator", flags, {
    checks: electedHealthChecks(operator, () => operator.cachesSynced()),
    metrics: { registry: metrics, delegate: client },
    log,
  });
  process.stdout.write(`karmada operator ${operator.identity} started (${client.server})\n`);
  runUntilSignalled(
    async () => {
      await operator.stop();
      for (const stop of health) await stop();
      client.close();
    },
    log,
    flags,
  );
}

const AGENT_COMMAND = mergeOptions(
  AGENT_KARMADA_KUBECONFIG_OPTIONS,
  AGENT_KUBECONFIG_OPTIONS,
  AGENT_OPTIONS,
  controllersOptions(Object.keys(agentControllers(""))),
  CLUSTER_LEASE_OPTIONS,
  CERT_ROTATION_OPTIONS,
  AGENT_COMPATIBILITY_OPTIONS,
  LEADER_ELECTION_OPTIONS,
  healthProbeOptions(":10357"),
  metricsOptions(":8080"),
  CLUSTER_STATUS_OPTIONS,
  FEATURE_GATES_OPTIONS,
  logLevelOptions("info"),
);

type AgentFlags = OptionValues<typeof AGENT_COMMAND>;

function reportedSecrets(values: readonly string[]): ReportedSecret[] {
  const bad = values.filter((v) => v !== "None" && !REPORTED_SECRETS.includes(v as ReportedSecret));
  if (bad.length > 0 || (values.includes("None") && values.length > 1)) {
    fail(
      "agent",
      new StartupError(
        `--report-secrets: ${values.join(",")} is not valid; use KubeCredentials, KubeImpersonator (comma-separated) or None`,
      ),
    );
  }
  return values.filter((v): v is ReportedSecret => v !== "None");
}

/** The member cluster the agent serves: `--kubeconfig`, else in-cluster (a pod), else ~/.kube/config. */
async function agentMemberConnection(flags: AgentFlags): Promise<KubeconfigConnection | ClusterConnection> {
  const path = flags.kubeconfig ?? defaultKubeconfigPath(process.env);
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT;
  if (!flags.kubeconfig && !existsSync(path) && host && port) {
    return inClusterConnection(host, port).catch((err) =>
      fail("agent", new StartupError(`cannot read the pod's service account: ${(err as Error).message}`)),
    );
  }
  return loadKubeconfig({ path, ...(flags.clusterContext ? { context: flags.clusterContext } : {}) }).catch(
    (err) =>
      fail(
        "agent",
        new StartupError(`--kubeconfig: cannot load kubeconfig ${path}: ${(err as Error).message}`),
      ),
  );
}

async function runAgentCommand(flags: AgentFlags): Promise<void> {
  const log = createLogger({
    level: flags.logLevel,
    format: flags.loggingFormat,
    fields: { component: "agent" },
  });
  const features = featuresFrom("agent", flags);
  const names = flags.controllers ?? ["*"];
  checkControllers("agent", names, Object.keys(agentControllers(flags.clusterName)));
  const memberConn = await agentMemberConnection(flags);
  const metrics = createMetricsRegistry();
  const memberClient = httpClientFor(memberConn, { userAgent: "karmada-agent", metrics });
  // Without --karmada-kubeconfig, the credentials `karmadactl register` left in the member.
  let karmadaConn: KubeconfigConnection;
  try {
    karmadaConn = flags.karmadaKubeconfig
      ? await loadKubeconfig({
          path: flags.karmadaKubeconfig,
          ...(flags.karmadaContext ? { context: flags.karmadaContext } : {}),
        })
      : await loadKubeconfig({
          contents: await agentKubeconfigFromSecret(memberClient, flags.karmadaKubeconfigNamespace),
          ...(flags.karmadaContext ? { context: flags.karmadaContext } : {}),
        });
  } catch (err) {
    memberClient.close();
    const source = flags.karmadaKubeconfig
      ? `--karmada-kubeconfig: cannot load kubeconfig ${flags.karmadaKubeconfig}`
      : `no --karmada-kubeconfig, and the member's ${flags.karmadaKubeconfigNamespace}/karmada-kubeconfig Secret cannot be used`;
    fail("agent", new StartupError(`${source}: ${errorMessage(err)}`));
  }
  const rotating = rotatableConnection(karmadaConn);
  const karmada = httpClientFor(rotating.conn, { userAgent: "karmada-agent", metrics });
  const leaderElectionClient = leaderElectionClientFor(rotating.conn, "agent", metrics);
  let agent: Awaited<ReturnType<typeof startAgent>>;
  try {
    agent = await startAgent({
      karmada,
      leaderElectionClient,
      member: {
        client: memberClient,
        server: memberConn.server,
        insecureSkipTLSVerify: memberConn.insecureSkipTLSVerify === true,
        settings: memberConn,
      },
      register: {
        name: flags.clusterName,
        clusterNamespace: flags.clusterNamespace,
        reportSecrets: reportedSecrets(flags.reportSecrets ?? [...REPORTED_SECRETS]),
        ...(flags.clusterApiEndpoint ? { apiEndpoint: flags.clusterApiEndpoint } : {}),
        ...(flags.proxyServerAddress ? { proxyURL: flags.proxyServerAddress } : {}),
        ...(flags.clusterProvider ? { provider: flags.clusterProvider } : {}),
        ...(flags.clusterRegion ? { region: flags.clusterRegion } : {}),
        ...(flags.clusterZones?.length ? { zones: flags.clusterZones } : {}),
      },
      controllers: [...names],
      options: {
        ...pickValues(flags, CONTROLLER_OPTIONS),
        onAgentCertificateRotated: (cert) => rotating.rotate(cert),
        features,
      },
      leaderElection: leaderElectionFrom(flags),
      log,
      onLost: leaderElectionLost("agent"),
      metrics,
    });
  } catch (err) {
    fail("agent", new StartupError(`failed to register with karmada control plane: ${errorMessage(err)}`));
  }
  // Scrapes are authenticated by the member the agent runs in, as its in-cluster Prometheus would send them.
  const health = await endpoints("agent", flags, {
    checks: electedHealthChecks(agent, () => agent.manager()?.informers.hasSynced() ?? true),
    metrics: { registry: metrics, delegate: memberClient },
    log,
  });
  process.stdout.write(
    `karmada agent for cluster ${flags.clusterName} (Pull mode) started, ${agent.identity} (${karmada.server})\n`,
  );
  runUntilSignalled(
    async () => {
      await agent.stop();
      for (const stop of health) await stop();
      karmada.close();
      leaderElectionClient.close();
      memberClient.close();
    },
    log,
    {},
  );
}

const MEMBER_SIM_COMMAND = mergeOptions(
  MEMBER_SIM_OPTIONS,
  REQUEST_TIMEOUT_OPTIONS,
  logLevelOptions("warn"),
  STOP_WITH_STDIN_OPTIONS,
);

type MemberSimFlags = OptionValues<typeof MEMBER_SIM_COMMAND>;

/** A stage file, or the command fails saying which flag and what to fix. */
function readStages(command: string, flag: string, file: string): CustomStage[] {
  try {
    return parseStageFile(readFileSync(file, "utf8"));
  } catch (err) {
    const why = err instanceof StageFileError ? err.message : (err as Error).message;
    return fail(command, new StartupError(`${flag} ${file}: ${why}`));
  }
}

async function runMemberSim(flags: MemberSimFlags): Promise<void> {
  const log = createLogger({
    level: flags.logLevel,
    format: flags.loggingFormat,
    fields: { component: "member-sim" },
  });
  const stages = flags.stages ? readStages("member-sim", "--stages", flags.stages) : [];
  let store: Store;
  try {
    store = await openStore(flags.storage);
  } catch (err) {
    fail(
      "member-sim",
      new StartupError(`cannot open storage ${JSON.stringify(flags.storage)}: ${(err as Error).message}`),
    );
  }
  if (flags.insecure) {
    log.warn("serving plain HTTP without authentication or authorization (--insecure): for benchmarks only");
    process.stderr.write(
      `karmada member-sim ${flags.name}: INSECURE: plain HTTP, no authentication, every request is admin\n`,
    );
  }
  const pki = flags.insecure
    ? undefined
    : flags.certDir
      ? await loadOrCreateClusterPki(resolve(flags.certDir), {
          caName: flags.name,
          hosts: [flags.bindAddress],
        }).catch((err) =>
          fail("member-sim", new StartupError(`--cert-dir ${flags.certDir}: ${(err as Error).message}`)),
        )
      : await createClusterPki({ caName: flags.name, hosts: [flags.bindAddress] });
  const member = await serveMemberCluster({
    name: flags.name,
    // Its API server's /metrics (behind its RBAC) serves them, with the process's own.
    server: { metrics: createMetricsRegistry() },
    ...(pki ? { pki } : { insecure: true }),
    host: flags.bindAddress,
    port: flags.port,
    nodes: flags.nodes,
    nodeCpu: flags.nodeCpu,
    nodeMemory: flags.nodeMemory,
    nodePods: flags.nodePods,
    ...(flags.region ? { region: flags.region } : {}),
    ...(flags.zone ? { zone: flags.zone } : {}),
    ...(flags.provider ? { provider: flags.provider } : {}),
    stages,
    requestTimeoutMs: flags.requestTimeout,
    ...(flags.sink ? { sink: true } : {}),
    store,
    log,
  }).catch(async (err: unknown) => {
    await store.close();
    const code = (err as NodeJS.ErrnoException).code;
    fail(
      "member-sim",
      new StartupError(
        code === "EADDRINUSE"
          ? `cannot listen on ${flags.bindAddress}:${flags.port}: the port is already in use (--port 0 picks a free one)`
          : (err as Error).message,
      ),
    );
  });
  if (flags.kubeconfigOut) {
    const path = resolve(flags.kubeconfigOut);
    const user = `${flags.name}-admin`;
    const conn = member.connection;
    writeFileSync(
      path,
      renderKubeconfig({
        clusters: [{ name: flags.name, server: member.url, ...(conn.caData ? { caData: conn.caData } : {}) }],
        users: [
          {
            name: user,
            ...(conn.certData && conn.keyData ? { certData: conn.certData, keyData: conn.keyData } : {}),
          },
        ],
        contexts: [{ name: flags.name, cluster: flags.name, user }],
        currentContext: flags.name,
      }),
      { mode: 0o600 },
    );
  }
  log.info("serving", {
    url: member.url,
    nodes: flags.nodes,
    clusterID: member.clusterId,
    ...(flags.sink ? { sink: true } : {}),
  });
  process.stdout.write(`member-sim ${flags.name} listening on ${member.url}\n`);
  const stop = stopOnSignals(async () => {
    await member.stop();
    await store.close();
  }, log);
  stopWithStdin(flags, stop);
}

interface FaultFlags extends Omit<FaultArgs, "type" | "target"> {
  url?: string;
  kubeconfig?: string;
  context?: string;
}

async function runFault(type: string, target: string | undefined, flags: FaultFlags): Promise<void> {
  let body: Record<string, unknown> | undefined;
  try {
    body = type === "list" ? undefined : faultFromArgs({ ...flags, type, target });
  } catch (err) {
    process.stderr.write(`karmada member-sim fault: ${(err as Error).message}\n`);
    process.exit(1);
  }
  // The member's admin endpoint wants the member's credentials: those of the kubeconfig context.
  const path = flags.kubeconfig ?? defaultKubeconfigPath(process.env);
  let conn: KubeconfigConnection;
  try {
    conn = await loadKubeconfig({ path, ...(flags.context ? { context: flags.context } : {}) });
  } catch (err) {
    process.stderr.write(
      `karmada member-sim fault: cannot load kubeconfig ${path}${flags.context ? ` (context ${flags.context})` : ""}: ${(err as Error).message}\n`,
    );
    process.exit(1);
  }
  const client = httpClientFor(
    { ...conn, ...(flags.url ? { server: flags.url } : {}) },
    { userAgent: "karmada-member-sim" },
  );
  try {
    const result = await sendFault(client, body);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (err) {
    const why =
      err instanceof FaultError ? err.message : `cannot reach ${client.server}: ${(err as Error).message}`;
    process.stderr.write(`karmada member-sim fault: ${why}\n`);
    process.exitCode = 1;
  } finally {
    client.close();
  }
}

export function buildProgram(): Command {
  const program = new Command("karmada")
    .description("karmada-ts: a Karmada-compatible multi-cluster control plane")
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text) });
  /** A subcommand whose flags `table` declares, run with the options it reads. */
  const component = <const Table extends OptionTable>(
    name: string,
    description: string,
    table: Table,
    run: (flags: OptionValues<Table>) => Promise<void>,
  ): Command =>
    addOptions(program.command(name).description(description), table).action(
      (flags: Record<string, unknown>) => run(readOptions(name, table, flags)),
    );
  component(
    "apiserver",
    "run the Kubernetes-compatible API server (policies, bindings, works, clusters, CRDs)",
    APISERVER_COMMAND,
    runApiserver,
  );
  component(
    "up",
    "run a local Karmada: the control plane and its controllers on SQLite, plus simulated member clusters (member3 in Pull mode through an agent, the rest joined in Push mode), with one kubeconfig for all (contexts karmada-apiserver, member1..N)",
    UP_COMMAND,
    runUpCommand,
  );
  component(
    "controller-manager",
    "run the Karmada controllers against a control plane (one replica leads through a Lease in karmada-system)",
    CONTROLLER_MANAGER_COMMAND,
    runControllerManagerCommand,
  );
  component(
    "scheduler",
    "run the Karmada scheduler against a control plane: places ResourceBindings on clusters (one replica leads through karmada-system/karmada-scheduler)",
    SCHEDULER_COMMAND,
    runSchedulerCommand,
  );
  component(
    "operator",
    "run karmada-operator against a host cluster: installs a Karmada control plane (this project's image) for each operator.karmada.io/v1alpha1 Karmada object there, and removes it when the object goes",
    OPERATOR_COMMAND,
    runOperatorCommand,
  );
  component(
    "agent",
    "run the agent of a Pull-mode member cluster: registers the cluster with the control plane, then reports its status and renews its Lease (one replica leads through karmada-system/karmada-agent-<cluster>)",
    AGENT_COMMAND,
    runAgentCommand,
  );
  component(
    "dashboard",
    "run the web dashboard for a control plane: clusters, workloads, failover, policies and what-if, live and read-only (loopback: as the kubeconfig's user, like kubectl proxy; elsewhere: HTTPS, each user with their own token)",
    DASHBOARD_COMMAND,
    runDashboardCommand,
  ).addHelpText("after", DASHBOARD_HELP);
  const memberSim = component(
    "member-sim",
    "run a simulated member cluster (kwok style): our API server with nodes, a scheduler, a simulated kubelet and the workload controllers; for tests, demos and benchmarks",
    MEMBER_SIM_COMMAND,
    runMemberSim,
  ).addHelpText(
    "after",
    [
      "",
      "Prints `member-sim <name> listening on <url>` once serving; stops on SIGINT/SIGTERM.",
      "Faults: POST <url>/sim/faults with JSON as the cluster's admin, or `karmada member-sim fault --kubeconfig <file> --context <name> <type>`.",
    ].join("\n"),
  );
  memberSim
    .command("fault")
    .description(
      "inject or end a fault in a running member-sim: unreachable [--hang | --slow MS] [--except-user U] | unhealthy | cordon [--node N] | node-not-ready [--node N] | delete-pods -n NS [-l SEL] | unhealthy-workload -n NS KIND/NAME | restore [--id ID] | list",
    )
    .argument("<type>", [...FAULT_TYPES, "list"].join(", "))
    .argument("[target]", "KIND/NAME for unhealthy-workload")
    .option(
      "--kubeconfig <path>",
      "kubeconfig reaching the member as its admin (default: $KUBECONFIG, ~/.kube/config), e.g. .karmada/karmada.config",
    )
    .option("--context <name>", "the member's context in --kubeconfig (default: its current context)")
    .option("--url <url>", "the member-sim's URL, when it differs from the context's server")
    .option("-n, --namespace <ns>", "namespace (delete-pods, unhealthy-workload)")
    .option("-l, --selector <selector>", "label selector (delete-pods)")
    .option("--node <name>", "one node instead of all (cordon, node-not-ready)")
    .option("--id <id>", "the fault to end (restore); all when omitted")
    .option("--hang", "unreachable: leave requests unanswered instead of resetting connections", false)
    .option("--slow <ms>", "unreachable: answer every request, after this many milliseconds")
    .option(
      "--except-user <user...>",
      "unreachable: these users still reach the member (a partition its agent does not share)",
    )
    .action((type: string, target: string | undefined, flags: FaultFlags) => runFault(type, target, flags));
  const snapshot = program
    .command("snapshot")
    .description(
      "save a consistent snapshot of a store (any backend, at one revision) or restore one into an empty store of any backend: SQLite to etcd and back is one command each",
    );
  snapshot
    .command("save")
    .description("write every key of --storage, read at one revision, to <file>")
    .argument("<file>", "the snapshot file to write (replaced only once complete)")
    .requiredOption(
      "--storage <url>",
      "memory:, sqlite://<path> or etcd://host:port[,host:port][?prefix=&cacert=&cert=&key=]",
    )
    .action((file: string, flags: { storage: string }) => runSnapshot("save", file, flags.storage));
  snapshot
    .command("restore")
    .description("write the keys of <file> into --storage, which must be empty")
    .argument("<file>", "a snapshot written by karmada snapshot save")
    .requiredOption(
      "--storage <url>",
      "memory:, sqlite://<path> or etcd://host:port[,host:port][?prefix=&cacert=&cert=&key=]",
    )
    .action((file: string, flags: { storage: string }) => runSnapshot("restore", file, flags.storage));
  return program;
}

async function runSnapshot(verb: "save" | "restore", file: string, storage: string): Promise<void> {
  let store: Store;
  try {
    store = await openStore(storage);
  } catch (err) {
    return fail("snapshot", new StartupError(`--storage: ${(err as Error).message}`));
  }
  const started = performance.now();
  try {
    const r = verb === "save" ? await saveSnapshot(store, file) : await restoreSnapshot(store, file);
    const ms = Math.round(performance.now() - started);
    process.stdout.write(
      verb === "save"
        ? `Snapshot saved to ${file}: ${r.keys} keys at revision ${r.revision} (${r.bytes} bytes) in ${ms} ms\n`
        : `Snapshot ${file} (revision ${r.revision} of its store) restored: ${r.keys} keys in ${ms} ms\n`,
    );
  } catch (err) {
    const why = err instanceof SnapshotError ? err.message : errorMessage(err);
    fail("snapshot", new StartupError(`${verb}: ${why}`));
  } finally {
    await store.close();
  }
}

await buildProgram().parseAsync(process.argv);
