/**
 * `karmada <component>`: the only place that reads argv and the environment and exits.
 */

import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from "../apiserver/secure-serving.ts";
import { DEFAULT_AGENT_IMAGE } from "../cli/commands/register.ts";
import { defaultKubeconfigPath } from "../cli/factory.ts";
import { count, durationOption, list, port } from "../cli/flags.ts";
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
import type { ControllerOptions } from "../controllers/context.ts";
import {
  agentControllers,
  controllers,
  isControllerEnabled,
  schedulerControllers,
} from "../controllers/index.ts";
import { createLogger, type Level, type Logger } from "../log.ts";
import { errorMessage } from "../machinery/errors.ts";
import { serveMemberCluster } from "../member-sim/cluster.ts";
import {
  type CustomStage,
  PLACEHOLDERS,
  parseStageFile,
  StageFileError,
} from "../member-sim/custom-stages.ts";
import { type FaultArgs, faultFromArgs, sendFault } from "../member-sim/fault-client.ts";
import { FAULT_TYPES, FaultError } from "../member-sim/faults.ts";
import { ensureHostReady, startOperator } from "../operator/run.ts";
import { createClusterPki, loadOrCreateClusterPki } from "../pki/cluster-pki.ts";
import { type CertificateAndKey, caProblem } from "../pki/x509.ts";
import { FEATURES, FeatureGates, UP_FEATURE_GATES } from "../runtime/features.ts";
import { parseListenAddress, startHealthServer } from "../runtime/health.ts";
import { FILTER_PLUGINS, SCORE_PLUGINS } from "../scheduler/core/plugins.ts";
import type { ScheduleOptions } from "../scheduler/core/types.ts";
import { DEFAULT_SEARCH_CACHE_MAX_BYTES } from "../search/serve.ts";
import { openStore, storeUrlFromEtcdFlags } from "../storage/open.ts";
import { restoreSnapshot, SnapshotError, saveSnapshot } from "../storage/snapshot.ts";
import type { Store } from "../storage/store.ts";
import { startAgent } from "./agent.ts";
import { type ApiserverSecurityFlags, securityFromFlags } from "./apiserver-security.ts";
import { StartupError, startControlPlane, stopOnSignals } from "./control-plane.ts";
import {
  DEFAULT_LEADER_ELECTION,
  type LeaderElectionFlags,
  SCHEDULER_LEASE,
  startElectedControllerManager,
} from "./controller-manager.ts";
import { nextSteps, runUp } from "./up.ts";
import type { HaComponentArgs } from "./up-ha.ts";

function level(value: string): Level {
  if (value !== "debug" && value !== "info" && value !== "warn" && value !== "error") {
    throw new InvalidArgumentError("must be one of debug, info, warn, error");
  }
  return value;
}

/** A component that cannot start says why in one line (never a stack trace) and exits 1. */
const APISERVER_DEFAULT_STORAGE = "sqlite://.karmada/apiserver.db";

function fail(component: string, err: unknown): never {
  process.stderr.write(
    `karmada ${component}: ${err instanceof StartupError ? err.message : errorMessage(err)}\n`,
  );
  process.exit(1);
}

interface ApiserverFlags extends TolerationCliFlags, ApiserverSecurityFlags, StopWithStdinFlag {
  storage: string;
  advertiseAddress?: string;
  securePort: number;
  /** `--port`, the old name of `--secure-port`. */
  port?: number;
  insecure: boolean;
  disableSearch: boolean;
  disableProxy: boolean;
  searchCacheMaxBytes: number;
  etcdServers?: string[];
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  etcdPrefix: string;
  /** ms */
  etcdCompactionInterval: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  logLevel: Level;
}

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
  const log = createLogger({ level: flags.logLevel, fields: { component: "apiserver" } });
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
    compactionIntervalMs: flags.etcdCompactionInterval,
    inflight: { readOnly: flags.maxRequestsInflight, mutating: flags.maxMutatingRequestsInflight },
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

interface LeaderElectionCliFlags {
  leaderElect: boolean;
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
  leaderElectResourceNamespace: string;
}

interface FeatureGatesCliFlags {
  featureGates?: string[];
}

/** `--feature-gates`, or a startup error saying which gate or value to fix. */
function featuresFrom(component: string, flags: FeatureGatesCliFlags): FeatureGates {
  try {
    return FeatureGates.parse(flags.featureGates ?? []);
  } catch (err) {
    fail(component, new StartupError((err as Error).message));
  }
}

function addFeatureGatesOption(cmd: Command): Command {
  return cmd.option(
    "--feature-gates <gates>",
    `feature gates as upstream Karmada names them, e.g. Failover=true,PropagationPolicyPreemption=true (AllAlpha=, AllBeta= set a whole stage); known: ${Object.keys(FEATURES).join(", ")}`,
    list,
  );
}

interface ClusterStatusCliFlags {
  clusterStatusUpdateFrequency: number;
  clusterFailureThreshold: number;
  clusterSuccessThreshold: number;
}

function clusterStatusOptionsFrom(flags: ClusterStatusCliFlags): Partial<ControllerOptions> {
  return {
    clusterStatusUpdateFrequencyMs: flags.clusterStatusUpdateFrequency,
    clusterFailureThresholdMs: flags.clusterFailureThreshold,
    clusterSuccessThresholdMs: flags.clusterSuccessThreshold,
  };
}

