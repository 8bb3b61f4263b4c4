/**
 * Reconcile-level tests: one controller over an in-process API server (memory store), with a
 * real ControllerContext around it (informers, event recorder, interpreter, member
 * connections) and a clock the test sets. A test arranges objects with `client`, calls
 * `reconcile(key)` once or a few times, and asserts on what was written: no controller loop
 * runs, so nothing happens between two calls that the test did not ask for.
 *
 * Before each reconcile the fixture waits until every informer the controller made (and every
 * member watch it started) holds what the API server holds now: a reconcile reads caches, and
 * one that ran on a cache behind the test's last write would test nothing.
 */
import type { KubeObject, StoredObject } from "../../src/api/meta.ts";
import { SYSTEM_ADMIN } from "../../src/apiserver/context.ts";
import { ApiServer, type ApiServerOptions } from "../../src/apiserver/server.ts";
import { type Client, type ObjectList, RESOURCES, type ResourceRef } from "../../src/client/client.ts";
import { LocalClient } from "../../src/client/local.ts";
import type { MemberConnection, MemberConnections } from "../../src/cluster/connections.ts";
import { type MemberWatch, MemberWatches } from "../../src/cluster/member-watches.ts";
import type { ControllerContext, ControllerOptions } from "../../src/controllers/context.ts";
import { controllerOptions } from "../../src/controllers/options.ts";
import { Interpreter } from "../../src/interpreter/index.ts";
import { nativeInterpreter } from "../../src/interpreter/native/index.ts";
import { executionSpace, LABEL } from "../../src/karmada/names.ts";
import type { ClusterObject, ClusterSpec, ClusterStatus } from "../../src/karmada/types.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import { isAlreadyExists } from "../../src/machinery/errors.ts";
import { createMetricsRegistry } from "../../src/metrics/registry.ts";
import type { Controller, ReconcileContext, ReconcileResult } from "../../src/runtime/controller.ts";
import { eventRecorder } from "../../src/runtime/events.ts";
import { DEFAULT_FEATURE_GATES, type Feature } from "../../src/runtime/features.ts";
import { type Informer, InformerFactory, type InformerOptions } from "../../src/runtime/informer.ts";
import { MemoryStore } from "../../src/storage/memory/store.ts";

/** 2025-01-02T03:04:05Z: where the fixture's clock starts unless told otherwise. */
export const FIXTURE_EPOCH = Date.UTC(2025, 0, 2, 3, 4, 5);

/** How long `reconcile` waits for the caches, and `events` for the recorder, before failing. */
const CATCH_UP_MS = 10_000;

export interface ReconcileFixtureOptions {
  /** Controller options over the defaults (`features` may be given as a plain map). */
  options?: Partial<Omit<ControllerOptions, "features">> & {
    features?: Partial<Record<Feature, boolean>>;
  };
  /** Where the clock starts (default FIXTURE_EPOCH); the API server's timestamps follow it too. */
  now?: number;
  /** API server options (e.g. `policyFinalizers`). */
  api?: Partial<Omit<ApiServerOptions, "store" | "clock">>;
  /** Member connections by cluster name (more can be added with `addMember`). */
  members?: Record<string, MemberConnection>;
  log?: Logger;
}

/** One Event as the recorder wrote it. */
export interface RecordedEvent {
  type: string;
  reason: string;
  message: string;
  /** `Kind/namespace/name`, or `Kind/name` for cluster-scoped objects. */
  object: string;
  /** `source.component`: which controller's recorder wrote it. */
  component: string;
}

/** An in-process member API server (no Karmada kinds) and a connection to it. */
export interface TestMember {
  name: string;
  api: ApiServer;
  client: LocalClient;
  connection: MemberConnection;
}

export interface ReconcileFixture {
  /** The control plane's in-process client (system:admin), to arrange objects and read results. */
  client: LocalClient;
  api: ApiServer;
  ctx: ControllerContext;
  controller: Controller;
  /** The clock the controller (and the API server) read. */
  clock: { now: number; set(ms: number): void; advance(ms: number): void };
  /** Keys the controller enqueued on its own (through `start`), oldest first; `splice(0)` to take them. */
  enqueued: string[];
  /** Waits until every cache the controller reads holds what the API servers hold now. */
  caughtUp(): Promise<void>;
  /** `caughtUp()`, then the controller's `reconcile` exactly once. */
  reconcile(key: string, opts?: { attempt?: number }): Promise<ReconcileResult>;
  /** The Events the controller recorded so far, in the order it recorded them. */
  events(): Promise<RecordedEvent[]>;
  /** Starts an in-process member API server the controller reaches as cluster `name`. */
  addMember(name: string): Promise<TestMember>;
  close(): Promise<void>;
}

