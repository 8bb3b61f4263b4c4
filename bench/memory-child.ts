/**
 * Memory per stored object, measured in a fresh process so that nothing else the benchmark
 * did is in the figures: start an API server on the given store, force a full GC, create N
 * ConfigMaps through the handler, force a full GC again, and print the deltas as one JSON line.
 *
 *   node --expose-gc --import tsx bench/memory-child.ts <store-url> <count> <concurrency>
 */
import { ApiServer } from "../src/apiserver/server.ts";
import { silentLogger } from "../src/log.ts";
import { openStore } from "../src/storage/open.ts";
import { configMap, handle, name, pool } from "./load.ts";

export interface MemoryResult {
  heapBytes: number;
  rssBytes: number;
  externalBytes: number;
  gc: boolean;
}

async function main(url: string, count: number, concurrency: number): Promise<MemoryResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const settle = async (): Promise<NodeJS.MemoryUsage> => {
    await new Promise((r) => setTimeout(r, 100));
    gc?.();
    gc?.();
    return process.memoryUsage();
  };
  const store = await openStore(url);
  const api = await ApiServer.start({ store, log: silentLogger, compactionIntervalMs: 0 });
  try {
    const ns = await handle(api.handler, "POST", "/api/v1/namespaces", {
      metadata: { name: "bench-memory" },
    });
    if (ns.status !== 201) throw new Error(`namespace: ${ns.status}`);
    const before = await settle();
    await pool(count, concurrency, async (i) => {
      const r = await handle(
        api.handler,
        "POST",
        "/api/v1/namespaces/bench-memory/configmaps",
        configMap(name("cm", i), i),
      );
      if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
    });
    const after = await settle();
    return {
      heapBytes: after.heapUsed - before.heapUsed,
      rssBytes: after.rss - before.rss,
      externalBytes: after.external + after.arrayBuffers - (before.external + before.arrayBuffers),
      gc: gc !== undefined,
    };
  } finally {
    await api.close();
    await store.close();
  }
}

const [url, count, concurrency] = process.argv.slice(2);
if (url === undefined || count === undefined || concurrency === undefined) {
  process.stderr.write("usage: memory-child.ts <store-url> <count> <concurrency>\n");
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(await main(url, Number(count), Number(concurrency)))}\n`);
