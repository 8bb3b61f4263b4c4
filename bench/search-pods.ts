/**
 * What the search bench caches: member clusters (API servers on memory stores, served over
 * plain HTTP on loopback) holding Pods shaped like a kubelet-run Deployment's.
 */
import { startHttpServer } from "../src/apiserver/http.ts";
import { ApiServer } from "../src/apiserver/server.ts";
import { RESOURCES } from "../src/client/client.ts";
import { LocalClient } from "../src/client/local.ts";
import { silentLogger } from "../src/log.ts";
import { MemoryStore } from "../src/storage/memory/store.ts";
import { pool } from "./load.ts";

export const BENCH_NAMESPACE = "bench";

/** A Pod of a Deployment as a member holds it once running (~3 KiB of JSON). */
export function benchPod(cluster: string, i: number): Record<string, unknown> {
  const app = `app-${i % 50}`;
  const hash = `5d${(i % 50).toString(16).padStart(6, "0")}`;
  const name = `${app}-${hash}-${i.toString(36).padStart(5, "0")}`;
  const start = "2026-11-26T10:00:00Z";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: BENCH_NAMESPACE,
      labels: { app, "pod-template-hash": hash },
      annotations: { "kubectl.kubernetes.io/restartedAt": start },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: `${app}-${hash}`,
          uid: `00000000-0000-4000-8000-${String(i % 50).padStart(12, "0")}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: "app",
          image: `registry.example/${app}:v1.${i % 5}`,
          ports: [{ containerPort: 8080, protocol: "TCP" }],
          env: [
            { name: "MODE", value: "production" },
            { name: "CLUSTER", value: cluster },
          ],
          resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          imagePullPolicy: "IfNotPresent",
        },
      ],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      nodeName: `${cluster}-node-${i % 20}`,
      schedulerName: "default-scheduler",
      tolerations: [
        {
          key: "node.kubernetes.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
        {
          key: "node.kubernetes.io/unreachable",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
      ],
      priority: 0,
      enableServiceLinks: true,
    },
    status: {
      phase: "Running",
      conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({
        type,
        status: "True",
        lastProbeTime: null,
        lastTransitionTime: start,
      })),
      hostIP: `172.18.0.${(i % 20) + 2}`,
      podIP: `10.244.${(i >> 8) & 255}.${i & 255}`,
      podIPs: [{ ip: `10.244.${(i >> 8) & 255}.${i & 255}` }],
      startTime: start,
      containerStatuses: [
        {
          name: "app",
          state: { running: { startedAt: start } },
          lastState: {},
          ready: true,
          restartCount: 0,
          image: `registry.example/${app}:v1.${i % 5}`,
          imageID: `registry.example/${app}@sha256:${"0".repeat(56)}${(i % 50).toString(16).padStart(8, "0")}`,
          containerID: `containerd://${i.toString(16).padStart(64, "0")}`,
          started: true,
        },
      ],
      qosClass: "Burstable",
    },
  };
}

export interface BenchMember {
  name: string;
  api: ApiServer;
  client: LocalClient;
  url: string;
  close(): Promise<void>;
}

/** A member API server holding `pods` bench Pods, served over plain HTTP when `serve`. */
export async function benchMember(name: string, pods: number, serve: boolean): Promise<BenchMember> {
  const api = await ApiServer.start({
    store: new MemoryStore(),
    karmada: false,
    authorization: "AlwaysAllow",
    log: silentLogger,
    compactionIntervalMs: 0,
  });
  const client = new LocalClient(api.context);
  await client.create(RESOURCES.namespaces, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: BENCH_NAMESPACE },
  });
  await pool(pods, 32, async (i) => {
    await client.create(RESOURCES.pods, benchPod(name, i));
  });
  const http = serve
    ? await startHttpServer(api.handler, { host: "127.0.0.1", port: 0, log: silentLogger })
    : undefined;
  return {
    name,
    api,
    client,
    url: http?.url ?? "",
    async close() {
      await http?.close();
      await api.close();
    },
  };
}
