/**
 * Which policy claims a template, on `karmada up` through kubectl: preemption (gate
 * PropagationPolicyPreemption) and `activationPreference: Lazy`, following upstream's e2e
 * stories (preemption_test.go, lazy_activation_policy_test.go).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeatureGates } from "../../src/runtime/features.ts";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually } from "../support/kubectl.ts";
import { deployment, manifest } from "../support/kubectl-output.ts";

type Obj = {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { clusters?: Array<{ name: string }> };
};

const pp = (
  name: string,
  target: string,
  spec: Record<string, unknown>,
  selector: Record<string, unknown> = {},
) => ({
  apiVersion: "policy.karmada.io/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name, namespace: "default" },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", ...selector }],
    placement: { clusterAffinity: { clusterNames: [target] } },
    ...spec,
  },
});

describe("policy claims on karmada up", () => {
  let fleet: TestFleet;
  const { kubectl, cp, ok, getJson: getJsonOf } = fleetKubectl<Obj>(() => fleet);
  const getJson = (context: string, args: string[]) => getJsonOf(context, ["get", ...args]);
  const claimedBy = async (name: string): Promise<string | undefined> =>
    (await getJson("karmada-apiserver", ["deployment", name]))?.metadata.annotations?.[
      "propagationpolicy.karmada.io/name"
    ] ??
    (await getJson("karmada-apiserver", ["deployment", name]))?.metadata.annotations?.[
      "clusterpropagationpolicy.karmada.io/name"
    ];
  const targets = async (name: string): Promise<string> =>
    ((await getJson("karmada-apiserver", ["rb", `${name}-deployment`]))?.spec?.clusters ?? [])
      .map((c) => c.name)
      .join(",");
  const inMember = (member: string, name: string) =>
    eventually(
      async () => (await kubectl(member, ["get", "deployment", name])).code === 0,
      `${name} in ${member}`,
      300,
      100,
    );

  beforeAll(async () => {
    fleet = await startTestFleet("policy-claims", 2, {
      features: FeatureGates.parse(["PropagationPolicyPreemption=true"]),
    });
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it("a higher-priority policy with preemption: Always takes the template over; deleting it gives it back", async () => {
    await ok(
      cp(
        ["apply", "-f", "-"],
        manifest(deployment("pre"), pp("low", "member1", { priority: 1 }, { name: "pre" })),
      ),
    );
    await inMember("member1", "pre");
    expect(await claimedBy("pre")).toBe("low");

    // Without preemption a better policy created later does not take over.
    await ok(cp(["apply", "-f", "-"], manifest(pp("high", "member2", { priority: 2 }, { name: "pre" }))));
    await eventually(async () => (await cp(["get", "pp", "high"])).code === 0, "pp high");
    await ok(cp(["annotate", "deployment", "pre", "touch=1"]));
    await eventually(
      async () => (await getJson("karmada-apiserver", ["rb", "pre-deployment"]))?.metadata.annotations,
      "rb",
    );
    expect(await claimedBy("pre")).toBe("low");

    await ok(cp(["patch", "pp", "high", "--type", "merge", "-p", '{"spec":{"preemption":"Always"}}']));
    await eventually(async () => (await claimedBy("pre")) === "high", "high to preempt low", 300, 100);
    await eventually(
      async () => (await targets("pre")) === "member2",
      "the binding to follow high",
      300,
      100,
    );
    await inMember("member2", "pre");
    await eventually(
      async () =>
        (await cp(["get", "events", "--field-selector", "involvedObject.name=pre"])).stdout.includes(
          "PreemptPolicySucceed",
        ),
      "the PreemptPolicySucceed event",
      100,
      100,
    );
    const described = await ok(cp(["describe", "deployment", "pre"]));
    expect(described).toContain(
      "Propagation policy(default/high) preempted propagation policy(default/low) successfully",
    );

    await ok(cp(["delete", "pp", "high"]));
    await eventually(async () => (await claimedBy("pre")) === "low", "low to claim it again", 300, 100);
    await eventually(
      async () => (await targets("pre")) === "member1",
      "the binding back on member1",
      300,
      100,
    );
  });

  it("a PropagationPolicy preempts a ClusterPropagationPolicy whatever their priorities", async () => {
    await ok(
      cp(
        ["apply", "-f", "-"],
        manifest(deployment("cpre"), {
          apiVersion: "policy.karmada.io/v1alpha1",
          kind: "ClusterPropagationPolicy",
          metadata: { name: "cluster-wide" },
          spec: {
            priority: 100,
            resourceSelectors: [
              { apiVersion: "apps/v1", kind: "Deployment", name: "cpre", namespace: "default" },
            ],
            placement: { clusterAffinity: { clusterNames: ["member1"] } },
          },
        }),
      ),
    );
    await eventually(async () => (await claimedBy("cpre")) === "cluster-wide", "the CPP claim", 300, 100);
    await ok(
      cp(
        ["apply", "-f", "-"],
        manifest(pp("ns-wide", "member2", { preemption: "Always" }, { name: "cpre" })),
      ),
    );
    await eventually(
      async () => (await claimedBy("cpre")) === "ns-wide",
      "the PP to preempt the CPP",
      300,
      100,
    );
    const d = await getJson("karmada-apiserver", ["deployment", "cpre"]);
    expect(d?.metadata.labels).not.toHaveProperty("clusterpropagationpolicy.karmada.io/permanent-id");
    await eventually(
      async () => (await targets("cpre")) === "member2",
      "the binding to follow the PP",
      300,
      100,
    );
  });

  it("a Lazy policy created after its template claims it but propagates only once the template changes", async () => {
    await ok(cp(["apply", "-f", "-"], manifest(deployment("lazy"))));
    await ok(
      cp(
        ["apply", "-f", "-"],
        manifest(pp("lazy", "member1", { activationPreference: "Lazy" }, { name: "lazy" })),
      ),
    );
    await eventually(async () => (await claimedBy("lazy")) === "lazy", "the lazy claim", 300, 100);
    // Claim and binding are one reconcile: a moment later there is still no binding.
    await new Promise((r) => setTimeout(r, 500));
    expect((await cp(["get", "rb", "lazy-deployment"])).code).not.toBe(0);

    await ok(cp(["label", "deployment", "lazy", "tier=web"]));
    await inMember("member1", "lazy");

    // A placement change waits for the template's next change too.
    await ok(
      cp([
        "patch",
        "pp",
        "lazy",
        "--type",
        "merge",
        "-p",
        '{"spec":{"placement":{"clusterAffinity":{"clusterNames":["member2"]}}}}',
      ]),
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(await targets("lazy")).toBe("member1");
    await ok(cp(["scale", "deployment", "lazy", "--replicas", "2"]));
    await eventually(
      async () => (await targets("lazy")) === "member2",
      "the new placement after the template changed",
      300,
      100,
    );
    await inMember("member2", "lazy");
  });

  it("switching a policy from Lazy to immediate applies its placement at once", async () => {
    await ok(
      cp([
        "patch",
        "pp",
        "lazy",
        "--type",
        "json",
        "-p",
        '[{"op":"remove","path":"/spec/activationPreference"},{"op":"replace","path":"/spec/placement/clusterAffinity/clusterNames","value":["member1"]}]',
      ]),
    );
    await eventually(
      async () => (await targets("lazy")) === "member1",
      "the placement applied at once",
      300,
      100,
    );
  });
});
