/**
 * The execution controller over real simulated members: a member that stops answering holds
 * only part of the workers, so the other members' Works are applied meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { KARMADA } from "../karmada/resources.ts";
import { ClusterTestEnv, conditionsOf, type RunningManager, until } from "./test-support.ts";

const WORKS = 20;

const work = (cluster: string, i: number): StoredObject => ({
  apiVersion: "work.karmada.io/v1alpha1",
  kind: "Work",
  metadata: { name: `cm-${i}`, namespace: `karmada-es-${cluster}` },
  spec: {
    workload: {
      manifests: [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `cm-${i}`, namespace: "default" },
          data: { i: String(i) },
        },
      ],
    },
  },
});

describe("execution controller with a hung member", () => {
  let env: ClusterTestEnv;
  let mgr: RunningManager;

  beforeAll(async () => {
    env = await ClusterTestEnv.start();
    mgr = env.startManager({
      controllers: ["cluster", "clusterStatus", "execution"],
      options: {
        clusterStatusUpdateFrequencyMs: 100,
        clusterSuccessThresholdMs: 100,
        // The hung member stays Ready throughout: only the workers protect the other one.
        clusterFailureThresholdMs: 120_000,
        clusterMonitorGracePeriodMs: 120_000,
      },
    });
    for (const name of ["slow", "fine"]) {
      await env.addMember(name);
      await env.join(name);
    }
    for (const name of ["slow", "fine"]) await env.untilReady(name, "True", "ClusterReady");
  }, 60_000);
  afterAll(async () => {
    mgr?.stop();
    await env?.stop();
  });

  it("applies the other member's Works while the hung member's requests wait for their timeout", async () => {
    await env.member("slow").faults.set({ type: "unreachable", mode: "hang" });
    // The hung member's Works first, so that they are taken by the workers first.
    for (let i = 0; i < WORKS; i++) await env.client.create(KARMADA.works, work("slow", i));
    for (let i = 0; i < WORKS; i++) await env.client.create(KARMADA.works, work("fine", i));

    const fine = env.member("fine");
    await until(
      async () => (await fine.client.list(RESOURCES.configmaps, "default")).items.length >= WORKS,
      "every ConfigMap in the answering member",
    );
    // Its requests (3 s timeout here) have not come back yet: nothing is recorded on its Works.
    const slowWorks = (await env.client.list(KARMADA.works, "karmada-es-slow")).items;
    expect(slowWorks).toHaveLength(WORKS);
    expect(slowWorks.filter((w) => conditionsOf(w).some((c) => c.type === "Applied"))).toEqual([]);

    await env.member("slow").faults.restore();
    await until(
      async () =>
        (await env.client.list(KARMADA.works, "karmada-es-slow")).items.every((w) =>
          conditionsOf(w).some((c) => c.type === "Applied" && c.status === "True"),
        ),
      "the hung member's Works applied once it answers again",
      30_000,
    );
  });
});