/** Cluster failover (taint-based eviction) flags of `up` and `controller-manager`. */
interface FailoverCliFlags {
  failoverEvictionTimeout: number;
  enableTaintManager: boolean;
  resourceEvictionRate: number;
  /** `--no-execute-taint-eviction-purge-mode`: commander reads a leading "no-" as a negation and drops it from the key. */
  executeTaintEvictionPurgeMode: "Directly" | "Gracefully";
  gracefulEvictionTimeout: number;
  failoverShadowMode: boolean;
}

function failoverOptionsFrom(flags: FailoverCliFlags): Partial<ControllerOptions> {
  return {
    failoverEvictionTimeoutMs: flags.failoverEvictionTimeout,
    enableTaintManager: flags.enableTaintManager,
    resourceEvictionRate: flags.resourceEvictionRate,
    noExecuteTaintEvictionPurgeMode: flags.executeTaintEvictionPurgeMode,
    gracefulEvictionTimeoutMs: flags.gracefulEvictionTimeout,
    failoverShadowMode: flags.failoverShadowMode,
  };
}

/** karmada-webhook's default toleration flags, taken by whatever runs admission (`apiserver`, `up`). */
interface TolerationCliFlags {
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
}

function tolerationSecondsFrom(flags: TolerationCliFlags): { notReady: number; unreachable: number } {
  return {
    notReady: flags.defaultNotReadyTolerationSeconds,
    unreachable: flags.defaultUnreachableTolerationSeconds,
  };
}

