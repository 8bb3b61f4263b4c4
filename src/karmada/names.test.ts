import { describe, expect, it } from "vitest";
import {
  bindingName,
  clusterOfExecutionSpace,
  fnv32a,
  isReservedNamespace,
  safeEncode,
  workName,
} from "./names.ts";

describe("upstream name generation", () => {
  it("hashes Work names as upstream's docs show", () => {
    expect(fnv32a("default-nginx-deployment")).toBe(2439396529);
    expect(safeEncode("2439396529")).toBe("687f7fb96f");
    expect(workName("Deployment", "nginx", "default")).toBe("nginx-687f7fb96f");
  });
  it("names bindings kind-suffixed, lower case, colons as dots", () => {
    expect(bindingName("Deployment", "nginx")).toBe("nginx-deployment");
    expect(bindingName("ClusterRole", "system:aggregate")).toBe("system.aggregate-clusterrole");
  });
  it("knows reserved namespaces and execution spaces", () => {
    expect(isReservedNamespace("karmada-system")).toBe(true);
    expect(isReservedNamespace("karmada-es-member1")).toBe(true);
    expect(isReservedNamespace("default")).toBe(false);
    expect(clusterOfExecutionSpace("karmada-es-member1")).toBe("member1");
    expect(clusterOfExecutionSpace("default")).toBeUndefined();
  });
});
