/**
 * The store on a three-member etcd: every member serves the same data, and losing one
 * member (SIGKILL) leaves a quorum that keeps taking writes through the store's other
 * endpoints.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../open.ts";
import type { Store } from "../store.ts";
import { ETCD_BINARY, startLocalEtcdCluster } from "./local-etcd.ts";

describe.skipIf(!existsSync(ETCD_BINARY))("a three-member etcd", { timeout: 60_000 }, () => {
  let cluster: Awaited<ReturnType<typeof startLocalEtcdCluster>>;
  const stores: Store[] = [];
  beforeAll(async () => {
    cluster = await startLocalEtcdCluster(3);
  }, 60_000);
  afterAll(async () => {
    for (const s of stores) await s.close();
    await cluster?.destroy();
  });

  it("serves one data set from every member, and writes on after losing one", async () => {
    const all = await openStore(`etcd://${cluster.endpoints.join(",")}?prefix=/c`);
    stores.push(all);
    const viaLast = await openStore(`etcd://${cluster.endpoints[2]}?prefix=/c`);
    stores.push(viaLast);
    await all.create("/k/a", "1");
    expect((await viaLast.get("/k/a")).kv?.value).toBe("1");
    await cluster.members[0]!.kill();
    let written = false;
    for (let i = 0; i < 50 && !written; i++) {
      written = await all.create("/k/b", "2").then(
        () => true,
        () => false,
      );
      if (!written) await new Promise((r) => setTimeout(r, 100));
    }
    expect(written).toBe(true);
    expect((await viaLast.get("/k/b")).kv?.value).toBe("2");
  });
});
