/**
 * Resource interpreter customizations on `karmada up` through kubectl: a custom kind taught
 * with Lua how many replicas it has, how to revise them and when it is healthy; a change to the
 * customization takes effect without a restart; a script that does not compile is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually } from "../support/kubectl.ts";
import { manifest } from "../support/kubectl-output.ts";

type Obj = {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "workloads.workload.example.io" },
  spec: {
    group: "workload.example.io",
    names: { kind: "Workload", plural: "workloads", singular: "workload", listKind: "WorkloadList" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1alpha1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        subresources: { status: {} },
      },
    ],
  },
};

const customization = (healthy: string) => ({
  apiVersion: "config.karmada.io/v1alpha1",
  kind: "ResourceInterpreterCustomization",
  metadata: { name: "workload" },
  spec: {
    target: { apiVersion: "workload.example.io/v1alpha1", kind: "Workload" },
    customizations: {
      replicaResource: {
        luaScript: `function GetReplicas(obj)
  return obj.spec.replicas, { resourceRequest = { cpu = "250m" } }
end`,
      },
      replicaRevision: {
        luaScript: `function ReviseReplica(obj, desiredReplica)
  obj.spec.replicas = desiredReplica
  return obj
end`,
      },
      healthInterpretation: { luaScript: `function InterpretHealth(observedObj)\n  return ${healthy}\nend` },
    },
  },
});

describe("resource interpreter customizations on karmada up", () => {
  let fleet: TestFleet;
  const { kubectl, cp, ok, getJson } = fleetKubectl<Obj>(() => fleet);
  const health = async () =>
    (
      ((await getJson("karmada-apiserver", ["get", "rb", "w-workload"]))?.status?.aggregatedStatus ??
        []) as Array<{
        clusterName: string;
        health: string;
      }>
    ).map((i) => `${i.clusterName}:${i.health}`);

  beforeAll(async () => {
    fleet = await startTestFleet("interpreter", 2);
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it("replicas, their revision per member and health come from the Lua scripts", async () => {
    await ok(
      cp(
        ["apply", "-f", "-"],
        manifest(CRD, {
          apiVersion: "policy.karmada.io/v1alpha1",
          kind: "ClusterPropagationPolicy",
          metadata: { name: "workload-crd" },
          spec: {
            resourceSelectors: [
              {
                apiVersion: "apiextensions.k8s.io/v1",
                kind: "CustomResourceDefinition",
                name: CRD.metadata.name,
              },
            ],
            placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } },
          },
        }),
      ),
    );
    await eventually(
      async () => (await cp(["get", "crd", CRD.metadata.name])).code === 0,
      "the CRD",
      100,
      100,
    );
    await ok(cp(["apply", "-f", "-"], manifest(customization("observedObj.spec.paused ~= true"))));
    await ok(
      cp(
        ["apply", "-f", "-"],
        manifest(
          {
            apiVersion: "workload.example.io/v1alpha1",
            kind: "Workload",
            metadata: { name: "w", namespace: "default" },
            spec: { replicas: 4, image: "nginx" },
          },
          {
            apiVersion: "policy.karmada.io/v1alpha1",
            kind: "PropagationPolicy",
            metadata: { name: "w", namespace: "default" },
            spec: {
              resourceSelectors: [
                { apiVersion: "workload.example.io/v1alpha1", kind: "Workload", name: "w" },
              ],
              placement: {
                clusterAffinity: { clusterNames: ["member1", "member2"] },
                replicaScheduling: {
                  replicaSchedulingType: "Divided",
                  replicaDivisionPreference: "Weighted",
                  weightPreference: {
                    staticWeightList: [
                      { targetCluster: { clusterNames: ["member1"] }, weight: 1 },
                      { targetCluster: { clusterNames: ["member2"] }, weight: 1 },
                    ],
                  },
                },
              },
            },
          },
        ),
      ),
    );
    const rb = await eventually(
      async () => {
        const b = await getJson("karmada-apiserver", ["get", "rb", "w-workload"]);
        return (b?.spec?.clusters as unknown[] | undefined)?.length === 2 ? b : undefined;
      },
      "the binding scheduled",
      300,
      100,
    );
    expect(rb.spec?.replicas).toBe(4);
    expect(rb.spec?.replicaRequirements).toEqual({ resourceRequest: { cpu: "250m" } });
    for (const member of ["member1", "member2"]) {
      const copy = await eventually(
        async () => getJson(member, ["get", "workload", "w"]),
        `w in ${member}`,
        300,
        100,
      );
      expect(copy.spec?.replicas).toBe(2);
    }
    await eventually(
      async () => (await health()).join(",") === "member1:Healthy,member2:Healthy",
      "both members Healthy by the script",
      300,
      100,
    );
  });

  it("an edited customization takes effect without a restart", async () => {
    await ok(cp(["apply", "-f", "-"], manifest(customization("false"))));
    // Nothing about the workload changes: the members' copies are looked at again because
    // the script that reads them did.
    await eventually(
      async () => (await health()).join(",") === "member1:Unhealthy,member2:Unhealthy",
      "both members Unhealthy by the edited script",
      300,
      100,
    );
  });

  it("a customization whose script does not compile is refused with the Lua error", async () => {
    const bad = customization("true");
    bad.metadata.name = "broken";
    bad.spec.target.kind = "Other";
    bad.spec.customizations.healthInterpretation.luaScript = "function InterpretHealth(o) return o end end";
    const r = await kubectl("karmada-apiserver", ["apply", "-f", "-"], manifest(bad));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("InterpreterOperation(InterpretHealth) Lua script error:");
    expect(r.stderr).toContain("expected near 'end'");
    expect((await cp(["get", "resourceinterpretercustomization", "broken"])).code).not.toBe(0);
  });
});
