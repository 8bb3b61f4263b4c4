import { describe, expect, it } from "vitest";
import { compareVersions } from "./registry.ts";

describe("compareVersions", () => {
  it("orders like Kubernetes", () => {
    const sorted = ["v1alpha1", "foo", "v2", "v1beta1", "v1", "v1beta2", "v11alpha2", "v10", "bar"].sort(
      compareVersions,
    );
    expect(sorted).toEqual(["v10", "v2", "v1", "v1beta2", "v1beta1", "v11alpha2", "v1alpha1", "bar", "foo"]);
  });
});