/** What an informer was made with: the fixture lists the same selection to compare. */
interface Selection {
  client: Client;
  resource: ResourceRef;
  namespace: string | undefined;
  labelSelector: string | undefined;
  fieldSelector: string | undefined;
}

/** The controller's informer factory, remembering what each informer selects. */
class ObservedInformerFactory extends InformerFactory {
  readonly selections = new Map<Informer, Selection>();

  override informer(resource: ResourceRef, opts: Omit<InformerOptions, "log" | "freeze"> = {}): Informer {
    const inf = super.informer(resource, opts);
    if (!this.selections.has(inf))
      this.selections.set(inf, {
        client: this.client,
        resource,
        namespace: opts.namespace,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
      });
    return inf;
  }
}

/** Member watches remembering the watches started, so the fixture waits for them too. */
class ObservedMemberWatches extends MemberWatches {
  readonly started = new Map<Promise<MemberWatch>, string>();

  override watch(cluster: ClusterObject, manifest: KubeObject): Promise<MemberWatch> {
    const p = super.watch(cluster, manifest);
    this.started.set(p, cluster.metadata.name);
    return p;
  }
}

/** Whether the informer holds exactly the objects the API server lists for its selection now. */
async function informerCaughtUp(inf: Informer, sel: Selection): Promise<boolean> {
  if (!inf.hasSynced()) return false;
  let list: ObjectList;
  try {
    list = await sel.client.list(sel.resource, sel.namespace, {
      ...(sel.labelSelector ? { labelSelector: sel.labelSelector } : {}),
      ...(sel.fieldSelector ? { fieldSelector: sel.fieldSelector } : {}),
    });
  } catch {
    // A kind no longer served (its CRD deleted): its informer cannot catch up with anything.
    return true;
  }
  // The informer's stream has passed the revision the list was served at.
  if (Number(inf.resourceVersion) >= Number(list.metadata.resourceVersion)) return true;
  // Or nothing under its selection changed since: same keys, same resourceVersions.
  if (inf.keys().length !== list.items.length) return false;
  return list.items.every(
    (o) => inf.getByKey(cacheKey(o))?.metadata.resourceVersion === o.metadata.resourceVersion,
  );
}

/** The key an informer caches an object under: `namespace/name`, or `name`. */
const cacheKey = (o: StoredObject): string =>
  o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : String(o.metadata.name);

const tick = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection to an in-process API server: its client, and raw GETs through its handler. */
export function inProcessConnection(api: ApiServer): MemberConnection {
  return {
    client: new LocalClient(api.context, { fieldManager: "karmada-test" }),
    async getRaw(path) {
      const u = new URL(path, "http://member");
      const r = await api.handler.handle({
        method: "GET",
        path: u.pathname,
        query: u.searchParams,
        headers: {},
        user: SYSTEM_ADMIN,
      });
      return { status: r.status, body: r.text ?? JSON.stringify(r.body ?? {}) };
    },
  };
}

/** The key the recorder's calls and the Events written are matched on. */
const eventKey = (
  obj: { kind?: unknown; namespace?: unknown; name?: unknown },
  type: unknown,
  reason: unknown,
  message: unknown,
): string => JSON.stringify([obj.kind, obj.namespace ?? "", obj.name, type, reason, message]);

/**
 * Starts the API server, builds the context, makes the controller with `make`, starts the
 * informers it asked for and waits for them to list.
 */
