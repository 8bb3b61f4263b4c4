/**
 * A simulated member cluster, kwok style: our API server (Kubernetes built-ins only) plus
 * the controllers that make it behave like a real cluster where Karmada and kubectl look —
 * nodes with heartbeats, a scheduler, a stage-driven kubelet, the workload controllers of
 * kube-controller-manager (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
 * endpoints), containers' logs (pods/log), custom-resource stages, and fault injection. All
 * in process, through the in-process client and shared informers. For tests, demos and
 * benchmarks; never needed for real clusters.
 *
 *   const m = await startMemberCluster({ name: "member1" });        // in process
 *   const s = await serveMemberCluster({ name: "member1", port: 0 }); // plus HTTP (s.url)
 *
 * What each part simulates and simplifies is written at the top of its file.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { StoredObject } from "../api/meta.ts";
import { secureServingFrom } from "../apiserver/secure-serving.ts";
import { ApiServer, type ApiServerOptions } from "../apiserver/server.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import type { ClusterConnection } from "../client/http.ts";
import { LocalClient } from "../client/local.ts";
import { type Logger, silentLogger } from "../log.ts";
import { isNotFound } from "../machinery/errors.ts";
import { parseQuantity } from "../machinery/quantity.ts";
import { type ClusterPki, createClusterPki } from "../pki/cluster-pki.ts";
import { type RunningController, runController } from "../runtime/controller.ts";
import { eventRecorder } from "../runtime/events.ts";
import { InformerFactory } from "../runtime/informer.ts";
import { objectKey } from "../runtime/keys.ts";
import { MemoryStore } from "../storage/memory/store.ts";
import type { Store } from "../storage/store.ts";
import { serveMember } from "./admin.ts";
import { defaultTolerationSeconds } from "./admission.ts";
import { storeBinder } from "./binding.ts";
import {
  DEFAULT_TIMING,
  ENDPOINTSLICES,
  InformerWaits,
  type Sim,
  type SimInformers,
  type Timing,
} from "./context.ts";
import { cronJobController } from "./cronjob.ts";
import { type CustomStage, CustomStageRunners } from "./custom-stages.ts";
import { daemonSetController } from "./daemonset.ts";
import { deploymentController } from "./deployment.ts";
import { endpointsController } from "./endpoints.ts";
import { FaultError, Faults } from "./faults.ts";
import { jobController } from "./job.ts";
import { simulatedPodLogs } from "./logs.ts";
import { nodeHeartbeatController } from "./node-heartbeat.ts";
import { nodeLifecycleController } from "./node-lifecycle.ts";
import { createKubernetesService, type NodeOptions, registerNodes } from "./nodes.ts";
import { PodIpAllocator } from "./pod-ips.ts";
import { POD_STAGES, type PodStageEnv } from "./pod-stages.ts";
import { replicaSetController } from "./replicaset.ts";
import { schedulerController } from "./scheduler.ts";
import { sinkControllers } from "./sink.ts";
import { stageController } from "./stages.ts";
import { statefulSetController } from "./statefulset.ts";
import { BY_CONTROLLER, BY_NAMESPACE, BY_NODE, controllerOf, controllerUids, podSpec } from "./workload.ts";

export interface MemberClusterOptions {
  /** The cluster's name: node names, kubeconfig context. A DNS label. */
  name: string;
  /** Nodes to register (default 3), named `<name>-node-<i>`. */
  nodes?: number;
  /** Each node's cpu capacity (default "8"). */
  nodeCpu?: string;
  /** Each node's memory capacity (default "32Gi"). */
  nodeMemory?: string;
  /** Each node's pod capacity (default 110). */
  nodePods?: number;
  /** `topology.kubernetes.io/region` / `zone` labels on every node. */
  region?: string;
  zone?: string;
  /** Sets nodes' spec.providerID to `<provider>://<cluster>/<node>`. */
  provider?: string;
  /** Custom-resource stages (see custom-stages.ts for the file format). */
  stages?: readonly CustomStage[];
  /** The clock timestamps, schedules and deadlines read (default: the system clock). */
  clock?: { now(): number };
  /** Real-time delays of the simulation (see Timing). */
  timing?: Partial<Timing>;
  /**
   * A sink (see sink.ts): it stores and watches, and Deployments and StatefulSets report ready
   * at once; no heartbeats, scheduler, kubelet, pods or other controllers (default false).
   */
  sink?: boolean;
  /** Storage (default: a new memory store, closed by stop()). A given store stays open. */
  store?: Store;
  log?: Logger;
  /** More API server options (watch settings, compaction). */
  server?: Partial<Omit<ApiServerOptions, "store" | "karmada" | "clock" | "log" | "readyCheck">>;
}