interface UpFlags extends ClusterStatusCliFlags, FeatureGatesCliFlags, FailoverCliFlags, TolerationCliFlags {
  dataDir: string;
  port: number;
  members: number;
  memberStages?: string;
  caCertFile?: string;
  caKeyFile?: string;
  ha: boolean;
  logLevel: Level;
}

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
  const ms = (n: number): string => `${n}ms`;
  const gates = features.toString();
  return {
    apiserver: [
      `--default-not-ready-toleration-seconds=${flags.defaultNotReadyTolerationSeconds}`,
      `--default-unreachable-toleration-seconds=${flags.defaultUnreachableTolerationSeconds}`,
    ],
    controllerManager: [
      `--cluster-status-update-frequency=${ms(flags.clusterStatusUpdateFrequency)}`,
      `--cluster-failure-threshold=${ms(flags.clusterFailureThreshold)}`,
      `--cluster-success-threshold=${ms(flags.clusterSuccessThreshold)}`,
      `--failover-eviction-timeout=${ms(flags.failoverEvictionTimeout)}`,
      `--enable-taint-manager=${flags.enableTaintManager}`,
      `--resource-eviction-rate=${flags.resourceEvictionRate}`,
      `--no-execute-taint-eviction-purge-mode=${flags.executeTaintEvictionPurgeMode}`,
      `--graceful-eviction-timeout=${ms(flags.gracefulEvictionTimeout)}`,
      `--failover-shadow-mode=${flags.failoverShadowMode}`,
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
  const log = createLogger({ level: flags.logLevel, sink: logFile, fields: { component: "up" } });
  const io = { stdout: process.stdout, stderr: process.stderr };
  const features = UP_FEATURE_GATES.with(featuresFrom("up", flags).settings());
  const up = await runUp(
    {
      dataDir: flags.dataDir,
      port: flags.port,
      members: flags.members,
      memberCommand: [process.execPath, ...process.execArgv, process.argv[1]!],
      ...(flags.memberStages ? { memberStages: resolve(flags.memberStages) } : {}),
      controllerOptions: {
        ...clusterStatusOptionsFrom(flags),
        ...failoverOptionsFrom(flags),
        features,
      },
      ...(flags.ha ? { ha: haComponentArgs(flags, features) } : {}),
      defaultTolerationSeconds: tolerationSecondsFrom(flags),
      ...(ca ? { ca } : {}),
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

/** Upstream's health flags: `--health-probe-bind-address` (HTTP), older `--bind-address`/`--secure-port` (HTTPS). */
interface HealthCliFlags {
  healthProbeBindAddress: string;
  bindAddress: string;
  securePort?: number;
}

function addHealthOptions(cmd: Command, defaultProbe: string): Command {
  return cmd
    .option(
      "--health-probe-bind-address <address>",
      `serve /healthz, /livez and /readyz over HTTP here (host:port or :port; 0 disables)`,
      defaultProbe,
    )
    .option("--bind-address <ip>", "the address --secure-port listens on", "0.0.0.0")
    .option(
      "--secure-port <n>",
      "also serve the health endpoints over HTTPS (self-signed) on this port",
      port,
    );
}

/** Starts the health endpoints the flags ask for; a port in use is one line naming the flag. */
async function startHealth(component: string, flags: HealthCliFlags): Promise<Array<() => Promise<void>>> {
  const servers: Array<{ flag: string; host: string; port: number; secure: boolean }> = [];
  if (flags.healthProbeBindAddress !== "0") {
    try {
      servers.push({
        flag: "--health-probe-bind-address",
        ...parseListenAddress(flags.healthProbeBindAddress),
        secure: false,
      });
    } catch (err) {
      fail(component, new StartupError(`--health-probe-bind-address: ${(err as Error).message}`));
    }
  }
  if (flags.securePort !== undefined) {
    servers.push({ flag: "--secure-port", host: flags.bindAddress, port: flags.securePort, secure: true });
  }
  const stops: Array<() => Promise<void>> = [];
  for (const s of servers) {
    try {
      const running = await startHealthServer(s);
      stops.push(running.close);
      process.stdout.write(`karmada ${component}: health probes at ${running.url}/healthz\n`);
    } catch (err) {
      const inUse = (err as NodeJS.ErrnoException).code === "EADDRINUSE";
      const why = inUse ? "the port is already in use" : (err as Error).message;
      fail(component, new StartupError(`${s.flag}: cannot listen on ${s.host}:${s.port}: ${why}`));
    }
  }
  return stops;
}

interface ControllerManagerFlags
  extends LeaderElectionCliFlags,
    HealthCliFlags,
    ClusterStatusCliFlags,
    FeatureGatesCliFlags,
    FailoverCliFlags,
    StopWithStdinFlag {
  kubeconfig?: string;
  context?: string;
  controllers: string[];
  clusterMonitorPeriod: number;
  clusterMonitorGracePeriod: number;
  clusterStartupGracePeriod: number;
  logLevel: Level;
}

/** `--controllers` may only name controllers the component has. */
function checkControllers(component: string, names: string[], known: readonly string[]): void {
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
): Promise<{ client: HttpClient; conn: KubeconfigConnection }> {
  try {
    const conn = await loadKubeconfig({ path, ...(context ? { context } : {}) });
    return { client: httpClientFor(conn, { userAgent: `karmada-${component}` }), conn };
  } catch (err) {
    fail(component, new StartupError(`${flag}: cannot load kubeconfig ${path}: ${(err as Error).message}`));
  }
}

function leaderElectionFrom(flags: LeaderElectionCliFlags): LeaderElectionFlags {
  return {
    ...DEFAULT_LEADER_ELECTION,
    enabled: flags.leaderElect,
    namespace: flags.leaderElectResourceNamespace,
    leaseDurationMs: flags.leaderElectLeaseDuration,
    renewDeadlineMs: flags.leaderElectRenewDeadline,
    retryPeriodMs: flags.leaderElectRetryPeriod,
  };
}

/** `--stop-with-stdin` (set by `karmada up` on the processes it runs): stop when stdin closes, however `up` ended. */
interface StopWithStdinFlag {
  stopWithStdin?: boolean;
}

function stopWithStdin(flags: StopWithStdinFlag, stop: () => void): void {
  if (flags.stopWithStdin) process.stdin.on("end", stop).on("error", stop).resume();
}

function addStopWithStdinOption(cmd: Command): Command {
  return cmd.addOption(
    new Option("--stop-with-stdin", "stop when stdin closes (set by `karmada up`)").hideHelp(),
  );
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
  const log = createLogger({ level: flags.logLevel, fields: { component: "controller-manager" } });
  const features = featuresFrom("controller-manager", flags);
  checkControllers("controller-manager", flags.controllers, Object.keys(controllers));
  const path = flags.kubeconfig ?? defaultKubeconfigPath(process.env);
  const { client } = await kubeconfigClient("controller-manager", "--kubeconfig", path, flags.context);
  let manager: ReturnType<typeof startElectedControllerManager>;
  try {
    manager = startElectedControllerManager({
      client,
      log,
      controllers: flags.controllers,
      options: {
        ...clusterStatusOptionsFrom(flags),
        clusterMonitorPeriodMs: flags.clusterMonitorPeriod,
        clusterMonitorGracePeriodMs: flags.clusterMonitorGracePeriod,
        clusterStartupGracePeriodMs: flags.clusterStartupGracePeriod,
        ...failoverOptionsFrom(flags),
        features,
      },
      leaderElection: leaderElectionFrom(flags),
      onLost: leaderElectionLost("controller-manager"),
    });
  } catch (err) {
    // The elector rejects inconsistent durations (lease > renew deadline > 1.2 × retry period).
    fail("controller-manager", new StartupError(`--leader-elect-*: ${(err as Error).message}`));
  }
  const health = await startHealth("controller-manager", flags);
  process.stdout.write(`karmada controller-manager ${manager.identity} started (${client.server})\n`);
  runUntilSignalled(
    async () => {
      await manager.stop();
      for (const stop of health) await stop();
      client.close();
    },
    log,
    flags,
  );
}

interface SchedulerFlags
  extends LeaderElectionCliFlags,
    FeatureGatesCliFlags,
    HealthCliFlags,
    StopWithStdinFlag {
  plugins?: string[];
  enableEmptyWorkloadPropagation: boolean;
  kubeconfig?: string;
  context?: string;
  logLevel: Level;
}

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
  const log = createLogger({ level: flags.logLevel, fields: { component: "scheduler" } });
  const features = featuresFrom("scheduler", flags);
  const schedule = scheduleOptionsFrom(flags);
  const path = flags.kubeconfig ?? defaultKubeconfigPath(process.env);
  const { client } = await kubeconfigClient("scheduler", "--kubeconfig", path, flags.context);
  let scheduler: ReturnType<typeof startElectedControllerManager>;
  try {
    scheduler = startElectedControllerManager({
      client,
      log,
      controllers: ["*"],
      registry: schedulerControllers,
      options: { features, schedule },
      leaderElection: { ...leaderElectionFrom(flags), name: SCHEDULER_LEASE },
      onLost: leaderElectionLost("scheduler"),
    });
  } catch (err) {
    fail("scheduler", new StartupError(`--leader-elect-*: ${(err as Error).message}`));
  }
  const health = await startHealth("scheduler", flags);
  process.stdout.write(`karmada scheduler ${scheduler.identity} started (${client.server})\n`);
  runUntilSignalled(
    async () => {
      await scheduler.stop();
      for (const stop of health) await stop();
      client.close();
    },
    log,
    flags,
  );
}

interface OperatorFlags extends LeaderElectionCliFlags, HealthCliFlags, StopWithStdinFlag {
  kubeconfig?: string;
  context?: string;
  karmadaImage: string;
  concurrentKarmadaSyncs: number;
  logLevel: Level;
}

/** `karmada operator`: reconciles upstream's `Karmada` objects on the host cluster its kubeconfig names. */
async function runOperatorCommand(flags: OperatorFlags): Promise<void> {
  const log = createLogger({ level: flags.logLevel, fields: { component: "karmada-operator" } });
  const path = flags.kubeconfig ?? defaultKubeconfigPath(process.env);
  const { client } = await kubeconfigClient("operator", "--kubeconfig", path, flags.context);
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
    });
  } catch (err) {
    fail("operator", new StartupError(`--leader-elect-*: ${(err as Error).message}`));
  }
  const health = await startHealth("operator", flags);
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

interface AgentFlags extends LeaderElectionCliFlags, ClusterStatusCliFlags, FeatureGatesCliFlags {
  karmadaKubeconfig?: string;
  karmadaContext?: string;
  kubeconfig?: string;
  clusterContext?: string;
  clusterName?: string;
  clusterNamespace: string;
  clusterApiEndpoint?: string;
  proxyServerAddress?: string;
  clusterProvider?: string;
  clusterRegion?: string;
  clusterZones?: string[];
  reportSecrets?: string[];
  controllers: string[];
  clusterLeaseDuration: number;
  clusterLeaseRenewIntervalFraction: number;
  karmadaKubeconfigNamespace: string;
  certRotationCheckingInterval: number;
  certRotationRemainingTimeThreshold: number;
  logLevel: Level;
}

function reportedSecrets(values: string[]): ReportedSecret[] {
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
  const log = createLogger({ level: flags.logLevel, fields: { component: "agent" } });
  const features = featuresFrom("agent", flags);
  if (!flags.clusterName) fail("agent", new StartupError("--cluster-name is required"));
  if (!(flags.clusterLeaseRenewIntervalFraction > 0 && flags.clusterLeaseRenewIntervalFraction < 1)) {
    fail("agent", new StartupError("--cluster-lease-renew-interval-fraction must be between 0 and 1"));
  }
  if (!(flags.certRotationRemainingTimeThreshold > 0 && flags.certRotationRemainingTimeThreshold < 1)) {
    fail("agent", new StartupError("--cert-rotation-remaining-time-threshold must be between 0 and 1"));
  }
  const known = Object.keys(agentControllers(flags.clusterName));
  checkControllers("agent", flags.controllers, known);
  const memberConn = await agentMemberConnection(flags);
  const memberClient = httpClientFor(memberConn, { userAgent: "karmada-agent" });
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
  const karmada = httpClientFor(rotating.conn, { userAgent: "karmada-agent" });
  let agent: Awaited<ReturnType<typeof startAgent>>;
  try {
    agent = await startAgent({
      karmada,
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
      controllers: flags.controllers,
      options: {
        ...clusterStatusOptionsFrom(flags),
        clusterLeaseDurationMs: flags.clusterLeaseDuration,
        clusterLeaseRenewFraction: flags.clusterLeaseRenewIntervalFraction,
        certRotationCheckingIntervalMs: flags.certRotationCheckingInterval,
        certRotationRemainingTimeThreshold: flags.certRotationRemainingTimeThreshold,
        karmadaKubeconfigNamespace: flags.karmadaKubeconfigNamespace,
        onAgentCertificateRotated: (cert) => rotating.rotate(cert),
        features,
      },
      leaderElection: leaderElectionFrom(flags),
      log,
      onLost: leaderElectionLost("agent"),
    });
  } catch (err) {
    fail("agent", new StartupError(`failed to register with karmada control plane: ${errorMessage(err)}`));
  }
  process.stdout.write(
    `karmada agent for cluster ${flags.clusterName} (Pull mode) started, ${agent.identity} (${karmada.server})\n`,
  );
  runUntilSignalled(
    async () => {
      await agent.stop();
      karmada.close();
      memberClient.close();
    },
    log,
    {},
  );
}

interface MemberSimFlags {
  name: string;
  bindAddress: string;
  port: number;
  nodes: number;
  nodeCpu: string;
  nodeMemory: string;
  nodePods: number;
  region?: string;
  zone?: string;
  provider?: string;
  stages?: string;
  kubeconfigOut?: string;
  certDir?: string;
  insecure: boolean;
  storage: string;
  stopWithStdin?: boolean;
  logLevel: Level;
}

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
  const log = createLogger({ level: flags.logLevel, fields: { component: "member-sim" } });
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
  log.info("serving", { url: member.url, nodes: flags.nodes, clusterID: member.clusterId });
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

/** The cluster-status flags `up` and `controller-manager` share (upstream's names and defaults). */
function addClusterStatusOptions(cmd: Command): Command {
  return cmd
    .addOption(
      durationOption(
        "--cluster-status-update-frequency <duration>",
        "how often member health and status are collected",
        "10s",
      ),
    )
    .addOption(
      durationOption(
        "--cluster-failure-threshold <duration>",
        "how long a member must fail before it is NotReady",
        "30s",
      ),
    )
    .addOption(
      durationOption(
        "--cluster-success-threshold <duration>",
        "how long a member must recover before it is Ready again",
        "30s",
      ),
    );
}

/** `true` or `false`, for flags upstream spells `--name=false`. */
function boolValue(value: string): boolean {
  if (value === "true") return true;
  if (value === "false") return false;
  throw new InvalidArgumentError("must be true or false");
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0) {
    throw new InvalidArgumentError("must be a non-negative number");
  }
  return n;
}