export async function startReconcileFixture(
  make: (ctx: ControllerContext) => Controller,
  opts: ReconcileFixtureOptions = {},
): Promise<ReconcileFixture> {
  const log = opts.log ?? silentLogger;
  let now = opts.now ?? FIXTURE_EPOCH;
  const clock = {
    get now() {
      return now;
    },
    set(ms: number) {
      now = ms;
    },
    advance(ms: number) {
      now += ms;
    },
  };
  const store = new MemoryStore();
  const api = await ApiServer.start({
    authorization: "AlwaysAllow",
    compactionIntervalMs: 0,
    ...opts.api,
    store,
    clock: { now: () => now },
  });
  const client = new LocalClient(api.context, { fieldManager: "karmada-test" });
  const controllerClient = new LocalClient(api.context, { fieldManager: "karmada-controller-manager" });

  // Which events were asked for, and which are in the API server: `events()` waits for the first to be the second.
  const asked: string[] = [];
  const written = new Set<string>();
  let onWritten: Array<() => void> = [];
  const noteEvent = (e: StoredObject | undefined): void => {
    if (!e) return;
    const involved = (e.involvedObject ?? {}) as Record<string, unknown>;
    written.add(eventKey(involved, e.type, e.reason, e.message));
    const waiters = onWritten;
    onWritten = [];
    for (const w of waiters) w();
  };
  const isEvents = (res: ResourceRef) => res.group === "" && res.resource === RESOURCES.events.resource;
  // The recorder's writes, observed (a create, or a patch counting up one that exists).
  const eventClient: Client = new Proxy(controllerClient, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      if (prop !== "create" && prop !== "patch") return value.bind(target);
      return async (res: ResourceRef, ...rest: unknown[]) => {
        const out = (await (value as (...a: unknown[]) => Promise<StoredObject>).call(
          target,
          res,
          ...rest,
        )) as StoredObject | undefined;
        if (isEvents(res)) noteEvent(out);
        return out;
      };
    },
  });

  const members = new Map<string, MemberConnection>(Object.entries(opts.members ?? {}));
  const ownMembers: TestMember[] = [];
  const connections: MemberConnections = {
    async connect(cluster: StoredObject) {
      const c = members.get(cluster.metadata.name);
      if (!c) throw new Error(`the fixture has no member connection for cluster ${cluster.metadata.name}`);
      return c;
    },
    forget() {},
  };

  const informers = new ObservedInformerFactory(controllerClient, { log, freeze: true });
  const memberWatches = new ObservedMemberWatches(connections, log);
  const { features, ...options } = opts.options ?? {};
  const ctx: ControllerContext = {
    client: controllerClient,
    informers,
    members: connections,
    memberWatches,
    recorder: (component) => {
      const inner = eventRecorder(eventClient, component, { now: () => now, log });
      return {
        event(obj, type, reason, message) {
          const m = obj.metadata ?? {};
          const key = eventKey(
            { kind: obj.kind, namespace: m.namespace, name: m.name },
            type,
            reason,
            message,
          );
          if (!asked.includes(key)) asked.push(key);
          inner.event(obj, type, reason, message);
        },
      };
    },
    log,
    now: () => now,
    options: controllerOptions({ ...options, features: DEFAULT_FEATURE_GATES.with(features ?? {}) }),
    interpreter: new Interpreter(nativeInterpreter),
    metrics: createMetricsRegistry({ processMetrics: false }),
  };
  const controller = make(ctx);
  const enqueued: string[] = [];
  const abort = new AbortController();
  controller.start?.(
    (key) => enqueued.push(key),
    (key) => enqueued.push(key),
    () => 0,
    // The harness runs reconciles by hand: no key waits out a backoff here.
    () => {},
  );
  informers.start();
  await informers.waitForSync();

  /** Everything caught up once; then a turn of the event loop for handlers that start informers. */
  async function allCaughtUp(): Promise<string[]> {
    const lagging: string[] = [];
    for (const [inf, sel] of informers.selections) {
      if (!(await informerCaughtUp(inf, sel)))
        lagging.push(`${sel.resource.resource}${sel.namespace ? ` in ${sel.namespace}` : ""}`);
    }
    for (const [p, cluster] of memberWatches.started) {
      let w: MemberWatch;
      try {
        w = await p;
      } catch {
        continue; // a watch that failed to start is started again by the next reconcile
      }
      const member = members.get(cluster);
      if (!member) continue;
      // The selection MemberWatches uses: the objects Karmada manages.
      const sel: Selection = {
        client: member.client,
        resource: w.ref,
        namespace: undefined,
        labelSelector: `${LABEL.managed}=true`,
        fieldSelector: undefined,
      };
      if (!(await informerCaughtUp(w.informer, sel))) lagging.push(`${w.ref.resource} in member ${cluster}`);
    }
    return lagging;
  }

  async function caughtUp(): Promise<void> {
    const deadline = Date.now() + CATCH_UP_MS;
    for (;;) {
      const count = informers.selections.size + memberWatches.started.size;
      const lagging = await allCaughtUp();
      if (lagging.length === 0) {
        // Handlers of what just arrived may start informers (the detector watches a kind once a policy names it).
        await tick();
        if (informers.selections.size + memberWatches.started.size === count) return;
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`caches did not catch up within ${CATCH_UP_MS} ms: ${lagging.join(", ")}`);
      await tick(2);
    }
  }

  return {
    client,
    api,
    ctx,
    controller,
    clock,
    enqueued,
    caughtUp,
    async reconcile(key, { attempt = 1 } = {}) {
      await caughtUp();
      const rctx: ReconcileContext = {
        log: log.child({ controller: controller.name, key, attempt }),
        signal: abort.signal,
        attempt,
      };
      return controller.reconcile(rctx, key);
    },
    async events() {
      const deadline = Date.now() + CATCH_UP_MS;
      const missing = () => asked.filter((k) => !written.has(k));
      while (missing().length > 0) {
        if (Date.now() > deadline)
          throw new Error(`events not written within ${CATCH_UP_MS} ms: ${missing().join(", ")}`);
        // The recorder writes in batches on a timer: wait for its next write (or look again shortly).
        await new Promise<void>((resolve) => {
          onWritten.push(resolve);
          setTimeout(resolve, 100).unref();
        });
      }
      const list = await client.list(RESOURCES.events, undefined);
      const order = (e: StoredObject): number => {
        const i = asked.indexOf(
          eventKey((e.involvedObject ?? {}) as Record<string, unknown>, e.type, e.reason, e.message),
        );
        return i < 0 ? asked.length : i;
      };
      return list.items
        .sort((a, b) => order(a) - order(b))
        .map((e) => {
          const o = (e.involvedObject ?? {}) as Record<string, string | undefined>;
          return {
            type: String(e.type),
            reason: String(e.reason),
            message: String(e.message),
            object: [o.kind, o.namespace, o.name].filter(Boolean).join("/"),
            component: String((e.source as { component?: string } | undefined)?.component ?? ""),
          };
        });
    },
    async addMember(name) {
      const memberStore = new MemoryStore();
      const memberApi = await ApiServer.start({
        store: memberStore,
        karmada: false,
        authorization: "AlwaysAllow",
        compactionIntervalMs: 0,
        clock: { now: () => now },
      });
      const connection = inProcessConnection(memberApi);
      const m: TestMember = {
        name,
        api: memberApi,
        client: connection.client as LocalClient,
        connection,
      };
      members.set(name, connection);
      ownMembers.push(m);
      return m;
    },
    async close() {
      abort.abort();
      controller.stop?.();
      memberWatches.stop();
      informers.stop();
      for (const m of ownMembers) {
        await m.api.close();
        await m.api.context.store.close();
      }
      await api.close();
      await store.close();
    },
  };
}

