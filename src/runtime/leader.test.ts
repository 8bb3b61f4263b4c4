import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../test/support/api.ts";
import { rfc3339Micro, type StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import { LocalClient } from "../client/local.ts";
import { serviceUnavailable } from "../machinery/errors.ts";
import { type LeaderElectionOptions, LeaderElector } from "./leader.ts";

const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A client that counts calls, remembers what it read and wrote, and can be cut off. */
interface TestClient extends Pick<Client, "get" | "create" | "update"> {
  calls: number;
  failing: boolean;
  lastRead: StoredObject | undefined;
  writes: StoredObject[];
}

function testClient(inner: Client): TestClient {
  const down = (c: TestClient): void => {
    c.calls++;
    if (c.failing) throw serviceUnavailable("api server unreachable");
  };
  const c: TestClient = {
    calls: 0,
    failing: false,
    lastRead: undefined,
    writes: [],
    async get(res, namespace, name, opts) {
      down(c);
      c.lastRead = await inner.get(res, namespace, name, opts);
      return c.lastRead;
    },
    async create(res, obj, opts) {
      down(c);
      const created = await inner.create(res, obj, opts);
      c.writes.push(created);
      return created;
    },
    async update(res, obj, opts) {
      down(c);
      const updated = await inner.update(res, obj, opts);
      c.writes.push(updated);
      return updated;
    },
  };
  return c;
}

interface LeaseSpecView {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

const spec = (lease: StoredObject | undefined): LeaseSpecView => (lease?.spec ?? {}) as LeaseSpecView;

describe("LeaderElector", () => {
  let api: TestApi;
  let local: LocalClient;
  const running: LeaderElector[] = [];
  let leaseCounter = 0;

  beforeAll(async () => {
    api = await startTestApi();
    local = new LocalClient(api.server.context);
  });
  afterEach(async () => {
    await Promise.all(running.map((e) => e.stop()));
    running.length = 0;
  });
  afterAll(async () => {
    await api.close();
  });

  const leaseName = (): string => `lease-${++leaseCounter}`;
  const readLease = async (name: string): Promise<LeaseSpecView> =>
    spec(await local.get(RESOURCES.leases, "default", name));

  /** An elector with test durations whose callbacks append to `events`. */
  function candidate(
    identity: string,
    lease: string,
    events: string[],
    extra: Partial<LeaderElectionOptions> = {},
  ): { elector: LeaderElector; client: TestClient; signal: () => AbortSignal | undefined } {
    const client = testClient(local);
    let leadership: AbortSignal | undefined;
    const elector = new LeaderElector({
      client,
      namespace: "default",
      name: lease,
      identity,
      leaseDurationMs: 600,
      renewDeadlineMs: 400,
      retryPeriodMs: 100,
      onStartedLeading: (signal) => {
        leadership = signal;
        events.push(`${identity} started`);
        signal.addEventListener("abort", () => events.push(`${identity} signal aborted`));
      },
      onStoppedLeading: () => events.push(`${identity} stopped`),
      onNewLeader: (leader) => events.push(`${identity} sees ${leader}`),
      ...extra,
    });
    running.push(elector);
    return { elector, client, signal: () => leadership };
  }

  it("lets exactly one of two candidates lead, and records it in the Lease", async () => {
    const lease = leaseName();
    const events: string[] = [];
    const a = candidate("a", lease, events);
    const b = candidate("b", lease, events);
    a.elector.start();
    b.elector.start();
    await until(() => a.elector.isLeader || b.elector.isLeader, "a leader");
    const [leader, standby] = a.elector.isLeader ? [a, b] : [b, a];
    const id = leader.elector.identity;
    await until(() => standby.elector.leader === id, "the standby to see the leader");

    const first = await readLease(lease);
    expect(first).toMatchObject({ holderIdentity: id, leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(first.acquireTime).toMatch(MICRO_TIME);
    expect(first.renewTime).toMatch(MICRO_TIME);

    // Renewals move renewTime on and keep acquireTime; the standby keeps waiting meanwhile.
    const writes = leader.client.writes.length;
    await until(() => leader.client.writes.length >= writes + 3, "three renewals");
    const later = await readLease(lease);
    expect(later.holderIdentity).toBe(id);
    expect(later.acquireTime).toBe(first.acquireTime);
    expect(later.renewTime).not.toBe(first.renewTime);
    expect(later.leaseTransitions).toBe(0);
    expect(standby.elector.isLeader).toBe(false);
    expect(standby.client.writes).toEqual([]);
    expect(events.filter((e) => e.endsWith("started"))).toEqual([`${id} started`]);
    expect(events.filter((e) => e.includes(" sees ")).sort()).toEqual([`a sees ${id}`, `b sees ${id}`]);
  });

  it("hands over at once when the leader stops with releaseOnCancel", async () => {
    const lease = leaseName();
    const events: string[] = [];
    // A 30 s lease: only the release, not expiry, can explain a takeover within the wait.
    const slow = { leaseDurationMs: 30_000, releaseOnCancel: true };
    const a = candidate("a", lease, events, slow);
    a.elector.start();
    await until(() => a.elector.isLeader, "a to lead");
    const b = candidate("b", lease, events, slow);
    b.elector.start();
    await until(() => b.elector.leader === "a", "b to see a");

    await a.elector.stop();
    expect(a.signal()?.aborted).toBe(true);
    const released = a.client.writes.at(-1);
    expect(spec(released)).toMatchObject({
      holderIdentity: "",
      leaseDurationSeconds: 1,
      leaseTransitions: 0,
    });

    await until(() => b.elector.isLeader, "b to take over");
    const of = (id: string): string[] => events.filter((e) => e.startsWith(`${id} `));
    expect(of("a")).toEqual(["a sees a", "a started", "a signal aborted", "a stopped"]);
    expect(of("b")).toEqual(["b sees a", "b sees b", "b started"]);
    // a stopped acting as leader before it let go of the Lease.
    expect(events.indexOf("a signal aborted")).toBeLessThan(events.indexOf("b sees b"));
    expect(await readLease(lease)).toMatchObject({
      holderIdentity: "b",
      leaseDurationSeconds: 30,
      leaseTransitions: 1,
    });
  });

  it("takes over from a crashed leader only once the lease duration has passed", async () => {
    const lease = leaseName();
    const events: string[] = [];
    let now = Date.parse("2025-01-01T00:00:00Z");
    const clock = { now: () => now };
    const a = candidate("a", lease, events, { clock });
    const b = candidate("b", lease, events, { clock });
    a.elector.start();
    await until(() => a.elector.isLeader, "a to lead");
    b.elector.start();
    await until(() => b.elector.leader === "a", "b to see a");

    // While a renews, b never takes over, though in all the clock passes twice the duration.
    for (let step = 0; step < 3; step++) {
      now += 400;
      const renewTime = rfc3339Micro(now);
      await until(() => spec(b.client.lastRead).renewTime === renewTime, "b to see a's renewal");
    }
    expect(b.elector.isLeader).toBe(false);

    // A crash: a stops without releasing, so the Lease still names it.
    await a.elector.stop();
    expect((await readLease(lease)).holderIdentity).toBe("a");
    const calls = b.client.calls;
    await until(() => b.client.calls >= calls + 3, "b to try three more times");
    expect(b.elector.isLeader).toBe(false);
    expect(events).not.toContain("b started");

    now += 700;
    await until(() => b.elector.isLeader, "b to take over");
    expect(events).toEqual([
      "a sees a",
      "a started",
      "b sees a",
      "a signal aborted",
      "a stopped",
      "b sees b",
      "b started",
    ]);
    expect(await readLease(lease)).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
  });

  it("counts holder changes in leaseTransitions, not renewals", async () => {
    const lease = leaseName();
    const events: string[] = [];
    const release = { releaseOnCancel: true };
    const a = candidate("a", lease, events, release);
    a.elector.start();
    await until(() => a.elector.isLeader, "a to lead");
    await until(() => a.client.writes.length >= 3, "a to renew");
    expect((await readLease(lease)).leaseTransitions).toBe(0);

    const b = candidate("b", lease, events, release);
    b.elector.start();
    await until(() => b.elector.leader === "a", "b to see a");
    await a.elector.stop();
    await until(() => b.elector.isLeader, "b to lead");
    expect((await readLease(lease)).leaseTransitions).toBe(1);

    const c = candidate("c", lease, events, release);
    c.elector.start();
    await until(() => c.elector.leader === "b", "c to see b");
    await b.elector.stop();
    await until(() => c.elector.isLeader, "c to lead");
    const writes = c.client.writes.length;
    await until(() => c.client.writes.length >= writes + 3, "c to renew");
    expect(await readLease(lease)).toMatchObject({ holderIdentity: "c", leaseTransitions: 2 });
  });

  it("stops leading when another writer takes the Lease, and leaves that Lease alone", async () => {
    const lease = leaseName();
    const events: string[] = [];
    const a = candidate("a", lease, events, { releaseOnCancel: true });
    a.elector.start();
    await until(() => a.elector.isLeader, "a to lead");

    const current = await local.get(RESOURCES.leases, "default", lease);
    const stamp = rfc3339Micro(Date.now());
    await local.update(RESOURCES.leases, {
      ...current,
      spec: {
        holderIdentity: "intruder",
        leaseDurationSeconds: 30,
        acquireTime: stamp,
        renewTime: stamp,
        leaseTransitions: (spec(current).leaseTransitions ?? 0) + 1,
      },
    });

    await a.elector.done;
    expect(a.elector.isLeader).toBe(false);
    expect(a.signal()?.aborted).toBe(true);
    expect(events).toEqual(["a sees a", "a started", "a sees intruder", "a signal aborted", "a stopped"]);
    expect(await readLease(lease)).toMatchObject({ holderIdentity: "intruder", leaseTransitions: 1 });
  });

  it("stops leading when renewals fail for the renew deadline", async () => {
    const lease = leaseName();
    const events: string[] = [];
    const a = candidate("a", lease, events, { releaseOnCancel: true });
    a.elector.start();
    await until(() => a.elector.isLeader, "a to lead");
    a.client.failing = true;
    await a.elector.done;
    expect(a.signal()?.aborted).toBe(true);
    expect(events).toEqual(["a sees a", "a started", "a signal aborted", "a stopped"]);
    // The release could not be written either: the Lease still names a until it expires.
    expect((await readLease(lease)).holderIdentity).toBe("a");
  });

  it("lets candidates of different Leases all lead", async () => {
    const events: string[] = [];
    const a = candidate("a", leaseName(), events);
    const b = candidate("b", leaseName(), events);
    a.elector.start();
    b.elector.start();
    await until(() => a.elector.isLeader && b.elector.isLeader, "both to lead");
    expect(events.filter((e) => e.endsWith("started")).sort()).toEqual(["a started", "b started"]);
  });

  it("stops a standby quietly and makes no calls after stop", async () => {
    const lease = leaseName();
    const events: string[] = [];
    const a = candidate("a", lease, events, { releaseOnCancel: true });
    const b = candidate("b", lease, events, { releaseOnCancel: true });
    a.elector.start();
    await until(() => a.elector.isLeader, "a to lead");
    b.elector.start();
    await until(() => b.elector.leader === "a", "b to see a");

    await b.elector.stop();
    await b.elector.stop();
    expect(b.client.writes).toEqual([]);
    expect(events).not.toContain("b stopped");

    await a.elector.stop();
    const calls = { a: a.client.calls, b: b.client.calls };
    await new Promise((r) => setTimeout(r, 300));
    expect({ a: a.client.calls, b: b.client.calls }).toEqual(calls);
    expect(events.filter((e) => e.startsWith("a "))).toEqual([
      "a sees a",
      "a started",
      "a signal aborted",
      "a stopped",
    ]);
  });

  it("rejects inconsistent durations", () => {
    const base = {
      client: local,
      namespace: "default",
      name: "x",
      identity: "a",
      onStartedLeading: () => {},
      onStoppedLeading: () => {},
    };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 1000, renewDeadlineMs: 1000 })).toThrow(
      /leaseDuration must be greater than renewDeadline/,
    );
    expect(() => new LeaderElector({ ...base, renewDeadlineMs: 1200, retryPeriodMs: 1000 })).toThrow(
      /renewDeadline must be greater than retryPeriod/,
    );
    expect(() => new LeaderElector({ ...base, identity: "" })).toThrow(/identity/);
    expect(() => new LeaderElector(base)).not.toThrow();
  });
});
