/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with client-go's algorithm: candidates
 * take the Lease when it is free or has not changed for a lease duration, the leader renews it
 * every retry period and gives up when renewals keep failing for the renew deadline, writes use
 * optimistic concurrency (a 409 means someone else got there first), and a leader that stops
 * may release the Lease so that a standby takes over at once.
 *
 * Like client-go, expiry is judged only by the local clock: a candidate notes when it last saw
 * the lease record change and waits a lease duration from then. The timestamps in the Lease are
 * written for people and other tools, never trusted, so clock skew between candidates does not
 * matter (only skew in clock rate does).
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { rfc3339Micro, type StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import { type Logger, silentLogger } from "../log.ts";
import { isConflict, isNotFound } from "../machinery/errors.ts";
import { gauge, type Registry } from "../metrics/registry.ts";

export interface LeaderElectionOptions {
  client: Pick<Client, "get" | "create" | "update">;
  /** Where the Lease lives. */
  namespace: string;
  name: string;
  /** This candidate, unique among candidates (e.g. hostname + "_" + a random suffix). */
  identity: string;
  /**
   * How long a standby waits, from the last change it saw, before taking the Lease (default
   * 15000). Written to the Lease as whole seconds, rounded up.
   */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a failing renewal before it stops leading (default 10000). */
  renewDeadlineMs?: number;
  /** Time between attempts, to acquire and to renew (default 2000). Standbys add jitter. */
  retryPeriodMs?: number;
  /**
   * On `stop()`, hand the Lease back (empty holder, duration 1s) so a standby takes it at its
   * next attempt. Only safe once everything the leader started has finished.
   */
  releaseOnCancel?: boolean;
  /** Called once this candidate leads; `signal` aborts when it stops leading. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called once after leading ends: leadership lost or `stop()` while leading. */
  onStoppedLeading(): void;
  /** Called when a different holder is seen, this candidate included. */
  onNewLeader?(identity: string): void;
  /** Local time in ms for expiry decisions and the Lease's timestamps (default: Date.now). */
  clock?: { now(): number };
  /** Source of jitter in [0, 1) (default: Math.random). */
  random?: () => number;
  log?: Logger;
}

/** client-go's factor: a standby waits retryPeriod × (1 + up to 1.2) between attempts. */
const JITTER_FACTOR = 1.2;
/** Attempts at releasing when our own in-flight renewal races the release write. */
const RELEASE_ATTEMPTS = 5;

/** The fields of a Lease's spec that carry the election record. */
interface ElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

type LeaseSpec = Partial<ElectionRecord> & Record<string, unknown>;

function specOf(lease: StoredObject): LeaseSpec {
  const spec = lease.spec;
  return spec && typeof spec === "object" ? (spec as LeaseSpec) : {};
}

/** What identifies a version of the election record; a change means the holder is alive. */
function recordKey(spec: LeaseSpec): string {
  return JSON.stringify([
    spec.holderIdentity ?? "",
    spec.leaseDurationSeconds ?? 0,
    spec.acquireTime ?? "",
    spec.renewTime ?? "",
    spec.leaseTransitions ?? 0,
  ]);
}

/** Resolves after `ms`, or at once when `signal` aborts. The timer never keeps Node alive. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    timer.unref();
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** `p`'s value, or `undefined` as soon as `signal` aborts (`p` keeps running). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve(undefined);
      },
    );
  });
}

/** A signal that aborts after `ms` (unref'd); `cancel` clears the timer. */
function deadline(ms: number, parent?: AbortSignal): { signal: AbortSignal; cancel(): void } {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), ms);
  timer.unref();
  const onParent = (): void => ctl.abort();
  parent?.addEventListener("abort", onParent, { once: true });
  if (parent?.aborted) ctl.abort();
  return {
    signal: ctl.signal,
    cancel: () => {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParent);
    },
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class LeaderElector {
  readonly identity: string;
  /** Resolves when the elector has ended: leadership lost, or stopped (after any release). */
  readonly done: Promise<void>;
  #client: LeaderElectionOptions["client"];
  #namespace: string;
  #name: string;
  #leaseDurationMs: number;
  #leaseDurationSeconds: number;
  #renewDeadlineMs: number;
  #retryPeriodMs: number;
  #releaseOnCancel: boolean;
  #callbacks: Pick<LeaderElectionOptions, "onStartedLeading" | "onStoppedLeading" | "onNewLeader">;
  #clock: { now(): number };
  #random: () => number;
  #log: Logger;

  /** The Lease as last read or written, for the leader's optimistic renewals. */
  #lease: StoredObject | undefined;
  #observedKey = "";
  #observedHolder = "";
  #observedSeconds = 0;
  /** Local time at which the record last changed, as far as we saw. */
  #observedTime = 0;
  #reportedLeader = "";

  #started = false;
  #leading = false;
  /** Set once the elector winds down: no more onNewLeader calls. */
  #ended = false;
  #stop = new AbortController();
  #leadership: AbortController | undefined;
  /** The attempt whose result we stopped waiting for (deadline or stop), if still running. */
  #inflight: Promise<unknown> | undefined;
  #resolveDone: () => void = () => {};

  constructor(opts: LeaderElectionOptions) {
    const leaseDurationMs = opts.leaseDurationMs ?? 15_000;
    const renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    const retryPeriodMs = opts.retryPeriodMs ?? 2_000;
    if (!opts.identity) throw new Error("leader election: identity must not be empty");
    if (!opts.name || !opts.namespace)
      throw new Error("leader election: lease namespace and name are required");
    if (!(leaseDurationMs > 0 && renewDeadlineMs > 0 && retryPeriodMs > 0))
      throw new Error("leader election: durations must be greater than zero");
    if (leaseDurationMs <= renewDeadlineMs)
      throw new Error("leader election: leaseDuration must be greater than renewDeadline");
    if (renewDeadlineMs <= JITTER_FACTOR * retryPeriodMs)
      throw new Error("leader election: renewDeadline must be greater than retryPeriod*1.2");
    this.identity = opts.identity;
    this.#client = opts.client;
    this.#namespace = opts.namespace;
    this.#name = opts.name;
    this.#leaseDurationMs = leaseDurationMs;
    this.#leaseDurationSeconds = Math.ceil(leaseDurationMs / 1000);
    this.#renewDeadlineMs = renewDeadlineMs;
    this.#retryPeriodMs = retryPeriodMs;
    this.#releaseOnCancel = opts.releaseOnCancel ?? false;
    this.#callbacks = {
      onStartedLeading: opts.onStartedLeading,
      onStoppedLeading: opts.onStoppedLeading,
      ...(opts.onNewLeader ? { onNewLeader: opts.onNewLeader } : {}),
    };
    this.#clock = opts.clock ?? { now: () => Date.now() };
    this.#random = opts.random ?? Math.random;
    this.#log = (opts.log ?? silentLogger).child({
      namespace: opts.namespace,
      name: opts.name,
      identity: opts.identity,
    });
    this.done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  /** Whether this candidate leads right now. */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** The holder last seen in the Lease ("" when free or not read yet). */
  /**
   * kube's leader-election health check (its HealthzAdaptor): a leader whose Lease record has
   * not been renewed for a lease duration plus `toleranceMs` is unhealthy, so that a probe
   * restarts a replica stuck holding a Lease it no longer renews. Undefined when healthy.
   */
  healthProblem(toleranceMs = 20_000): string | undefined {
    if (!this.#leading) return undefined;
    if (this.#clock.now() - this.#observedTime <= this.#leaseDurationMs + toleranceMs) return undefined;
    return `failed election to renew leadership on lease ${this.#name}`;
  }

  get leader(): string {
    return this.#observedHolder;
  }

  /** Starts campaigning; once only. */
  start(): this {
    if (this.#started) throw new Error("leader election: already started");
    this.#started = true;
    void this.#run();
    return this;
  }

  /**
   * Stops campaigning or leading: aborts the leadership signal, releases the Lease when
   * `releaseOnCancel`, calls `onStoppedLeading` if leading. Resolves when all that is done.
   */
  stop(): Promise<void> {
    this.#stop.abort();
    if (!this.#started) {
      this.#started = true;
      this.#resolveDone();
    }
    return this.done;
  }

  async #run(): Promise<void> {
    try {
      this.#log.info("attempting to acquire leader lease");
      if (await this.#acquire()) {
        this.#log.info("acquired leader lease");
        this.#startLeading();
        const lost = !(await this.#renewUntilLostOrStopped());
        if (lost) this.#log.warn("failed to renew leader lease, stopping leading");
      }
      await this.#finish();
    } catch (err) {
      // Only a bug gets here: attempts and callbacks catch their own errors.
      this.#log.error(err, "leader election failed");
    } finally {
      this.#resolveDone();
    }
  }

  /** Tries until it leads (true) or is stopped (false). */
  async #acquire(): Promise<boolean> {
    const stopped = this.#stop.signal;
    while (!stopped.aborted) {
      const acquired = await this.#attempt(stopped);
      if (acquired) return true;
      if (stopped.aborted) break;
      await sleep(this.#retryPeriodMs * (1 + this.#random() * JITTER_FACTOR), stopped);
    }
    return false;
  }

  /**
   * Renews every retry period. A round of renewing that has not succeeded within the renew
   * deadline ends leadership (false); `stop()` ends it too (true).
   */
  async #renewUntilLostOrStopped(): Promise<boolean> {
    const stopped = this.#stop.signal;
    while (!stopped.aborted) {
      await sleep(this.#retryPeriodMs, stopped);
      if (stopped.aborted) break;
      const round = deadline(this.#renewDeadlineMs, stopped);
      let renewed = false;
      try {
        while (!round.signal.aborted) {
          renewed = await this.#attempt(round.signal);
          if (renewed || round.signal.aborted) break;
          await sleep(this.#retryPeriodMs, round.signal);
        }
      } finally {
        round.cancel();
      }
      if (!renewed && !stopped.aborted) return false;
    }
    return true;
  }

  /**
   * One acquire-or-renew attempt, abandoned (false) when `signal` aborts first; an abandoned
   * attempt stays in `#inflight` for `#finish` to wait on. Every abort leads to `#finish`, so
   * attempts never overlap.
   */
  async #attempt(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    const attempt = this.#tryAcquireOrRenew();
    this.#inflight = attempt;
    const result = await untilAborted(attempt, signal);
    if (signal.aborted) return false;
    this.#inflight = undefined;
    return result === true;
  }

  #startLeading(): void {
    this.#leading = true;
    this.#leadership = new AbortController();
    const signal = this.#leadership.signal;
    // Called now (an async function runs up to its first await); a throw or rejection is logged.
    void (async () => this.#callbacks.onStartedLeading(signal))().catch((err: unknown) =>
      this.#log.error(err, "onStartedLeading failed"),
    );
  }

  /** Ends the elector: stop acting as leader first, then release, then tell the caller. */
  async #finish(): Promise<void> {
    const wasLeading = this.#leading;
    this.#leading = false;
    this.#ended = true;
    this.#leadership?.abort();
    // Wait (bounded) for an attempt we stopped waiting for, so that no call of ours is left
    // running after `done` and a release does not race our own renewal.
    const bound = deadline(this.#renewDeadlineMs);
    try {
      if (this.#inflight !== undefined) await untilAborted(this.#inflight, bound.signal);
      if (this.#releaseOnCancel && this.#observedHolder === this.identity)
        await untilAborted(this.#release(), bound.signal);
    } finally {
      bound.cancel();
    }
    if (wasLeading) {
      try {
        this.#callbacks.onStoppedLeading();
      } catch (err) {
        this.#log.error(err, "onStoppedLeading failed");
      }
    }
  }

  /** Hands the Lease back if we still hold it, retrying on conflicts with our own renewal. */
  async #release(): Promise<void> {
    for (let i = 0; i < RELEASE_ATTEMPTS; i++) {
      let current: StoredObject;
      try {
        current = await this.#client.get(RESOURCES.leases, this.#namespace, this.#name);
      } catch (err) {
        if (!isNotFound(err))
          this.#log.warn("failed to read leader lease for release", { err: errorMessage(err) });
        return;
      }
      this.#observe(current);
      if (specOf(current).holderIdentity !== this.identity) return;
      const now = rfc3339Micro(this.#clock.now());
      const released = this.#withSpec(current, {
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: specOf(current).leaseTransitions ?? 0,
      });
      try {
        this.#observe(await this.#client.update(RESOURCES.leases, released));
        this.#log.info("released leader lease");
        return;
      } catch (err) {
        if (isConflict(err)) continue;
        this.#log.warn("failed to release leader lease", { err: errorMessage(err) });
        return;
      }
    }
  }

  /** Acquires the Lease or renews it; false when another holder keeps it or a write failed. */
  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = this.#clock.now();
    const nowText = rfc3339Micro(now);

    // Fast path: we hold the lease and nobody else can have taken it, so write on top of the
    // version we know. A conflict means someone else wrote: read and decide again.
    if (this.#lease && this.#observedHolder === this.identity && this.#observedValid(now)) {
      const spec = specOf(this.#lease);
      try {
        const renewed = await this.#client.update(
          RESOURCES.leases,
          this.#withSpec(this.#lease, {
            holderIdentity: this.identity,
            leaseDurationSeconds: this.#leaseDurationSeconds,
            acquireTime: spec.acquireTime ?? nowText,
            renewTime: nowText,
            leaseTransitions: spec.leaseTransitions ?? 0,
          }),
        );
        this.#observe(renewed);
        return true;
      } catch (err) {
        this.#log.debug("optimistic lease renewal failed, reading the lease", { err: errorMessage(err) });
      }
    }

    let current: StoredObject;
    try {
      current = await this.#client.get(RESOURCES.leases, this.#namespace, this.#name);
    } catch (err) {
      if (!isNotFound(err)) {
        this.#log.warn("failed to read leader lease", { err: errorMessage(err) });
        return false;
      }
      return this.#create(nowText);
    }

    this.#observe(current);
    const spec = specOf(current);
    const holder = spec.holderIdentity ?? "";
    const ours = holder === this.identity;
    if (holder !== "" && !ours && this.#observedValid(now)) return false;

    try {
      const written = await this.#client.update(
        RESOURCES.leases,
        this.#withSpec(current, {
          holderIdentity: this.identity,
          leaseDurationSeconds: this.#leaseDurationSeconds,
          acquireTime: ours ? (spec.acquireTime ?? nowText) : nowText,
          renewTime: nowText,
          leaseTransitions: (spec.leaseTransitions ?? 0) + (ours ? 0 : 1),
        }),
      );
      this.#observe(written);
      return true;
    } catch (err) {
      if (isConflict(err)) this.#log.debug("another writer updated the leader lease first");
      else this.#log.warn("failed to update leader lease", { err: errorMessage(err) });
      return false;
    }
  }

  async #create(nowText: string): Promise<boolean> {
    try {
      const created = await this.#client.create(RESOURCES.leases, {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { namespace: this.#namespace, name: this.#name },
        spec: {
          holderIdentity: this.identity,
          leaseDurationSeconds: this.#leaseDurationSeconds,
          acquireTime: nowText,
          renewTime: nowText,
          leaseTransitions: 0,
        },
      });
      this.#observe(created);
      return true;
    } catch (err) {
      // AlreadyExists: another candidate created it between our read and our create.
      this.#log.debug("failed to create leader lease", { err: errorMessage(err) });
      return false;
    }
  }

  /** The Lease with our election record; other spec fields (e.g. `strategy`) are kept. */
  #withSpec(lease: StoredObject, record: ElectionRecord): StoredObject {
    return { ...lease, spec: { ...specOf(lease), ...record } };
  }

  /** Notes the record; a changed record restarts the lease duration on our local clock. */
  #observe(lease: StoredObject): void {
    this.#lease = lease;
    const spec = specOf(lease);
    const key = recordKey(spec);
    if (key !== this.#observedKey) {
      this.#observedKey = key;
      this.#observedHolder = spec.holderIdentity ?? "";
      this.#observedSeconds = spec.leaseDurationSeconds ?? 0;
      this.#observedTime = this.#clock.now();
    }
    if (this.#observedHolder !== this.#reportedLeader) {
      this.#reportedLeader = this.#observedHolder;
      if (this.#reportedLeader && this.#callbacks.onNewLeader && !this.#ended) {
        try {
          this.#callbacks.onNewLeader(this.#reportedLeader);
        } catch (err) {
          this.#log.error(err, "onNewLeader failed");
        }
      }
    }
  }

  /**
   * Whether the holder we saw may still be alive: its record changed less than its lease
   * duration ago. The Lease only has whole seconds, so when it says what our own configuration
   * writes, our exact (possibly sub-second) duration is meant.
   */
  #observedValid(now: number): boolean {
    const seconds = this.#observedSeconds;
    const windowMs = seconds === this.#leaseDurationSeconds ? this.#leaseDurationMs : seconds * 1000;
    return this.#observedTime + windowMs > now;
  }
}