/** Cluster failover flags (upstream v1.12's names and defaults, plus our shadow mode). */
function addFailoverOptions(cmd: Command): Command {
  return cmd
    .addOption(
      durationOption(
        "--failover-eviction-timeout <duration>",
        "how long Ready must be False or Unknown before a cluster gets the NoExecute taint (gate Failover)",
        "5m",
      ),
    )
    .option(
      "--enable-taint-manager [bool]",
      "evict workloads from clusters with NoExecute taints they do not tolerate (gate Failover)",
      boolValue,
      true,
    )
    .option(
      "--resource-eviction-rate <n>",
      "taint evictions per second (0: one per 30 minutes)",
      nonNegativeNumber,
      0.5,
    )
    .addOption(
      new Option(
        "--no-execute-taint-eviction-purge-mode <mode>",
        "purge mode of a taint eviction when the policy sets no failover.cluster behaviour",
      )
        .choices(["Directly", "Gracefully"])
        .default("Gracefully"),
    )
    .addOption(
      durationOption(
        "--graceful-eviction-timeout <duration>",
        "how long the old copy of an evicted workload stays at most when the new one does not become healthy",
        "10m",
      ),
    )
    .option(
      "--failover-shadow-mode [bool]",
      "record the evictions the taint manager would make (EvictionShadowed events) without making them",
      boolValue,
      false,
    );
}

