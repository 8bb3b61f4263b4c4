import { describe, expect, it } from "vitest";
import { FEATURES, FeatureGates } from "./features.ts";

describe("feature gates", () => {
  it("default as upstream Karmada: Failover off, GracefulEviction and PropagateDeps on, alpha gates off", () => {
    const g = new FeatureGates();
    expect(g.enabled("Failover")).toBe(false);
    expect(g.enabled("GracefulEviction")).toBe(true);
    expect(g.enabled("PropagateDeps")).toBe(true);
    expect(g.enabled("CustomizedClusterResourceModeling")).toBe(true);
    expect(g.enabled("PropagationPolicyPreemption")).toBe(false);
    expect(g.enabled("StatefulFailoverInjection")).toBe(false);
    expect(g.toString()).toBe("");
  });

  const cases: Array<[string, string[], Record<string, boolean>]> = [
    ["one gate", ["Failover=true"], { Failover: true, GracefulEviction: true }],
    [
      "several, comma-separated and repeated",
      ["Failover=true,GracefulEviction=false", "PropagationPolicyPreemption=TRUE"],
      { Failover: true, GracefulEviction: false, PropagationPolicyPreemption: true },
    ],
    [
      "AllAlpha turns every alpha gate on",
      ["AllAlpha=true"],
      { PropagationPolicyPreemption: true, StatefulFailoverInjection: true, Failover: false },
    ],
    [
      "a named gate wins over its stage",
      ["AllBeta=false,PropagateDeps=true"],
      { Failover: false, GracefulEviction: false, PropagateDeps: true },
    ],
    [
      "upstream's local-up setting: everything on",
      ["AllAlpha=true,AllBeta=true"],
      Object.fromEntries(Object.keys(FEATURES).map((k) => [k, true])),
    ],
    ["spaces and empty items", [" Failover = true ,,"], { Failover: true }],
  ];
  it.each(cases)("%s", (_name, values, want) => {
    const g = FeatureGates.parse(values);
    for (const [name, on] of Object.entries(want))
      expect(g.enabled(name as keyof typeof FEATURES), name).toBe(on);
  });

  it("says which gate or value to fix", () => {
    expect(() => FeatureGates.parse(["Failovr=true"])).toThrow(
      /unrecognized feature gate: Failovr \(known: Failover, /,
    );
    expect(() => FeatureGates.parse(["Failover=yes"])).toThrow(
      "invalid value of Failover=yes, want true or false",
    );
    expect(() => FeatureGates.parse(["Failover"])).toThrow("missing bool value for Failover");
  });

  it("prints the gates set away from their defaults", () => {
    expect(FeatureGates.parse(["GracefulEviction=true,Failover=true,PropagateDeps=false"]).toString()).toBe(
      "Failover=true,PropagateDeps=false",
    );
    expect(new FeatureGates().with({ Failover: true }).enabled("Failover")).toBe(true);
  });
});
