/**
 * Bytes per cached Pod, measured in a fresh process so that nothing else is in the figures:
 * one member holding N Pods; the heap (and external memory) a search cache of them takes,
 * then what a plain informer of the same Pods takes, each after a forced full GC.
 *
 *   node --expose-gc --import tsx bench/search-memory-child.ts <pods>
 */
import { RESOURCES } from "../src/client/client.ts";
import { silentLogger } from "../src/log.ts";
import { Informer } from "../src/runtime/informer.ts";
import { CacheBudget, ResourceCache } from "../src/search/resource-cache.ts";
import { benchMember } from "./search-pods.ts";

export interface SearchMemoryResult {
  cacheBytesPerPod: number;
  informerBytesPerPod: number;
  /** What the cache itself counts against its budget, per Pod. */
  accountedBytesPerPod: number;
  gc: boolean;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function settle(): Promise<number> {
  await new Promise((r) => setTimeout(r, 100));
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

async function main(pods: number): Promise<SearchMemoryResult> {
  const member = await benchMember("member1", pods, false);
  try {
    const base = await settle();
    const cache = new ResourceCache({
      cluster: "member1",
      resource: RESOURCES.pods,
      namespaces: new Set(),
      client: member.client,
      budget: new CacheBudget(0),
      log: silentLogger,
    });
    cache.start();
    await cache.waitForSync();
    const withCache = await settle();
    const accounted = cache.bytes;
    cache.stop();
    const base2 = await settle();
    const informer = new Informer(member.client, RESOURCES.pods);
    informer.start();
    await informer.waitForSync();
    const withInformer = await settle();
    if (informer.keys().length !== pods) throw new Error(`informer holds ${informer.keys().length} pods`);
    informer.stop();
    return {
      cacheBytesPerPod: (withCache - base) / pods,
      informerBytesPerPod: (withInformer - base2) / pods,
      accountedBytesPerPod: accounted / pods,
      gc: gc !== undefined,
    };
  } finally {
    await member.close();
  }
}

const pods = Number(process.argv[2] ?? "10000");
main(pods).then(
  (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
  (err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  },
);