/** karmada-webhook's default cluster toleration flags (where admission runs). */
function addTolerationOptions(cmd: Command): Command {
  return cmd
    .option(
      "--default-not-ready-toleration-seconds <n>",
      "tolerationSeconds of the cluster.karmada.io/not-ready:NoExecute toleration added to every propagation policy without one",
      count,
      300,
    )
    .option(
      "--default-unreachable-toleration-seconds <n>",
      "tolerationSeconds of the cluster.karmada.io/unreachable:NoExecute toleration added to every propagation policy without one",
      count,
      300,
    );
}

/** Upstream's leader-election flags (controller-manager, agent). */
function addLeaderElectionOptions(cmd: Command): Command {
  return cmd
    .option(
      "--leader-elect [bool]",
      "run the controllers only while holding the leader Lease (--leader-elect=false: at once, a single replica)",
      boolValue,
      true,
    )
    .option("--no-leader-elect", "run the controllers at once (a single replica)")
    .addOption(
      durationOption(
        "--leader-elect-lease-duration <duration>",
        "how long a standby waits before taking the Lease",
        "15s",
      ),
    )
    .addOption(
      durationOption(
        "--leader-elect-renew-deadline <duration>",
        "how long the leader retries renewing before it gives up",
        "10s",
      ),
    )
    .addOption(
      durationOption(
        "--leader-elect-retry-period <duration>",
        "time between acquire and renew attempts",
        "2s",
      ),
    )
    .option("--leader-elect-resource-namespace <ns>", "namespace of the leader Lease", "karmada-system");
}

