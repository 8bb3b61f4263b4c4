/**
 * For tests of the cluster controllers: a control plane and simulated members in this
 * process, joined with the real `karmadactl join`, a controller manager over real member
 * connections whose health probes are recorded, a Cluster history, and bounded polling.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isObject, type StoredObject } from "../../src/api/meta.ts";
import { type RunningControlPlane, startLocalControlPlane } from "../../src/bin/control-plane.ts";
import {
  DEFAULT_CLUSTER_NAMESPACE,
  type JoinOptions,
  runJoin,
  runUnjoin,
  type UnjoinOptions,
} from "../../src/cli/commands/join.ts";
import { clientFactory } from "../../src/cli/factory.ts";
import type { CommandIO } from "../../src/cli/io.ts";
import { RESOURCES } from "../../src/client/client.ts";
import { kubeconfigFor, writeKubeconfig } from "../../src/client/kubeconfig.ts";
import { LocalClient } from "../../src/client/local.ts";
import {
  type MemberConnection,
  type MemberConnections,
  memberConnections,
} from "../../src/cluster/connections.ts";
import type { ControllerOptions } from "../../src/controllers/context.ts";
import { type RunningControllerManager, startControllerManager } from "../../src/controllers/index.ts";
import { silentLogger } from "../../src/log.ts";
import { type Condition, findCondition } from "../../src/machinery/conditions.ts";
import { isNotFound } from "../../src/machinery/errors.ts";
import type { Taint } from "../../src/machinery/tolerations.ts";
import {
  type MemberClusterOptions,
  type ServedMemberCluster,
  serveMemberCluster,
} from "../../src/member-sim/cluster.ts";
import { Informer } from "../../src/runtime/informer.ts";
import { FAST, until as pollUntil } from "./member-sim.ts";

/** Polls `check` until it returns a truthy value, for at most `ms` (controllers need longer than the simulator). */
export function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  ms = 15_000,
): Promise<T> {
  return pollUntil(check, what, ms);
}

