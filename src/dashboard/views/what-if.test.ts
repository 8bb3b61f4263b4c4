import { describe, expect, it } from "vitest";
import type { SimulationReport } from "../../simulate/types.ts";
import { readWhatIfRequest, whatIfResult } from "./what-if.ts";

describe("readWhatIfRequest", () => {
  it("reads the changes, trimming empty lines", () => {
    expect(
      readWhatIfRequest({
        withoutClusters: ["member1"],
        taints: [" member2=k:NoExecute ", ""],
        failover: true,
        manifests: "  ",
      }),
    ).toEqual({
      withoutClusters: ["member1"],
      cordon: [],
      taints: ["member2=k:NoExecute"],
      labels: [],
      failover: true,
    });
  });

  it.each([
    [[], "the request must be a JSON object"],
    [{ cordon: "member1" }, "cordon must be a list of strings"],
    [{ manifests: 3 }, "manifests must be YAML or JSON text"],
    [{ failover: "yes" }, "failover must be true or false"],
  ])("refuses %j", (body, message) => {
    expect(() => readWhatIfRequest(body)).toThrow(message);
  });
});

describe("whatIfResult", () => {
  it("shapes the replay report for the page", () => {
    const report: SimulationReport = {
      changes: ["cluster member1 removed"],
      features: { Failover: true, PropagationPolicyPreemption: false },
      warnings: [],
      bindings: {
        summary: { bindings: 3, moved: 1, unschedulable: 0 },
        changes: [
          {
            kind: "ResourceBinding",
            namespace: "default",
            name: "nginx-deployment",
            resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "nginx" },
            replicas: 2,
            workload: true,
            before: [
              { name: "member1", replicas: 1 },
              { name: "member2", replicas: 1 },
            ],
            after: [{ name: "member2", replicas: 2 }],
            shifts: [
              { cluster: "member1", before: 1, after: null, why: "removed" },
              { cluster: "member2", before: 1, after: 2 },
            ],
          },
        ],
      },
    };
    expect(whatIfResult(report)).toEqual({
      changes: ["cluster member1 removed"],
      warnings: [],
      replay: {
        bindings: 3,
        moved: 1,
        unschedulable: 0,
        moves: [
          {
            key: "rb/default/nginx-deployment",
            label: "Deployment default/nginx",
            workload: true,
            replicas: 2,
            shifts: [
              { cluster: "member1", before: 1, after: null, why: "removed" },
              { cluster: "member2", before: 1, after: 2 },
            ],
            evictions: [],
          },
        ],
      },
    });
  });
});