export function buildProgram(): Command {
  const program = new Command("karmada")
    .description("karmada-ts: a Karmada-compatible multi-cluster control plane")
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text) });
  const apiserver = program
    .command("apiserver")
    .description("run the Kubernetes-compatible API server (policies, bindings, works, clusters, CRDs)")
    .option(
      "--storage <url>",
      "memory:, sqlite://<path> or etcd://host:port[,host:port][?cacert=&cert=&key=]",
      APISERVER_DEFAULT_STORAGE,
    )
    .option(
      "--etcd-servers <urls>",
      "kube-apiserver's: etcd servers (https://host:port,...) to store in, instead of --storage",
      list,
    )
    .option("--etcd-cafile <file>", "the CA that signed the etcd servers' certificates")
    .option("--etcd-certfile <file>", "client certificate for etcd")
    .option("--etcd-keyfile <file>", "its key")
    .option("--etcd-prefix <prefix>", "the key prefix in etcd", "/registry")
    .addOption(
      durationOption(
        "--etcd-compaction-interval <duration>",
        "how often history older than one interval is compacted, any backend (0: never)",
        "5m",
      ),
    )
    .option(
      "--max-requests-inflight <n>",
      "read-only requests served at once; more are answered 429 (0: no limit; watches and proxies not counted)",
      count,
      400,
    )
    .option(
      "--max-mutating-requests-inflight <n>",
      "mutating requests served at once; more are answered 429 (0: no limit)",
      count,
      200,
    )
    .option("--bind-address <ip>", "address to listen on", "127.0.0.1")
    .option("--secure-port <n>", "HTTPS port to listen on (0: a free port, logged)", port, 5443)
    .option(
      "--advertise-address <ip>",
      "the address members and registering clusters reach this server at (kube-public/cluster-info); default: --bind-address, or this host's name when that is 0.0.0.0",
    )
    .addOption(new Option("--port <n>", "the same as --secure-port").argParser(port))
    .option(
      "--cert-dir <dir>",
      "where the self-signed serving certificate (and the service-account key, when no --service-account-signing-key-file) is kept",
      ".karmada/certs",
    )
    .option(
      "--tls-cert-file <file>",
      "serving certificate (PEM, followed by its CA chain); default: self-signed in --cert-dir",
    )
    .option("--tls-private-key-file <file>", "the serving certificate's key")
    .option(
      "--client-ca-file <file>",
      "CA bundle that client certificates are verified against (CN user, O groups)",
    )
    .option("--token-auth-file <file>", 'static bearer tokens: token,user,uid,"group1,group2" per line')
    .option(
      "--service-account-signing-key-file <file>",
      "private key service-account tokens are signed with (default: sa.key in --cert-dir)",
    )
    .option(
      "--service-account-key-file <file>",
      "public key (or certificate) service-account tokens are verified with; repeatable",
      list,
    )
    .option(
      "--service-account-issuer <url>",
      `issuer of service-account tokens (the first issues, all are accepted; default ${DEFAULT_SERVICE_ACCOUNT_ISSUER}); repeatable`,
      list,
    )
    .option(
      "--api-audiences <list>",
      "audiences a service-account token must name (default: the issuers)",
      list,
    )
    .option(
      "--service-account-jwks-uri <url>",
      "the JWKS URI issuer discovery advertises (default: https://<advertise address>:<port>/openid/v1/jwks)",
    )
    .addOption(
      durationOption(
        "--service-account-max-token-expiration <duration>",
        "the longest a requested token lives (0: no limit)",
        "0s",
      ),
    )
    .option(
      "--enable-bootstrap-token-auth [bool]",
      "authenticate bootstrap tokens (kube-system/bootstrap-token-<id> Secrets)",
      boolValue,
      false,
    )
    .option(
      "--anonymous-auth [bool]",
      "requests without credentials are system:anonymous (else 401)",
      boolValue,
      true,
    )
    .option("--authorization-mode <modes>", "RBAC (default) or AlwaysAllow", list, ["RBAC"])
    .option(
      "--cluster-signing-cert-file <file>",
      "CA certificate that signs kubernetes.io/kube-apiserver-client CSRs",
    )
    .option("--cluster-signing-key-file <file>", "its private key")
    .addOption(
      durationOption(
        "--cluster-signing-duration <duration>",
        "the longest a signed certificate lives",
        "8760h",
      ),
    )
    .option(
      "--root-ca-file <file>",
      "CA written as ca.crt into service-account token Secrets (default: the serving CA)",
    )
    .option(
      "--insecure",
      "serve plain HTTP with no authentication or authorization: for benchmarks and tests only, never exposed",
      false,
    )
    .option(
      "--disable-search",
      "karmada-search's flag: do not serve the search API (/apis/search.karmada.io/v1alpha1/search/...)",
      false,
    )
    .option(
      "--disable-proxy",
      "karmada-search's flag: do not serve the proxy (/apis/search.karmada.io/v1alpha1/proxying/...)",
      false,
    )
    .option(
      "--search-cache-max-bytes <bytes>",
      "what the member caches behind search and the proxy may hold together (0: no bound); a cache that would go past it is dropped and its ResourceRegistry says so",
      count,
      DEFAULT_SEARCH_CACHE_MAX_BYTES,
    )
    .option("--log-level <level>", "debug, info, warn or error", level, "info");
  addStopWithStdinOption(addTolerationOptions(apiserver)).action((flags: ApiserverFlags) =>
    runApiserver(flags),
  );
  const up = program
    .command("up")
    .description(
      "run a local Karmada: the control plane and its controllers on SQLite, plus simulated member clusters (member3 in Pull mode through an agent, the rest joined in Push mode), with one kubeconfig for all (contexts karmada-apiserver, member1..N)",
    )
    .option(
      "--data-dir <dir>",
      "where state, member logs and karmada.config live; running again resumes",
      ".karmada",
    )
    .option("--port <n>", "control plane port (0: a free port)", port, 5443)
    .option("--members <n>", "simulated member clusters", count, 3)
    .option(
      "--member-stages <file.yaml>",
      "custom-resource stages every member runs (see member-sim --stages), e.g. a FlinkDeployment getting a jobID",
    )
    .option(
      "--ca-cert-file <file>",
      "your own CA certificate for the control plane (with --ca-key-file); default: a new CA in <data-dir>/pki",
    )
    .option("--ca-key-file <file>", "the CA's private key")
    .option(
      "--ha",
      "the HA topology instead of one process on SQLite: 3 etcd members (Debian's etcd, TLS), 3 control-plane nodes each with its own API server, controller manager and scheduler processes, behind a load balancer on --port (contexts karmada-apiserver, karmada-apiserver-1..3)",
      false,
    )
    .option("--log-level <level>", "debug, info, warn or error", level, "warn");
  addFeatureGatesOption(addTolerationOptions(addFailoverOptions(addClusterStatusOptions(up)))).action(
    (flags: UpFlags) => runUpCommand(flags),
  );
  const controllerManager = program
    .command("controller-manager")
    .description(
      "run the Karmada controllers against a control plane (one replica leads through a Lease in karmada-system)",
    )
    .option(
      "--kubeconfig <path>",
      "kubeconfig of the Karmada control plane (default: $KUBECONFIG, ~/.kube/config)",
    )
    .option("--context <name>", "kubeconfig context to use")
    .option(
      "--controllers <names>",
      `controllers to run: * for all, name to enable, -name to disable; known: ${Object.keys(controllers).join(", ")}`,
      list,
    );
  addFeatureGatesOption(
    addFailoverOptions(
      addClusterStatusOptions(
        addHealthOptions(addLeaderElectionOptions(addStopWithStdinOption(controllerManager)), ":10357"),
      ),
    ),
  )
    .addOption(
      durationOption("--cluster-monitor-period <duration>", "how often cluster leases are checked", "5s"),
    )
    .addOption(
      durationOption(
        "--cluster-monitor-grace-period <duration>",
        "how long a silent cluster stays Ready",
        "40s",
      ),
    )
    .addOption(
      durationOption("--cluster-startup-grace-period <duration>", "grace for a newly joined cluster", "1m"),
    )
    .option("--log-level <level>", "debug, info, warn or error", level, "info")
    .action((flags: ControllerManagerFlags) =>
      runControllerManagerCommand({ ...flags, controllers: flags.controllers ?? ["*"] }),
    );
  const scheduler = program
    .command("scheduler")
    .description(
      "run the Karmada scheduler against a control plane: places ResourceBindings on clusters (one replica leads through karmada-system/karmada-scheduler)",
    )
    .option(
      "--kubeconfig <path>",
      "kubeconfig of the Karmada control plane (default: $KUBECONFIG, ~/.kube/config)",
    )
    .option("--context <name>", "kubeconfig context to use");
  addFeatureGatesOption(
    addHealthOptions(addLeaderElectionOptions(addStopWithStdinOption(scheduler)), ":10351"),
  )
    .option(
      "--plugins <names>",
      "scheduler plugins: * for all, Name to enable, -Name to disable (e.g. *,-ClusterLocality)",
      list,
    )
    .option("--enable-empty-workload-propagation", "propagate workloads with 0 replicas too", false)
    .option("--log-level <level>", "debug, info, warn or error", level, "info")
    .action((flags: SchedulerFlags) => runSchedulerCommand(flags));
  const operator = program
    .command("operator")
    .description(
      "run karmada-operator against a host cluster: installs a Karmada control plane (this project's image) for each operator.karmada.io/v1alpha1 Karmada object there, and removes it when the object goes",
    )
    .option("--kubeconfig <path>", "kubeconfig of the host cluster (default: $KUBECONFIG, ~/.kube/config)")
    .option("--context <name>", "kubeconfig context to use")
    .option("--karmada-image <image>", "the image the control-plane components run", DEFAULT_AGENT_IMAGE)
    .option("--concurrent-karmada-syncs <n>", "Karmada objects reconciled at once", count, 5);
  addHealthOptions(addLeaderElectionOptions(addStopWithStdinOption(operator)), ":8443")
    .option("--log-level <level>", "debug, info, warn or error", level, "info")
    .action((flags: OperatorFlags) => runOperatorCommand(flags));
  const agent = program
    .command("agent")
    .description(
      "run the agent of a Pull-mode member cluster: registers the cluster with the control plane, then reports its status and renews its Lease (one replica leads through karmada-system/karmada-agent-<cluster>)",
    )
    .option(
      "--karmada-kubeconfig <path>",
      "kubeconfig of the Karmada control plane (default: the member's Secret <--karmada-kubeconfig-namespace>/karmada-kubeconfig, as `karmadactl register` writes it)",
    )
    .option(
      "--karmada-kubeconfig-namespace <ns>",
      "member namespace of the Secret karmada-kubeconfig holding the agent's control-plane kubeconfig (read without --karmada-kubeconfig, rotated by certRotation)",
      "karmada-system",
    )
    .option("--karmada-context <name>", "context in --karmada-kubeconfig")
    .option(
      "--kubeconfig <path>",
      "kubeconfig of the member cluster the agent serves (default: $KUBECONFIG, ~/.kube/config)",
    )
    .option("--cluster-context <name>", "context in --kubeconfig (karmada-ts addition)")
    .option("--cluster-name <name>", "name of the member cluster the agent serves (required)")
    .option("--cluster-namespace <ns>", "control-plane namespace of the cluster's secrets", "karmada-cluster")
    .option(
      "--cluster-api-endpoint <url>",
      "the member's API endpoint to record (default: --kubeconfig's server)",
    )
    .option("--proxy-server-address <url>", "proxy through which the member is reached")
    .option("--cluster-provider <name>", "provider of the cluster")
    .option("--cluster-region <region>", "region of the cluster")
    .option("--cluster-zones <zones>", "zones of the cluster (comma-separated)", list)
    .option(
      "--report-secrets <kinds>",
      "secrets reported to the control plane: KubeCredentials,KubeImpersonator or None",
      list,
    )
    .option(
      "--controllers <names>",
      `controllers to run: * for all, name to enable, -name to disable; known: ${Object.keys(agentControllers("")).join(", ")}`,
      list,
    )
    .addOption(
      durationOption("--cluster-lease-duration <duration>", "how long the cluster's Lease is valid", "40s"),
    )
    .option(
      "--cluster-lease-renew-interval-fraction <f>",
      "renew the Lease every duration × f",
      (v: string) => Number(v),
      0.25,
    )
    .addOption(
      durationOption(
        "--cert-rotation-checking-interval <duration>",
        "how often certRotation checks the agent's certificate (with --controllers=*,certRotation)",
        "5m",
      ),
    )
    .option(
      "--cert-rotation-remaining-time-threshold <f>",
      "certRotation renews the certificate once its remaining lifetime is at most this fraction of the whole",
      (v: string) => Number(v),
      0.2,
    )
    // Flags the Deployment `karmadactl register` writes passes; accepted so the same command
    // line runs here. No metrics or health endpoints are served yet (issue J).
    .addOption(
      new Option("--metrics-bind-address <addr>", "accepted for compatibility; not served yet").hideHelp(),
    )
    .addOption(
      new Option(
        "--health-probe-bind-address <addr>",
        "accepted for compatibility; not served yet",
      ).hideHelp(),
    )
    .addOption(
      new Option("--v <level>", "klog verbosity, accepted for compatibility (use --log-level)").hideHelp(),
    );
  addFeatureGatesOption(addClusterStatusOptions(addLeaderElectionOptions(agent)))
    .option("--log-level <level>", "debug, info, warn or error", level, "info")
    .action((flags: AgentFlags) => runAgentCommand({ ...flags, controllers: flags.controllers ?? ["*"] }));
  const memberSim = program
    .command("member-sim")
    .description(
      "run a simulated member cluster (kwok style): our API server with nodes, a scheduler, a simulated kubelet and the workload controllers; for tests, demos and benchmarks",
    )
    .option("--name <name>", "cluster name (node names <name>-node-<i>, kubeconfig context)", "member1")
    .option("--bind-address <ip>", "address to listen on", "127.0.0.1")
    .option("--port <n>", "port for the API and the admin endpoint /sim/faults (0: a free port)", port, 0)
    .option("--nodes <n>", "simulated nodes", count, 3)
    .option("--node-cpu <quantity>", "cpu capacity of each node", "8")
    .option("--node-memory <quantity>", "memory capacity of each node", "32Gi")
    .option("--node-pods <n>", "pod capacity of each node", count, 110)
    .option("--region <region>", "topology.kubernetes.io/region label on every node")
    .option("--zone <zone>", "topology.kubernetes.io/zone label on every node")
    .option("--provider <name>", "cloud provider (nodes' spec.providerID <provider>://<cluster>/<node>)")
    .option(
      "--stages <file.yaml>",
      `custom-resource stages: a YAML list of {name, apiVersion, kind, delayMs?, when?: once | {missing: <path>} | {equals: {<path>: <value>}}, set: {status: {...}}}; status strings may use ${PLACEHOLDERS.join(" ")}`,
    )
    .option(
      "--kubeconfig-out <path>",
      "write a kubeconfig reaching the cluster as its administrator (context named after it; CA and client certificate inline)",
    )
    .option(
      "--cert-dir <dir>",
      "keep the cluster's CA, serving certificate, admin certificate and service-account key here (made on first start, reused after); default: new ones in memory",
    )
    .option("--insecure", "serve plain HTTP with no authentication or authorization (benchmarks only)", false)
    .option("--storage <url>", "memory:, sqlite://<path> or etcd://host:port", "memory:")
    .option("--log-level <level>", "debug, info, warn or error", level, "warn")
    .addOption(new Option("--stop-with-stdin", "stop when stdin closes (set by `karmada up`)").hideHelp())
    .addHelpText(
      "after",
      [
        "",
        "Prints `member-sim <name> listening on <url>` once serving; stops on SIGINT/SIGTERM.",
        "Faults: POST <url>/sim/faults with JSON as the cluster's admin, or `karmada member-sim fault --kubeconfig <file> --context <name> <type>`.",
      ].join("\n"),
    )
    .action((flags: MemberSimFlags) => runMemberSim(flags));
  memberSim
    .command("fault")
    .description(
      "inject or end a fault in a running member-sim: unreachable [--hang] | unhealthy | cordon [--node N] | node-not-ready [--node N] | delete-pods -n NS [-l SEL] | unhealthy-workload -n NS KIND/NAME | restore [--id ID] | list",
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
