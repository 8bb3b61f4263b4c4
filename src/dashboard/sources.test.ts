import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../test/support/api.ts";
import { RESOURCES } from "../client/client.ts";
import { LocalClient } from "../client/local.ts";
import { KARMADA } from "../karmada/resources.ts";
import { SourceSet } from "./sources.ts";

describe("sources", () => {
  let api: TestApi;
  let client: LocalClient;

  beforeAll(async () => {
    api = await startTestApi();
    client = new LocalClient(api.server.context);
  });
  afterAll(async () => {
    await api.close();
  });

  /** Resolves when `check` holds, re-checked on every notification (bounded by the test's timeout). */
  const when = (subscribe: (l: () => void) => () => void, check: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      if (check()) return resolve();
      const off = subscribe(() => {
        if (check()) {
          off();
          resolve();
        }
      });
    });

  it("tells its listeners when an empty first list is in", async () => {
    const set = new SourceSet(client, 0);
    const source = set.acquire({ resource: KARMADA.clusterPropagationPolicies });
    await when(
      (l) => source.subscribe(l),
      () => source.synced,
    );
    expect(source.list()).toEqual([]);
    expect(source.settled).toBe(true);
    set.release(source);
    expect(set.size).toBe(0);
  });

  it("keeps a refused list as a problem, and shares one source per spec", async () => {
    const limited = new LocalClient(api.server.context, {
      user: { name: "nobody", groups: ["system:authenticated"] },
    });
    const set = new SourceSet(limited, 60_000);
    const a = set.acquire({ resource: RESOURCES.clusters });
    const b = set.acquire({ resource: RESOURCES.clusters });
    expect(a).toBe(b);
    await when(
      (l) => a.subscribe(l),
      () => a.problem !== undefined,
    );
    expect(a.problem).toMatchObject({
      resource: "clusters.cluster.karmada.io",
      code: 403,
      reason: "Forbidden",
    });
    expect(a.settled).toBe(true);
    expect(a.synced).toBe(false);
    set.stop();
  });
});