/** Runs `body` over a fresh fixture, closed whatever happens: one table case, one API server. */
export async function withReconcileFixture<T>(
  make: (ctx: ControllerContext) => Controller,
  opts: ReconcileFixtureOptions,
  body: (f: ReconcileFixture) => Promise<T>,
): Promise<T> {
  const f = await startReconcileFixture(make, opts);
  try {
    return await body(f);
  } finally {
    await f.close();
  }
}

/** What the scheduler's API filter looks for unless a test says otherwise: Deployments and ConfigMaps. */
export const SERVED_APIS: NonNullable<ClusterStatus["apiEnablements"]> = [
  { groupVersion: "apps/v1", resources: [{ name: "deployments", kind: "Deployment" }] },
  { groupVersion: "v1", resources: [{ name: "configmaps", kind: "ConfigMap" }] },
];

/** What each test cluster can hold unless a test says otherwise: three 8-core nodes' worth. */
export const DEFAULT_ALLOCATABLE = { cpu: "24", memory: "96Gi", pods: "330" };

export interface TestClusterOptions {
  labels?: Record<string, string>;
  spec?: Partial<ClusterSpec>;
  /** The status written after the create (default: Ready, serving SERVED_APIS, DEFAULT_ALLOCATABLE free). */
  status?: ClusterStatus;
  /** Ready=True unless false (ignored when `status` is given). */
  ready?: boolean;
}

/** A Push Cluster with its status, and its execution space, as the cluster controllers would leave them. */
export async function createCluster(
  client: Client,
  name: string,
  opts: TestClusterOptions = {},
): Promise<ClusterObject> {
  const created = await client.create(RESOURCES.clusters, {
    apiVersion: "cluster.karmada.io/v1alpha1",
    kind: "Cluster",
    metadata: { name, ...(opts.labels ? { labels: opts.labels } : {}) },
    spec: { syncMode: "Push", apiEndpoint: `https://${name}.example:6443`, ...opts.spec },
  });
  // As the cluster status controller would write it when the Cluster appeared.
  const since = created.metadata.creationTimestamp ?? "";
  // Conditions carry lastTransitionTime, which ClusterStatus does not spell out.
  const status: object = opts.status ?? {
    apiEnablements: SERVED_APIS,
    resourceSummary: { allocatable: DEFAULT_ALLOCATABLE },
    conditions: [
      opts.ready === false
        ? {
            type: "Ready",
            status: "False",
            reason: "ClusterNotReachable",
            message: "cluster is not reachable",
            lastTransitionTime: since,
          }
        : {
            type: "Ready",
            status: "True",
            reason: "ClusterReady",
            message: "cluster is healthy and ready to accept workloads",
            lastTransitionTime: since,
          },
    ],
  };
  const cluster = await client.updateStatus(RESOURCES.clusters, { ...created, status });
  await ensureNamespace(client, executionSpace(name));
  return cluster as ClusterObject;
}

/** Creates a namespace unless it exists. */
export async function ensureNamespace(
  client: Client,
  name: string,
  labels?: Record<string, string>,
): Promise<void> {
  try {
    await client.create(RESOURCES.namespaces, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name, ...(labels ? { labels } : {}) },
    });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}
