/**
 * The execution controller over real simulated members: a member that stops answering holds
 * only part of the workers, so the other members' Works are applied meanwhile; an object
 * Karmada does not manage is not taken over unless the Work says overwrite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterTestEnv, conditionsOf, type RunningManager, until } from "../../test/support/cluster-env.ts";
import type { NewObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { ANNOTATION, LABEL } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";

const WORKS = 20;

const work = (cluster: string, i: number): NewObject => ({
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

  it("leaves an object Karmada does not manage alone (Abort) until told to overwrite, then keeps it as the Work says", async () => {
    const fine = env.member("fine");
    await fine.client.create(RESOURCES.configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "taken", namespace: "default" },
      data: { owner: "member" },
    });
    const manifest = (resolution?: string) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "taken",
        namespace: "default",
        labels: { [LABEL.managed]: "true" },
        // The Work it came from, as the binding controller records it: drift is traced back by it.
        annotations: {
          [ANNOTATION.workNamespace]: "karmada-es-fine",
          [ANNOTATION.workName]: "taken",
          ...(resolution ? { [ANNOTATION.conflictResolution]: resolution } : {}),
        },
      },
      data: { owner: "karmada" },
    });
    await env.client.create(KARMADA.works, {
      apiVersion: "work.karmada.io/v1alpha1",
      kind: "Work",
      metadata: { name: "taken", namespace: "karmada-es-fine" },
      spec: { workload: { manifests: [manifest()] } },
    });
    const applied = async () =>
      conditionsOf(await env.client.get(KARMADA.works, "karmada-es-fine", "taken")).find(
        (c) => c.type === "Applied",
      );
    await until(async () => (await applied())?.status === "False", "the Work to fail to apply");
    expect((await applied())?.message).toContain(
      "already exists in the cluster fine and the work.karmada.io/conflict-resolution strategy value is empty, Karmada will not manage this resource",
    );
    const memberData = async () =>
      (await fine.client.get(RESOURCES.configmaps, "default", "taken")).data as Record<string, string>;
    expect(await memberData()).toEqual({ owner: "member" });

    await env.client.patch(KARMADA.works, "karmada-es-fine", "taken", "merge", {
      spec: { workload: { manifests: [manifest("overwrite")] } },
    });
    await until(async () => (await memberData())?.owner === "karmada", "the member's object overwritten");
    await until(async () => (await applied())?.status === "True", "the Work applied");

    // Now that Karmada manages it, an edit in the member is put back from the Work.
    await fine.client.patch(RESOURCES.configmaps, "default", "taken", "merge", {
      data: { owner: "someone" },
    });
    await until(async () => (await memberData())?.owner === "karmada", "the edit put back");
  });
});
