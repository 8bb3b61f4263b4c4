import { describe, expect, it } from "vitest";
import { ago, cells, DAY, header } from "./table.fixtures.ts";
import { toTable } from "./table.ts";

describe("Cluster", () => {
  const cluster = {
    metadata: { name: "member1", creationTimestamp: ago(3 * DAY) },
    spec: {
      syncMode: "Pull",
      apiEndpoint: "https://10.0.0.1:6443",
      zones: ["z1", "z2"],
      region: "eu",
      provider: "aws",
    },
    status: {
      kubernetesVersion: "v1.32.1",
      conditions: [
        { type: "Other", status: "False" },
        { type: "Ready", status: "True" },
      ],
    },
  };

  it("has upstream's columns, the placement ones only in -o wide", () => {
    expect(header("cluster.karmada.io/Cluster")).toEqual([
      "Name",
      "Version",
      "Mode",
      "Ready",
      "Age",
      "Zones*",
      "Region*",
      "Provider*",
      "API-Endpoint*",
      "Proxy-URL*",
    ]);
  });

  it("prints the Ready condition's status, zones joined, <none> for what is unset", () => {
    expect(cells("cluster.karmada.io/Cluster", cluster)).toEqual([
      "member1",
      "v1.32.1",
      "Pull",
      "True",
      "3d",
      "z1,z2",
      "eu",
      "aws",
      "https://10.0.0.1:6443",
      "<none>",
    ]);
    expect(
      cells("cluster.karmada.io/Cluster", {
        metadata: { name: "new", creationTimestamp: ago(DAY) },
        spec: {},
      }),
    ).toEqual(["new", "", "", "Unknown", "24h", "<none>", "<none>", "<none>", "", "<none>"]);
  });

  it("wins over the printer columns of our CRD-style definition of the kind", () => {
    const t = toTable("cluster.karmada.io/Cluster", [cluster], {
      now: Date.now(),
      includeObject: "None",
      crdColumns: [{ name: "Version", type: "string", jsonPath: ".status.kubernetesVersion" }],
    });
    expect(t.columnDefinitions).toHaveLength(10);
  });
});
