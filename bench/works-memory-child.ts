/**
 * Control-plane memory with many Works, in a fresh process: an API server on the given store
 * plus the controller manager's Work informer (the cache every Work-handling controller
 * shares), both in this process as `karmada up` runs them. Creates N Works (a Deployment
 * manifest each, spread over 10 execution spaces) with an Applied status and a reflected
 * manifest status, waits for the informer to hold them all, forces a full GC and prints the
 * deltas as one JSON line.
 *
 *   node --expose-gc --import tsx bench/works-memory-child.ts <store-url> <count> <concurrency>
 */
import { ApiServer } from "../src/apiserver/server.ts";
import { RESOURCES } from "../src/client/client.ts";
import { LocalClient } from "../src/client/local.ts";
import { KARMADA } from "../src/karmada/resources.ts";
import { silentLogger } from "../src/log.ts";
import { InformerFactory, withoutManagedFields } from "../src/runtime/informer.ts";
import { openStore } from "../src/storage/open.ts";
import { name, pool } from "./load.ts";

export interface WorksMemoryResult {
  count: number;
  heapBytes: number;
  rssBytes: number;
  externalBytes: number;
  gc: boolean;
  seconds: number;
}

const CLUSTERS = 10;

function work(i: number): Record<string, unknown> {
  const app = name("web", Math.floor(i / CLUSTERS));
  const cluster = `member${(i % CLUSTERS) + 1}`;
  return {
    apiVersion: "work.karmada.io/v1alpha1",
    kind: "Work",
    metadata: {
      name: `${app}-7d9f8c6b5d`,
      namespace: `karmada-es-${cluster}`,
      labels: {
        "resourcebinding.karmada.io/permanent-id": `0000${i}-rb`,
        "work.karmada.io/permanent-id": `0000${i}-work`,
      },
      annotations: {
        "resourcebinding.karmada.io/name": `${app}-deployment`,
        "resourcebinding.karmada.io/namespace": "default",
        "work.karmada.io/conflict-resolution": "abort",
      },
    },
    spec: {
      workload: {
        manifests: [
          {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: {
              name: app,
              namespace: "default",
              labels: { app, "karmada.io/managed": "true" },
              annotations: { "resourcetemplate.karmada.io/generation": "1" },
            },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app } },
              template: {
                metadata: { labels: { app } },
                spec: {
                  containers: [
                    {
                      name: "web",
                      image: "nginx:1.25",
                      resources: { requests: { cpu: "10m", memory: "16Mi" } },
                    },
                  ],
                },
              },
            },
          },
        ],
      },
    },
  };
}

function status(app: string): Record<string, unknown> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  return {
    conditions: [
      {
        type: "Applied",
        status: "True",
        reason: "AppliedSuccessful",
        message: "Manifest has been successfully applied",
        lastTransitionTime: now,
      },
    ],
    manifestStatuses: [
      {
        identifier: {
          ordinal: 0,
          group: "apps",
          version: "v1",
          kind: "Deployment",
          resource: "deployments",
          namespace: "default",
          name: app,
        },
        status: {
          replicas: 1,
          readyReplicas: 1,
          availableReplicas: 1,
          updatedReplicas: 1,
          observedGeneration: 1,
        },
        health: "Healthy",
      },
    ],
  };
}

async function main(url: string, count: number, concurrency: number): Promise<WorksMemoryResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const settle = async (): Promise<NodeJS.MemoryUsage> => {
    await new Promise((r) => setTimeout(r, 200));
    gc?.();
    gc?.();
    return process.memoryUsage();
  };
  const store = await openStore(url);
  const api = await ApiServer.start({ store, log: silentLogger, compactionIntervalMs: 0 });
  const client = new LocalClient(api.context, { fieldManager: "bench" });
  // As the controller manager makes its caches (src/controllers/index.ts).
  const informers = new InformerFactory(client, { log: silentLogger, transform: withoutManagedFields });
  try {
    for (let c = 1; c <= CLUSTERS; c++) {
      await client.create(RESOURCES.namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: `karmada-es-member${c}` },
      });
    }
    const works = informers.informer(KARMADA.works);
    informers.start();
    await informers.waitForSync();
    const before = await settle();
    const started = performance.now();
    await pool(count, concurrency, async (i) => {
      const w = work(i);
      const created = await client.create(KARMADA.works, w);
      const app = (created.metadata.name ?? "").replace(/-7d9f8c6b5d$/, "");
      await client.updateStatus(KARMADA.works, { ...created, status: status(app) });
    });
    for (let i = 0; works.list().length < count && i < 600; i++) await new Promise((r) => setTimeout(r, 100));
    if (works.list().length < count)
      throw new Error(`the informer holds ${works.list().length} of ${count} Works`);
    const seconds = (performance.now() - started) / 1000;
    const after = await settle();
    return {
      count,
      heapBytes: after.heapUsed - before.heapUsed,
      rssBytes: after.rss - before.rss,
      externalBytes: after.external + after.arrayBuffers - (before.external + before.arrayBuffers),
      gc: gc !== undefined,
      seconds,
    };
  } finally {
    informers.stop();
    await api.close();
    await store.close();
  }
}

const [url, count, concurrency] = process.argv.slice(2);
if (url === undefined || count === undefined || concurrency === undefined) {
  process.stderr.write("usage: works-memory-child.ts <store-url> <count> <concurrency>\n");
  process.exit(2);
}
main(url, Number(count), Number(concurrency)).then(
  (r) => {
    process.stdout.write(`${JSON.stringify(r)}\n`);
    process.exit(0);
  },
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
