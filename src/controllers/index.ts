/**
 * The controller registry (names as upstream's karmada-controller-manager uses them for
 * `--controllers`) and the manager that runs the enabled ones over shared informers.
 */
import type { Client } from "../client/client.ts";
import type { MemberConnections } from "../cluster/connections.ts";
import { MemberWatches } from "../cluster/member-watches.ts";
import { Interpreter } from "../interpreter/index.ts";
import { nativeInterpreter } from "../interpreter/native/index.ts";
import type { Logger } from "../log.ts";
import { createMetricsRegistry, type Registry } from "../metrics/registry.ts";
import { type Controller, type RunningController, runController } from "../runtime/controller.ts";
import { eventRecorder } from "../runtime/events.ts";
import { InformerFactory, withoutManagedFields } from "../runtime/informer.ts";
import { agentCsrApprovingController } from "./agent-csr-approving.ts";
import { applicationFailoverController } from "./application-failover.ts";
import { bindingController } from "./binding.ts";
import { bindingStatusController } from "./binding-status.ts";
import { certRotationController } from "./cert-rotation.ts";
import { clusterController } from "./cluster.ts";
import { clusterMonitorController } from "./cluster-monitor.ts";
import { clusterStatusController } from "./cluster-status/index.ts";
import { clusterTaintPolicyController } from "./cluster-taint-policy.ts";
import type { ControllerContext, ControllerOptions } from "./context.ts";
import { dependenciesDistributor } from "./dependencies/index.ts";
import { detectorController } from "./detector/index.ts";
import { executionController } from "./execution.ts";
import { gracefulEvictionController } from "./graceful-eviction.ts";
import { configureInterpreter } from "./interpreter-config.ts";
import { namespaceController } from "./namespace.ts";
import { controllerOptions } from "./options.ts";
import { schedulerController } from "./scheduler.ts";
import { taintManagerController } from "./taint-manager.ts";
import { unifiedAuthController } from "./unified-auth.ts";
import { workStatusController } from "./work-status.ts";

export type ControllerRegistry = Record<string, (ctx: ControllerContext) => Controller[]>;

/** Upstream's controller names; one name may run several loops (as upstream's `cluster` does). */
export const controllers: ControllerRegistry = {
  // Upstream's cluster controller hosts the taint manager (gate Failover, `--enable-taint-manager`).
  cluster: (ctx) => [
    clusterController(ctx),
    clusterMonitorController(ctx),
    ...(ctx.options.features.enabled("Failover") && ctx.options.enableTaintManager
      ? [taintManagerController(ctx)]
      : []),
  ],
  // Not gated, as upstream's: the GracefulEviction gate only picks the taint manager's purge
  // mode, and `Directly` tasks made with it off still have to end.
  gracefulEviction: (ctx) => [gracefulEvictionController(ctx, false), gracefulEvictionController(ctx, true)],
  applicationFailover: (ctx) => [
    applicationFailoverController(ctx, false),
    applicationFailoverController(ctx, true),
  ],
  clusterStatus: (ctx) => [clusterStatusController(ctx)],
  binding: (ctx) => [
    bindingController(ctx, ctx.interpreter, false),
    bindingController(ctx, ctx.interpreter, true),
  ],
  bindingStatus: (ctx) => [
    bindingStatusController(ctx, ctx.interpreter, false),
    bindingStatusController(ctx, ctx.interpreter, true),
  ],
  execution: (ctx) => [executionController(ctx, ctx.interpreter)],
  workStatus: (ctx) => [workStatusController(ctx, ctx.interpreter)],
  namespace: (ctx) => [namespaceController(ctx)],
  // Lets the subjects allowed to proxy a cluster be impersonated there (cluster proxy, search proxy).
  unifiedAuth: (ctx) => [unifiedAuthController(ctx)],
  // Upstream starts it only with the Failover feature gate.
  clustertaintpolicy: (ctx) =>
    ctx.options.features.enabled("Failover") ? [clusterTaintPolicyController(ctx)] : [],
  // Approves agents' client certificate requests (registration and renewal), as upstream v1.12+.
  agentcsrapproving: (ctx) => [agentCsrApprovingController(ctx)],
  // Upstream starts its dependencies distributor next to the resource detector when the
  // PropagateDeps feature gate (on by default) is enabled; `-dependenciesDistributor` also turns it off.
  dependenciesDistributor: (ctx) =>
    ctx.options.features.enabled("PropagateDeps") ? [dependenciesDistributor(ctx, ctx.interpreter)] : [],
};

/** What the controller manager runs whatever `--controllers` says, as upstream runs its resource detector. */
export const alwaysOn = (ctx: ControllerContext): Controller[] => [detectorController(ctx, ctx.interpreter)];

/** `karmada scheduler`: one loop for ResourceBindings, one for ClusterResourceBindings. */
export const schedulerControllers: ControllerRegistry = {
  scheduler: (ctx) => [schedulerController(ctx, false), schedulerController(ctx, true)],
};