export function conditionsOf(obj: StoredObject | undefined): Condition[] {
  const status = isObject(obj?.status) ? obj.status : {};
  return (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
}

export function readyOf(obj: StoredObject | undefined): Condition | undefined {
  return findCondition(conditionsOf(obj), "Ready");
}

export function taintsOf(obj: StoredObject | undefined): Taint[] {
  const spec = isObject(obj?.spec) ? obj.spec : {};
  return (Array.isArray(spec.taints) ? spec.taints : []) as Taint[];
}

/** `key:effect` of each taint, as `kubectl describe` shows them. */
export function taintKeys(obj: StoredObject | undefined): string[] {
  return taintsOf(obj).map((t) => `${t.key}:${t.effect}`);
}

/** One health probe the controllers made of a member, as the member answered it. */
export interface Probe {
  cluster: string;
  path: string;
  status?: number;
  error?: string;
}

/**
 * Real member connections whose `getRaw` calls are written down, so tests can say "the
 * controller saw the failure N times before it published it" without reading clocks.
 */
export function recordingConnections(
  inner: MemberConnections,
  onProbe: (p: Probe) => void = () => {},
): MemberConnections & { probes: Probe[] } {
  const probes: Probe[] = [];
  const record = (p: Probe): void => {
    probes.push(p);
    onProbe(p);
  };
  return {
    probes,
    async connect(cluster: StoredObject): Promise<MemberConnection> {
      const conn = await inner.connect(cluster);
      const name = cluster.metadata.name;
      return {
        client: conn.client,
        async getRaw(path, timeoutMs) {
          try {
            const r = await conn.getRaw(path, timeoutMs);
            record({ cluster: name, path, status: r.status });
            return r;
          } catch (err) {
            record({ cluster: name, path, error: (err as Error).message });
            throw err;
          }
        },
      };
    },
    forget: (name) => inner.forget(name),
  };
}

/** What one Cluster looked like after each change the control plane made to it. */
export interface ClusterSnapshot {
  event: "added" | "updated" | "deleted";
  ready?: string;
  reason?: string;
  taints: string[];
  finalizers: string[];
  deleting: boolean;
}

export interface HistoryEntry {
  cluster: string;
  snapshot?: ClusterSnapshot;
  /** A health probe a controller made. */
  probe?: Probe;
  marker?: string;
}

const isHealthPath = (path: string): boolean => path === "/readyz" || path === "/healthz";

/**
 * Every version of every Cluster in order, interleaved with the controllers' health probes
 * and markers the test writes: one timeline to assert the order of things on.
 */
export class ClusterHistory {
  readonly entries: HistoryEntry[] = [];
  #informer: Informer;

  constructor(client: LocalClient) {
    this.#informer = new Informer(client, RESOURCES.clusters);
    const record = (event: ClusterSnapshot["event"], obj: StoredObject): void => {
      const ready = readyOf(obj);
      this.entries.push({
        cluster: obj.metadata.name,
        snapshot: {
          event,
          ...(ready ? { ready: ready.status, reason: ready.reason ?? "" } : {}),
          taints: taintKeys(obj),
          finalizers: obj.metadata.finalizers ?? [],
          deleting: obj.metadata.deletionTimestamp !== undefined,
        },
      });
    };
    this.#informer.addHandler({
      onAdd: (o) => record("added", o),
      onUpdate: (_old, o) => record("updated", o),
      onDelete: (o) => record("deleted", o),
    });
    this.#informer.start();
  }

  synced(): Promise<void> {
    return this.#informer.waitForSync();
  }

  mark(cluster: string, marker: string): void {
    this.entries.push({ cluster, marker });
  }

  probe(p: Probe): void {
    if (isHealthPath(p.path)) this.entries.push({ cluster: p.cluster, probe: p });
  }

  of(cluster: string): HistoryEntry[] {
    return this.entries.filter((e) => e.cluster === cluster);
  }

  /**
   * The health probes made between `marker` and the first Cluster version after it whose
   * Ready has `status` (throws when there is no such version yet).
   */
  probesBefore(cluster: string, marker: string, status: string): Probe[] {
    const entries = this.of(cluster);
    const from = entries.findIndex((e) => e.marker === marker);
    if (from < 0) throw new Error(`no marker ${marker}`);
    const rest = entries.slice(from + 1);
    const to = rest.findIndex((e) => e.snapshot?.ready === status);
    if (to < 0) throw new Error(`${cluster} did not turn Ready=${status} after ${marker}`);
    return rest.slice(0, to).flatMap((e) => (e.probe ? [e.probe] : []));
  }

  /** The Ready statuses the Cluster went through, repeats collapsed ("-" for none). */
  readyTransitions(cluster: string): string[] {
    const out: string[] = [];
    for (const e of this.of(cluster)) {
      if (!e.snapshot || e.snapshot.event === "deleted") continue;
      const s = e.snapshot.ready ? `${e.snapshot.ready}/${e.snapshot.reason}` : "-";
      if (out[out.length - 1] !== s) out.push(s);
    }
    return out;
  }

  stop(): void {
    this.#informer.stop();
  }
}

export interface RunningManager {
  manager: RunningControllerManager;
  probes: Probe[];
  /** Health probes (`/readyz`, `/healthz`) of one cluster, in order. */
  healthProbes(cluster: string): Probe[];
  stop(): void;
}

/** A control plane, its kubeconfig, members, and controller managers, all stopped by `stop()`. */
export class ClusterTestEnv {
  readonly members = new Map<string, ServedMemberCluster>();
  readonly managers: RunningManager[] = [];
  readonly output: string[] = [];
  readonly dir: string;
  readonly cp: RunningControlPlane;
  readonly client: LocalClient;
  readonly kubeconfig: string;
  /** Every Cluster change and every health probe of every manager, in order. */
  readonly history: ClusterHistory;

  private constructor(dir: string, cp: RunningControlPlane, client: LocalClient, kubeconfig: string) {
    this.dir = dir;
    this.cp = cp;
    this.client = client;
    this.kubeconfig = kubeconfig;
    this.history = new ClusterHistory(client);
  }

  static async start(): Promise<ClusterTestEnv> {
    const dir = await mkdtemp(join(tmpdir(), "karmada-ts-cluster-"));
    const cp = await startLocalControlPlane();
    const client = new LocalClient(cp.api.context, { fieldManager: "karmada-test" });
    const env = new ClusterTestEnv(dir, cp, client, join(dir, "karmada.config"));
    await env.#writeKubeconfig();
    await env.history.synced();
    return env;
  }

