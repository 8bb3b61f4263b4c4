/**
 * Application failover on `karmada up` through kubectl, the seed guide's walk-through: a
 * Deployment pinned to one of member1..3 (spread to one cluster), with
 * `failover.application` purgeMode Never. Its member's nodes are cordoned and its pods deleted;
 * the binding's aggregated status turns Unhealthy; after `tolerationSeconds` the binding moves
 * to another member with a graceful eviction task (producer
 * resource-binding-application-failover-controller, reason ApplicationFailure,
 * suppressDeletion true) and the old copy stays, until the user sets `suppressDeletion: false`
 * with kubectl; then the old copy is removed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually } from "../support/kubectl.ts";
import { deployment, manifest } from "../support/kubectl-output.ts";

type Obj = {
  metadata: { name: string };
  spec?: {
    clusters?: Array<{ name: string }>;
    gracefulEvictionTasks?: Array<Record<string, unknown>>;
  };
  status?: {
    availableReplicas?: number;
    aggregatedStatus?: Array<{ clusterName: string; health?: string }>;
  };
  items?: Array<{ metadata: { name: string } }>;
};

const MEMBERS = ["member1", "member2", "member3"];

const policy = (purgeMode: string) => ({
  apiVersion: "policy.karmada.io/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "web", namespace: "default" },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
    propagateDeps: true,
    placement: {
      clusterAffinity: { clusterNames: MEMBERS },
      spreadConstraints: [{ spreadByField: "cluster", maxGroups: 1, minGroups: 1 }],
    },
    failover: { application: { decisionConditions: { tolerationSeconds: 3 }, purgeMode } },
  },
});

const LONG = [600, 100] as const;

describe("application failover on karmada up", () => {
  let fleet: TestFleet;
  const { kubectl, cp, ok, getJson } = fleetKubectl<Obj>(() => fleet);
  const rb = () => getJson("karmada-apiserver", ["get", "rb", "web-deployment"]);
  const targets = async () => ((await rb())?.spec?.clusters ?? []).map((c) => c.name);

  beforeAll(async () => {
    fleet = await startTestFleet("application-failover", 3);
  }, 90_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it("moves an unhealthy workload after tolerationSeconds and keeps the old copy until suppressDeletion is lifted", async () => {
    await ok(cp(["apply", "-f", "-"], manifest(deployment("web", { replicas: 2 }), policy("Never"))));
    const first = await eventually(
      async () => {
        const t = await targets();
        if (t.length !== 1) return undefined;
        const d = await getJson(t[0]!, ["get", "deployment", "web"]);
        return d?.status?.availableReplicas === 2 && t[0];
      },
      "web running on one member",
      ...LONG,
    );

    // The seed guide's fault: no node takes pods any more, and the running ones are gone.
    const nodes = (await getJson(first, ["get", "nodes"]))?.items?.map((n) => n.metadata.name) ?? [];
    expect(nodes.length).toBeGreaterThan(0);
    await ok(kubectl(first, ["cordon", ...nodes]));
    await ok(kubectl(first, ["delete", "pods", "-l", "app=web", "--wait=false"]));

    await eventually(
      async () =>
        (await rb())?.status?.aggregatedStatus?.some(
          (i) => i.clusterName === first && i.health === "Unhealthy",
        ),
      `the binding Unhealthy on ${first}`,
      ...LONG,
    );
    const moved = await eventually(
      async () => {
        const b = await rb();
        const t = (b?.spec?.clusters ?? []).map((c) => c.name);
        return t.length === 1 && t[0] !== first ? b : undefined;
      },
      "the binding moved to another member",
      ...LONG,
    );
    expect(moved.spec?.gracefulEvictionTasks).toEqual([
      expect.objectContaining({
        fromCluster: first,
        producer: "resource-binding-application-failover-controller",
        reason: "ApplicationFailure",
        purgeMode: "Never",
        suppressDeletion: true,
      }),
    ]);
    const second = moved.spec!.clusters![0]!.name;
    await eventually(
      async () => (await getJson(second, ["get", "deployment", "web"]))?.status?.availableReplicas === 2,
      `web running on ${second}`,
      ...LONG,
    );
    // Never: the old copy stays while the task suppresses its deletion.
    expect(await getJson(first, ["get", "deployment", "web"])).toBeDefined();

    await ok(
      cp([
        "patch",
        "rb",
        "web-deployment",
        "--type=json",
        "-p",
        '[{"op":"replace","path":"/spec/gracefulEvictionTasks/0/suppressDeletion","value":false}]',
      ]),
    );
    await eventually(
      async () => (await kubectl(first, ["get", "deployment", "web"])).code !== 0,
      `the old copy removed from ${first}`,
      ...LONG,
    );
    await eventually(
      async () => ((await rb())?.spec?.gracefulEvictionTasks ?? []).length === 0,
      "the eviction task ended",
      ...LONG,
    );
    expect(await targets()).toEqual([second]);
  });
});