export interface LeaderElectionFlags {
  /** `--leader-elect` (true). Without it the controllers start at once. */
  enabled: boolean;
  /** `--leader-elect-resource-namespace` (karmada-system). */
  namespace: string;
  /** `--leader-elect-resource-name` (karmada-controller-manager). */
  name: string;
  /** `--leader-elect-lease-duration` (15s), `--leader-elect-renew-deadline` (10s), `--leader-elect-retry-period` (2s). */
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** Defaults to `<hostname>_<random>`, as upstream. A stable identity takes its own Lease back at once. */
  identity?: string;
}

/** A replica that runs something only while it holds its Lease. */
export interface Elected {
  readonly identity: string;
  /** True while this replica runs what it was given. */
  leading(): boolean;
  /** The `leaderElection` health check: why this replica is unhealthy, or undefined. */
  healthProblem(): string | undefined;
  /** Stops what runs, then hands the Lease back so a standby takes over at once. */
  stop(): Promise<void>;
}

/**
 * Runs `start()` while this replica leads the Lease `leaderElection` names (at once when
 * leader election is off), and the function it returns when leading ends; `onLost` when
 * leadership is lost other than by `stop()`. Shared by the controller manager, the scheduler,
 * the agent and the operator.
 */
export function runElected(opts: {
  client: Client;
  log: Logger;
  leaderElection: LeaderElectionFlags;
  start: () => () => void;
  onLost?: () => void;
  /** Where `leader_election_master_status{name}` is recorded (1 leading, 0 standing by). */
  metrics?: Registry;
}): Elected {
  const le = opts.leaderElection;
  const identity = le.identity ?? `${hostname()}_${randomBytes(8).toString("hex")}`;
  const status = opts.metrics
    ? gauge(opts.metrics, {
        name: "leader_election_master_status",
        help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
        labelNames: ["name"],
      }).labels({ name: le.name })
    : undefined;
  status?.set(0);
  let stopRunning: (() => void) | undefined;
  let stopping = false;
  const startRunning = (): void => {
    stopRunning = opts.start();
    status?.set(1);
  };
  const stopNow = (): void => {
    stopRunning?.();
    stopRunning = undefined;
    status?.set(0);
  };
  const leading = (): boolean => stopRunning !== undefined;

  if (!le.enabled) {
    startRunning();
    return { identity, leading, healthProblem: () => undefined, stop: async () => stopNow() };
  }

  const elector = new LeaderElector({
    client: opts.client,
    namespace: le.namespace,
    name: le.name,
    identity,
    leaseDurationMs: le.leaseDurationMs,
    renewDeadlineMs: le.renewDeadlineMs,
    retryPeriodMs: le.retryPeriodMs,
    releaseOnCancel: true,
    log: opts.log.child({ component: "leader-election" }),
    onStartedLeading: () => {
      opts.log.info("started leading", { identity });
      startRunning();
    },
    onStoppedLeading: () => {
      stopNow();
      if (!stopping) {
        opts.log.error(new Error("leader election lost"), "stopped leading", { identity });
        opts.onLost?.();
      }
    },
    onNewLeader: (holder) => {
      if (holder !== identity) opts.log.info("new leader elected", { leader: holder });
    },
  }).start();

  return {
    identity,
    leading,
    healthProblem: () => elector.healthProblem(),
    async stop() {
      stopping = true;
      // What runs stops first, so that nothing of ours writes after the Lease is released.
      stopNow();
      await elector.stop();
    },
  };
}