/** What `karmada agent` runs for its own Pull cluster, under upstream's agent controller names. */
export function agentControllers(clusterName: string): ControllerRegistry {
  return {
    clusterStatus: (ctx) => [clusterStatusController(ctx, { pullCluster: clusterName })],
    execution: (ctx) => [executionController(ctx, ctx.interpreter, { pullCluster: clusterName })],
    workStatus: (ctx) => [workStatusController(ctx, ctx.interpreter, { pullCluster: clusterName })],
    certRotation: (ctx) => [certRotationController(ctx, clusterName)],
  };
}

/** Controllers `*` does not turn on (upstream's disabled-by-default set). */
export const DISABLED_BY_DEFAULT: ReadonlySet<string> = new Set(["certRotation"]);

/**
 * Upstream's `--controllers` semantics: `*` enables the defaults, `name` enables one,
 * `-name` disables one. The first explicit mention of a name decides, wherever `*` stands.
 */
export function isControllerEnabled(name: string, flags: readonly string[]): boolean {
  for (const flag of flags) {
    if (flag === name) return true;
    if (flag === `-${name}`) return false;
  }
  return flags.includes("*") && !DISABLED_BY_DEFAULT.has(name);
}

export interface ControllerManagerOptions {
  client: Client;
  members: MemberConnections;
  log: Logger;
  now?: () => number;
  options?: Partial<ControllerOptions>;
  /** `--controllers` (default `["*"]`). */
  controllers?: string[];
  /** Which controllers exist (default: the controller manager's). */
  registry?: ControllerRegistry;
  /** Run whatever `controllers` says (default: the resource detector with the default registry). */
  alwaysOn?: (ctx: ControllerContext) => Controller[];
  /** Freeze informer caches (tests). */
  freezeCaches?: boolean;
  /** How long the controllers wait for their caches to list before starting anyway (default 2 minutes). */
  cacheSyncTimeoutMs?: number;
  /** Where the controllers' metrics go (default: a registry of their own, which nobody reads). */
  metrics?: Registry;
}

export interface RunningControllerManager {
  readonly running: RunningController[];
  readonly informers: InformerFactory;
  stop(): void;
}

/** controller-runtime's default CacheSyncTimeout. */
export const CACHE_SYNC_TIMEOUT_MS = 120_000;

async function cachesSynced(informers: InformerFactory, timeoutMs: number, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
    timer.unref();
  });
  const result = await Promise.race([informers.waitForSync(), timedOut]);
  clearTimeout(timer);
  if (result === "timeout")
    log.warn("caches did not sync in time; the controllers start anyway", { timeoutMs });
}

export function startControllerManager(opts: ControllerManagerOptions): RunningControllerManager {
  const now = opts.now ?? (() => Date.now());
  const metrics = opts.metrics ?? createMetricsRegistry({ processMetrics: false });
  const informers = new InformerFactory(opts.client, {
    log: opts.log,
    transform: withoutManagedFields,
    ...(opts.freezeCaches ? { freeze: true } : {}),
  });
  const memberWatches = new MemberWatches(opts.members, opts.log);
  const ctx: ControllerContext = {
    client: opts.client,
    informers,
    members: opts.members,
    memberWatches,
    recorder: (component) => eventRecorder(opts.client, component, { now, log: opts.log }),
    log: opts.log,
    now,
    options: controllerOptions(opts.options),
    interpreter: new Interpreter(nativeInterpreter),
    metrics,
  };
  const closeInterpreter = configureInterpreter(informers, ctx.interpreter, opts.log);
  const flags = opts.controllers ?? ["*"];
  const always = opts.alwaysOn ?? (opts.registry ? undefined : alwaysOn);
  const made = [
    ...(always?.(ctx) ?? []),
    ...Object.entries(opts.registry ?? controllers)
      .filter(([name]) => isControllerEnabled(name, flags))
      .flatMap(([, make]) => make(ctx)),
  ];
  // Every cache the controllers made lists before any of them reconciles (bounded, so one
  // kind the server does not serve cannot hold everything back for good).
  const ready = cachesSynced(informers, opts.cacheSyncTimeoutMs ?? CACHE_SYNC_TIMEOUT_MS, opts.log);
  const running = made.map((c) => runController(c, { log: opts.log, ready, metrics }));
  // Keys that failed while the API server was down (restarting, say) would otherwise sit out
  // their backoff, up to a minute and a half, after it is back.
  const unsubscribe = opts.client.onRecovered?.(() => {
    opts.log.info("the API server answers again; retrying the keys that failed meanwhile");
    for (const r of running) r.queue.retryFailing();
  });
  informers.start();
  return {
    running,
    informers,
    stop() {
      unsubscribe?.();
      for (const r of running) r.stop();
      memberWatches.stop();
      informers.stop();
      closeInterpreter();
    },
  };
}
