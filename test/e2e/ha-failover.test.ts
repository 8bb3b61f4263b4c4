/**
 * Issue H §3: three control-plane "nodes" (each a `karmada apiserver`, `controller-manager`
 * and `scheduler` process, and one member of a three-member etcd with client-certificate
 * auth and a CA of the test's own). The node whose controller manager leads is lost whole
 * (SIGKILL, its etcd member too); the others take over: a workload applied afterwards is
 * scheduled and reaches its members, and what was there before is still there, once.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESOURCES } from "../../src/client/client.ts";
import { KARMADA } from "../../src/karmada/resources.ts";
import type { ServedMemberCluster } from "../../src/member-sim/cluster.ts";
import { ETCD_BINARY } from "../../src/storage/etcd/local-etcd.ts";
import { type HaFleet, startHaFleet } from "../support/ha-fleet.ts";
import { eventually } from "../support/kubectl.ts";

const deployment = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: "default" },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: "app", image: "nginx" }] },
    },
  },
});

const policy = (name: string) => ({
  apiVersion: "policy.karmada.io/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name, namespace: "default" },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }],
    placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } },
  },
});

describe.skipIf(!existsSync(ETCD_BINARY))("a control-plane node lost whole", { timeout: 240_000 }, () => {
  let fleet: HaFleet;

  beforeAll(async () => {
    fleet = await startHaFleet();
  }, 200_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  const onMember = (member: ServedMemberCluster, name: string) =>
    member.client.get(RESOURCES.deployments, "default", name).then(
      () => true,
      () => false,
    );

  it("hands leadership over, and work goes on with nothing lost and nothing doubled", async () => {
    const first = fleet.nodes[0]!.client;
    await first.create(RESOURCES.deployments, deployment("before"));
    await first.create(KARMADA.propagationPolicies, policy("before"));
    await eventually(
      async () => (await onMember(fleet.members[0]!, "before")) && onMember(fleet.members[1]!, "before"),
      "the first workload on both members",
      600,
      100,
    );

    // What the members see of the first workload from here on: it must not be deleted or made again.
    const seen: string[] = [];
    const watches = fleet.members.map((m) =>
      m.client.watch(RESOURCES.deployments, "default", { resourceVersion: "0" }, (e) => {
        const obj = e.object as { metadata?: { name?: string; uid?: string } };
        if (obj.metadata?.name === "before") seen.push(`${m.name} ${e.type} ${obj.metadata.uid}`);
      }),
    );
    // The node whose controller manager leads goes down whole.
    const holder = await eventually(
      async () => {
        const lease = await first.get(RESOURCES.leases, "karmada-system", "karmada-controller-manager");
        return (lease.spec as { holderIdentity?: string }).holderIdentity;
      },
      "a leading controller manager",
      100,
      100,
    );
    const lost = fleet.nodes.find((n) => n.controllerManager === holder)!;
    expect(lost).toBeDefined();
    await fleet.loseNode(lost);
    const survivor = fleet.nodes.find((n) => n !== lost)!.client;

    // While etcd elects a new leader a write may time out (a 500, as kube-apiserver's): clients retry.
    const retried = <T>(write: () => Promise<T>, what: string) =>
      eventually(
        async () =>
          write().then(
            () => true,
            (err: unknown) => {
              if ((err as { status?: { code?: number } }).status?.code === 409) return true;
              throw err;
            },
          ),
        what,
        100,
        200,
      );
    await retried(
      () => survivor.create(RESOURCES.deployments, deployment("after")),
      "the new Deployment written",
    );
    await retried(
      () => survivor.create(KARMADA.propagationPolicies, policy("after")),
      "the new policy written",
    );
    const newLeader = await eventually(
      async () => {
        const lease = await survivor.get(RESOURCES.leases, "karmada-system", "karmada-controller-manager");
        const h = (lease.spec as { holderIdentity?: string }).holderIdentity;
        return h && h !== holder ? h : undefined;
      },
      "another controller manager leading",
      300,
      100,
    );
    expect(fleet.nodes.filter((n) => n !== lost).map((n) => n.controllerManager)).toContain(newLeader);
    await eventually(
      async () => {
        const rb = await survivor.get(KARMADA.resourceBindings, "default", "after-deployment");
        return ((rb.spec as { clusters?: unknown[] }).clusters ?? []).length === 2;
      },
      "the new workload scheduled",
      600,
      100,
    );
    await eventually(
      async () => (await onMember(fleet.members[0]!, "after")) && onMember(fleet.members[1]!, "after"),
      "the new workload on both members",
      600,
      100,
    );

    // Nothing lost: the first workload is where it was, never deleted nor made again; nothing
    // doubled: one Work per workload and member.
    for (const w of watches) w.stop();
    expect(
      seen.filter((e) => e.includes(" DELETED ")),
      seen.join("\n"),
    ).toEqual([]);
    expect(new Set(seen.map((e) => e.split(" ").at(-1))).size, seen.join("\n")).toBe(2);
    for (const m of fleet.members) {
      const works = (await survivor.list(KARMADA.works, `karmada-es-${m.name}`)).items.map(
        (w) => w.metadata.name,
      );
      for (const name of ["before", "after"]) {
        expect(
          works.filter((w) => w.startsWith(`${name}-`)),
          works.join(", "),
        ).toHaveLength(1);
      }
      const copies = (await m.client.list(RESOURCES.deployments, "default")).items.map(
        (d) => d.metadata.name,
      );
      expect(copies.sort()).toEqual(["after", "before"]);
    }
  });
});
