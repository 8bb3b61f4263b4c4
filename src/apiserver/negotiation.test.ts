import { describe, expect, it } from "vitest";
import { aggregatedDiscovery, responseShape } from "./negotiation.ts";

describe("negotiation", () => {
  it("recognises kubectl's table request", () => {
    expect(
      responseShape(
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
      ),
    ).toBe("table");
    expect(responseShape("application/json")).toBe("object");
    expect(responseShape(undefined)).toBe("object");
    expect(responseShape("application/vnd.kubernetes.protobuf,application/json")).toBe("object");
    expect(
      responseShape("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"),
    ).toBe("partial-metadata-list");
  });

  it("recognises aggregated discovery", () => {
    expect(
      aggregatedDiscovery(
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json",
      ),
    ).toBe("v2");
    expect(aggregatedDiscovery("application/json")).toBeUndefined();
    expect(
      aggregatedDiscovery("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"),
    ).toBe("v2beta1");
  });
});