export interface MemberCluster {
  name: string;
  api: ApiServer;
  /** An in-process client (field manager "karmada-ts"). */
  client: LocalClient;
  faults: Faults;
  /** The uid of `kube-system`, which Karmada records as the cluster's id. */
  clusterId: string;
  informers: SimInformers;
  /** Custom-resource kinds (`group/version/Kind`) whose stages are running. */
  runningStageKinds(): string[];
  stop(): Promise<void>;
}

export interface ServedMemberCluster extends MemberCluster {
  /** `https://host:port` (`http://` when insecure): the API and the admin endpoint (`/sim/...`). */
  url: string;
  port: number;
  /** How its administrator reaches it: the URL, the CA and the admin's client certificate. */
  connection: ClusterConnection;
}

export interface ServeOptions {
  host?: string;
  port?: number;
  /** The cluster's certificates and keys (default: made in memory, CA named after the cluster). */
  pki?: ClusterPki;
  /** Plain HTTP, nobody authenticated: for benchmarks only. */
  insecure?: boolean;
  /** `--request-timeout` in ms (default one minute; 0: none). */
  requestTimeoutMs?: number;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Checks the options a user can get wrong; throws an Error naming the bad one. */
export function validateMemberOptions(opts: MemberClusterOptions): void {
  if (!DNS_LABEL.test(opts.name) || opts.name.length > 50) {
    throw new Error(
      `name ${JSON.stringify(opts.name)}: must be a DNS label (lower case letters, digits, '-'), at most 50 characters`,
    );
  }
  const nodes = opts.nodes ?? 3;
  if (!Number.isInteger(nodes) || nodes < 0 || nodes > 5000)
    throw new Error(`nodes: must be an integer from 0 to 5000, got ${nodes}`);
  for (const [flag, v] of [
    ["node cpu", opts.nodeCpu],
    ["node memory", opts.nodeMemory],
  ] as const) {
    if (v === undefined) continue;
    const q = parseQuantity(v);
    if (!q || q.n <= 0n)
      throw new Error(`${flag}: ${JSON.stringify(v)} is not a positive quantity (e.g. 8, 500m, 32Gi)`);
  }
  if (opts.sink && (opts.stages?.length ?? 0) > 0)
    throw new Error("stages: a sink member runs no stages (drop --stages or --sink)");
  const pods = opts.nodePods ?? 110;
  if (!Number.isInteger(pods) || pods <= 0)
    throw new Error(`node pods: must be a positive integer, got ${pods}`);
}

export async function startMemberCluster(opts: MemberClusterOptions): Promise<MemberCluster> {
  validateMemberOptions(opts);
  const log = (opts.log ?? silentLogger).child({ cluster: opts.name });
  const clock = opts.clock ?? { now: () => Date.now() };
  const now = () => clock.now();
  const monotonic = () => performance.now();
  const timing: Timing = { ...DEFAULT_TIMING, ...opts.timing };
  const ownStore = opts.store === undefined;
  const store = opts.store ?? new MemoryStore();
  const faults = new Faults(now);
  const api = await ApiServer.start({
    compactionIntervalMs: 5 * 60_000,
    ...opts.server,
    store,
    karmada: false,
    clock,
    log,
    admission: [defaultTolerationSeconds()],
    readyCheck: {
      name: "member-sim",
      check: () => (faults.isUnhealthy() ? "the unhealthy fault is injected" : undefined),
    },
  });
  // The kubelets' side of `kubectl logs`: the API server proxies pods/log to them.
  api.context.podLogs = simulatedPodLogs();
  const stoppers: Array<() => void | Promise<void>> = [];
  try {
    const client = new LocalClient(api.context);
    const controllerClient = new LocalClient(api.context, { fieldManager: "kube-controller-manager" });
    const kubeletClient = new LocalClient(api.context, { fieldManager: "kubelet" });
    const schedulerClient = new LocalClient(api.context, { fieldManager: "default-scheduler" });
    const nodeOptions: NodeOptions = {
      cluster: opts.name,
      count: opts.nodes ?? 3,
      cpu: opts.nodeCpu ?? "8",
      memory: opts.nodeMemory ?? "32Gi",
      pods: opts.nodePods ?? 110,
      ...(opts.region ? { region: opts.region } : {}),
      ...(opts.zone ? { zone: opts.zone } : {}),
      ...(opts.provider ? { provider: opts.provider } : {}),
    };
    await registerNodes(kubeletClient, nodeOptions, now);
    await createKubernetesService(
      new LocalClient(api.context, { fieldManager: "kube-apiserver" }),
      opts.name,
    );

    const factory = new InformerFactory(controllerClient, { log });
    stoppers.push(() => factory.stop());
    const owner = { [BY_CONTROLLER]: controllerUids };
    const informers: SimInformers = {
      nodes: factory.informer(RESOURCES.nodes),
      pods: factory.informer(RESOURCES.pods, {
        indexers: {
          ...owner,
          [BY_NODE]: (p: StoredObject) => (podSpec(p).nodeName ? [podSpec(p).nodeName!] : []),
          [BY_NAMESPACE]: (p: StoredObject) => [p.metadata.namespace ?? ""],
        },
      }),
      replicasets: factory.informer(RESOURCES.replicasets, { indexers: owner }),
      deployments: factory.informer(RESOURCES.deployments),
      statefulsets: factory.informer(RESOURCES.statefulsets),
      daemonsets: factory.informer(RESOURCES.daemonsets),
      controllerrevisions: factory.informer(RESOURCES.controllerrevisions, { indexers: owner }),
      jobs: factory.informer(RESOURCES.jobs, { indexers: owner }),
      cronjobs: factory.informer(RESOURCES.cronjobs),
      services: factory.informer(RESOURCES.services),
      endpoints: factory.informer(RESOURCES.endpoints),
      endpointslices: factory.informer(ENDPOINTSLICES),
      crds: factory.informer(RESOURCES.customresourcedefinitions),
    };
    const waits = new InformerWaits();
    const simFor = (component: string, c: Client = controllerClient): Sim => ({
      cluster: opts.name,
      client: c,
      informers,
      now,
      timing,
      log,
      events: eventRecorder(c, component, { now, log }),
      faults,
      caughtUp: (inf, written) => waits.caughtUp(inf, written),
      gone: (inf, key, uid) => waits.gone(inf, key, uid),
    });
    factory.start();
    await factory.waitForSync();

    const controllers: RunningController[] = [];
    stoppers.push(() => {
      for (const c of controllers) c.stop();
    });
    const run = (c: Parameters<typeof runController>[0]): RunningController => {
      const running = runController(c, { log });
      controllers.push(running);
      return running;
    };
    /** Everything a full member runs; returns the custom-resource stage runners. */
    function runSimulation(): CustomStageRunners {
      const heartbeat = run(
        nodeHeartbeatController(simFor("kubelet", kubeletClient), nodeOptions, monotonic),
      );
      run(nodeLifecycleController(simFor("node-controller")));
      run(schedulerController(simFor("default-scheduler", schedulerClient), storeBinder(api.context)));
      const ips = new PodIpAllocator(informers.pods);
      const workloadUnhealthy = (pod: StoredObject): boolean => {
        if (!faults.hasUnhealthyWorkloads()) return false;
        const ref = controllerOf(pod);
        const ns = pod.metadata.namespace;
        if (!ref) return false;
        if (faults.workloadUnhealthy(ns, ref.kind, ref.name)) return true;
        if (ref.kind !== "ReplicaSet") return false;
        const rs = informers.replicasets.get(ns, ref.name);
        const top = rs ? controllerOf(rs) : undefined;
        return top?.kind === "Deployment" && faults.workloadUnhealthy(ns, "Deployment", top.name);
      };
      const podStages = run({
        ...stageController<PodStageEnv>({
          name: "kubelet",
          informer: informers.pods,
          resource: RESOURCES.pods,
          stages: POD_STAGES,
          env: () => ({
            now: now(),
            timing,
            node: (name) => informers.nodes.getByKey(name),
            nodesKnown: informers.nodes.hasSynced(),
            workloadUnhealthy,
            allocateIp: (pod, node) => ips.allocate(pod, node),
            newContainerId: () => randomBytes(32).toString("hex"),
          }),
          client: kubeletClient,
          monotonic,
          statusSubresource: true,
          fieldManager: "kubelet",
          // Node changes (readiness, taints, deletion) concern the pods bound there.
          watches: [
            {
              informer: informers.nodes,
              map: (node) => informers.pods.byIndex(BY_NODE, node.metadata.name).map(objectKey),
            },
          ],
        }),
        workers: 4,
      });
      run(replicaSetController(simFor("replicaset-controller")));
      run(deploymentController(simFor("deployment-controller")));
      run(statefulSetController(simFor("statefulset-controller")));
      run(daemonSetController(simFor("daemonset-controller")));
      run(jobController(simFor("job-controller")));
      run(cronJobController(simFor("cronjob-controller")));
      run(endpointsController(simFor("endpoint-controller")));

      const custom = new CustomStageRunners(simFor("member-sim"), factory, opts.stages ?? [], monotonic);
      custom.start();
      stoppers.push(() => custom.stop());
      stoppers.push(
        faults.onChange(() => {
          for (const key of informers.nodes.keys()) heartbeat.enqueue(key);
          for (const key of informers.pods.keys()) podStages.enqueue(key);
        }),
      );
      return custom;
    }
    // A sink runs its status writer only; a full member, the whole simulation.
    let custom: CustomStageRunners | undefined;
    if (opts.sink) for (const c of sinkControllers(simFor("member-sim"))) run(c);
    else custom = runSimulation();

    faults.bind({
      cordon: async (node, unschedulable) => {
        const targets = node === undefined ? informers.nodes.list() : [informers.nodes.getByKey(node)];
        if (node !== undefined && !targets[0])
          throw new FaultError(`cordon: no node ${JSON.stringify(node)}`);
        const changed: string[] = [];
        for (const n of targets) {
          if (!n || ((n.spec ?? {}) as { unschedulable?: boolean }).unschedulable === unschedulable) continue;
          await controllerClient.patch(RESOURCES.nodes, undefined, n.metadata.name, "merge", {
            spec: { unschedulable: unschedulable ? true : null },
          });
          changed.push(n.metadata.name);
        }
        return changed;
      },
      deletePods: async (namespace, selector) => {
        const list = await client.list(
          RESOURCES.pods,
          namespace,
          selector ? { labelSelector: selector } : {},
        );
        let deleted = 0;
        for (const pod of list.items) {
          if (pod.metadata.deletionTimestamp) continue;
          try {
            await client.delete(RESOURCES.pods, namespace, pod.metadata.name);
            deleted++;
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
        return deleted;
      },
    });

    const kubeSystem = await client.get(RESOURCES.namespaces, undefined, "kube-system");
    let stopped = false;
    return {
      name: opts.name,
      api,
      client,
      faults,
      clusterId: kubeSystem.metadata.uid,
      informers,
      runningStageKinds: () => custom?.runningKinds() ?? [],
      async stop() {
        if (stopped) return;
        stopped = true;
        for (const stop of stoppers.reverse()) await stop();
        await api.close();
        if (ownStore) await store.close();
      },
    };
  } catch (err) {
    for (const stop of stoppers.reverse()) await stop();
    await api.close();
    if (ownStore) await store.close();
    throw err;
  }
}

/**
 * A member cluster served on `host:port` (port 0: a free one), as a real cluster is: HTTPS
 * with its own CA, client certificates and service-account tokens authenticated, RBAC.
 */
export async function serveMemberCluster(
  opts: MemberClusterOptions & ServeOptions,
): Promise<ServedMemberCluster> {
  const pki = opts.insecure ? undefined : (opts.pki ?? (await createClusterPki({ caName: opts.name })));
  const serving = pki ? secureServingFrom(pki) : undefined;
  const cluster = await startMemberCluster({
    ...opts,
    server: {
      ...opts.server,
      ...serving?.api,
      ...(serving ? {} : { authorization: "AlwaysAllow" as const }),
    },
  });
  try {
    const http = await serveMember(cluster.api.handler, {
      host: opts.host ?? "127.0.0.1",
      port: opts.port ?? 0,
      log: (opts.log ?? silentLogger).child({ cluster: opts.name }),
      faults: cluster.faults,
      ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
      info: {
        name: cluster.name,
        nodes: () => cluster.informers.nodes.keys().sort(),
        clusterId: () => cluster.clusterId,
      },
      ...(serving ? { tls: serving.tls, authenticate: cluster.api.authenticate! } : {}),
      ...(cluster.api.requestMetrics ? { metrics: cluster.api.requestMetrics } : {}),
    });
    const connection: ClusterConnection = { server: http.url };
    if (pki) {
      connection.caData = pki.ca.certPem;
      connection.certData = pki.admin.certPem;
      connection.keyData = pki.admin.keyPem;
    }
    return {
      ...cluster,
      url: http.url,
      port: http.port,
      connection,
      async stop() {
        await http.close();
        await cluster.stop();
      },
    };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}