  async #writeKubeconfig(): Promise<void> {
    await writeKubeconfig(
      this.kubeconfig,
      kubeconfigFor([
        { name: "karmada-apiserver", connection: this.cp.connection },
        ...[...this.members.values()].map((m) => ({ name: m.name, connection: m.connection })),
      ]),
    );
  }

  /** Starts a simulated member on a free port and adds a context named after it to the kubeconfig. */
  async addMember(name: string, opts: Partial<MemberClusterOptions> = {}): Promise<ServedMemberCluster> {
    const m = await serveMemberCluster({ name, port: 0, timing: FAST, ...opts });
    this.members.set(name, m);
    await this.#writeKubeconfig();
    return m;
  }

  /** Stops a member for good (its port refuses connections from then on). */
  async stopMember(name: string): Promise<void> {
    await this.member(name).stop();
    this.members.delete(name);
  }

  member(name: string): ServedMemberCluster {
    const m = this.members.get(name);
    if (!m) throw new Error(`no member ${name}`);
    return m;
  }

  #io(): CommandIO {
    const write = (t: string): void => {
      this.output.push(t);
    };
    return { stdout: { write }, stderr: { write } };
  }

  /** `karmadactl join <name> --cluster-kubeconfig=<env kubeconfig> --cluster-context=<name>`. */
  async join(name: string, opts: Partial<JoinOptions> = {}): Promise<void> {
    const factory = clientFactory({ kubeconfig: this.kubeconfig, karmadaContext: "karmada-apiserver" }, {});
    try {
      await runJoin(
        {
          name,
          clusterKubeconfig: this.kubeconfig,
          clusterContext: name,
          clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
          dryRun: false,
          ...opts,
        },
        this.#io(),
        factory,
      );
    } finally {
      factory.close();
    }
  }

  /** `karmadactl unjoin <name> --cluster-kubeconfig=<env kubeconfig> --cluster-context=<name>`. */
  async unjoin(name: string, opts: Partial<UnjoinOptions> = {}): Promise<void> {
    const factory = clientFactory({ kubeconfig: this.kubeconfig, karmadaContext: "karmada-apiserver" }, {});
    try {
      await runUnjoin(
        {
          name,
          clusterKubeconfig: this.kubeconfig,
          clusterContext: name,
          clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
          waitMs: 30_000,
          force: false,
          dryRun: false,
          ...opts,
        },
        this.#io(),
        factory,
      );
    } finally {
      factory.close();
    }
  }

  /** A controller manager (its own informers and member connections) on this control plane. */
  startManager(
    opts: { controllers?: string[]; options?: Partial<ControllerOptions>; now?: () => number } = {},
  ): RunningManager {
    const client = new LocalClient(this.cp.api.context, { fieldManager: "karmada-controller-manager" });
    // Requests without their own limit (lists) give up after 3 s, so a hung member frees the
    // status controller well within the tests' waits.
    const connections = memberConnections({ controlPlane: client, timeoutMs: 3_000 });
    const recording = recordingConnections(connections, (p) => this.history.probe(p));
    const manager = startControllerManager({
      client,
      members: recording,
      log: silentLogger,
      controllers: opts.controllers ?? ["*"],
      ...(opts.options ? { options: opts.options } : {}),
      ...(opts.now ? { now: opts.now } : {}),
    });
    let stopped = false;
    const running: RunningManager = {
      manager,
      probes: recording.probes,
      healthProbes: (cluster) =>
        recording.probes.filter((p) => p.cluster === cluster && isHealthPath(p.path)),
      stop() {
        if (stopped) return;
        stopped = true;
        manager.stop();
        connections.close();
      },
    };
    this.managers.push(running);
    return running;
  }

  getCluster(name: string): Promise<StoredObject> {
    return this.client.get(RESOURCES.clusters, undefined, name);
  }

  /** Resolves true once `get` answers NotFound. */
  async gone(get: () => Promise<unknown>): Promise<boolean> {
    try {
      await get();
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  }

  /** Waits until the Cluster's Ready condition has this status (and reason, if given). */
  untilReady(name: string, status: string, reason?: string, ms?: number): Promise<StoredObject> {
    return until(
      async () => {
        const c = await this.getCluster(name);
        const ready = readyOf(c);
        return ready?.status === status && (reason === undefined || ready.reason === reason) && c;
      },
      `cluster ${name} Ready=${status}${reason ? ` (${reason})` : ""}`,
      ms,
    );
  }

  /** Events about an object in a namespace (cluster-scoped objects: `default`). */
  async eventsFor(name: string, namespace = "default"): Promise<StoredObject[]> {
    const list = await this.client.list(RESOURCES.events, namespace);
    return list.items.filter((e) => isObject(e.involvedObject) && e.involvedObject.name === name);
  }

  async stop(): Promise<void> {
    this.history.stop();
    for (const m of this.managers) m.stop();
    for (const m of this.members.values()) await m.stop();
    await this.cp.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
