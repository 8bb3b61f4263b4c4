import { describe, expect, it } from "vitest";
import { effectivePodRequest, replicaRequirements } from "./replica-requirements.ts";

const container = (requests?: Record<string, unknown>, limits?: Record<string, unknown>) => ({
  name: "c",
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
});

describe("effectivePodRequest", () => {
  const cases: Array<{ name: string; spec: unknown; want: Record<string, string> | undefined }> = [
    { name: "nothing requested", spec: { containers: [{ name: "c" }] }, want: undefined },
    { name: "no spec", spec: undefined, want: undefined },
    {
      name: "sums app containers",
      spec: {
        containers: [container({ cpu: "100m", memory: "64Mi" }), container({ cpu: "0.5", memory: "64Mi" })],
      },
      want: { cpu: "600m", memory: "128Mi" },
    },
    {
      name: "whole CPUs print without a suffix",
      spec: { containers: [container({ cpu: "1500m" }), container({ cpu: "500m" })] },
      want: { cpu: "2" },
    },
    {
      name: "limits stand in for missing requests",
      spec: {
        containers: [
          container(undefined, { cpu: "1", memory: "1Gi" }),
          container({ cpu: "250m" }, { cpu: "2" }),
        ],
      },
      want: { cpu: "1250m", memory: "1Gi" },
    },
    {
      name: "an init container larger than the app containers wins per resource",
      spec: {
        initContainers: [container({ cpu: "2", memory: "10Mi" }), container({ memory: "20Mi" })],
        containers: [container({ cpu: "500m", memory: "100Mi" }), container({ cpu: "500m" })],
      },
      want: { cpu: "2", memory: "100Mi" },
    },
    {
      name: "init containers alone",
      spec: { initContainers: [container(undefined, { memory: "1G" })] },
      want: { memory: "1000000000" },
    },
    {
      name: "overhead is added after the init-container max",
      spec: {
        initContainers: [container({ cpu: "1" })],
        containers: [container({ cpu: "200m" })],
        overhead: { cpu: "250m", memory: "120Mi" },
      },
      want: { cpu: "1250m", memory: "120Mi" },
    },
    {
      name: "rounding up: CPU to milli-units, others to whole units",
      spec: { containers: [container({ cpu: "0.0001", memory: "0.5" })] },
      want: { cpu: "1m", memory: "1" },
    },
    {
      name: "memory below 1024 bytes prints in decimal",
      spec: { containers: [container({ memory: "1000" })] },
      want: { memory: "1k" },
    },
    {
      name: "extended, hugepages and ephemeral storage; unknown native names are ignored",
      spec: {
        containers: [
          container({
            "nvidia.com/gpu": "1",
            "hugepages-2Mi": "4Mi",
            "ephemeral-storage": "2Gi",
            storage: "5Gi",
            "requests.example.com/foo": "1",
          }),
          container({ "nvidia.com/gpu": "2" }),
        ],
      },
      want: { "ephemeral-storage": "2Gi", "hugepages-2Mi": "4Mi", "nvidia.com/gpu": "3" },
    },
    {
      name: "zero requests are left out",
      spec: { containers: [container({ cpu: "0", memory: "0" })] },
      want: undefined,
    },
    {
      name: "malformed quantities are skipped",
      spec: { containers: [container({ cpu: "lots", memory: "1Gi" })] },
      want: { memory: "1Gi" },
    },
  ];
  for (const { name, spec, want } of cases) {
    it(name, () => expect(effectivePodRequest(spec)).toEqual(want));
  }
});

describe("replicaRequirements", () => {
  const affinity = {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: "foo", operator: "Exists" }] }],
      },
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }],
    },
  };
  const tolerations = [{ key: "foo", operator: "Exists", effect: "NoSchedule" }];

  it("node claim from nodeSelector, tolerations and required node affinity", () => {
    expect(
      replicaRequirements({
        nodeSelector: { foo: "foo1" },
        tolerations,
        affinity,
        containers: [{ name: "c" }],
      }),
    ).toEqual({
      nodeClaim: {
        nodeSelector: { foo: "foo1" },
        tolerations,
        hardNodeAffinity: { nodeSelectorTerms: [{ matchFields: [{ key: "foo", operator: "Exists" }] }] },
      },
    });
  });

  it("undefined when nothing constrains the pod", () => {
    expect(replicaRequirements({ containers: [{ name: "c" }], tolerations: [] })).toBeUndefined();
    expect(replicaRequirements({ affinity: { nodeAffinity: {} } })).toBeUndefined();
  });

  it("resources alone", () => {
    expect(replicaRequirements({ containers: [container({ cpu: "1" })] })).toEqual({
      resourceRequest: { cpu: "1" },
    });
  });

  it("an empty nodeSelector still yields a (blank) node claim, as upstream's non-nil map does", () => {
    expect(replicaRequirements({ nodeSelector: {} })).toEqual({ nodeClaim: {} });
  });

  it("priorityClassName only with the ResourceQuotaEstimate gate", () => {
    const spec = { priorityClassName: "high", containers: [container({ cpu: "1" })] };
    expect(replicaRequirements(spec)).toEqual({ resourceRequest: { cpu: "1" } });
    expect(replicaRequirements(spec, { resourceQuotaEstimate: true })).toEqual({
      resourceRequest: { cpu: "1" },
      priorityClassName: "high",
    });
    expect(
      replicaRequirements({ containers: [container({ cpu: "1" })] }, { resourceQuotaEstimate: true }),
    ).toEqual({ resourceRequest: { cpu: "1" } });
  });

  it("copies, never aliases, the pod spec", () => {
    const spec = { nodeSelector: { a: "b" }, tolerations: [{ key: "k" }] };
    const got = replicaRequirements(spec)!;
    got.nodeClaim!.nodeSelector!.a = "changed";
    expect(spec.nodeSelector.a).toBe("b");
  });
});
