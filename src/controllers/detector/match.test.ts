/**
 * The detector's pure decisions, as tables: whether the claim a template carries still holds,
 * which policy an unclaimed template goes to, which dependent overrides are missing, and which
 * policy preempts the claimer.
 */
import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import { ANNOTATION, LABEL } from "../../karmada/names.ts";
import type { PropagationSpec } from "../../karmada/types.ts";
import { claimOf, claimPatch, unclaimPatch } from "./claim.ts";
import {
  bestMatch,
  type HeldClaim,
  heldClaim,
  missingOverrides,
  type Policy,
  type PolicyLookup,
} from "./match.ts";
import { preemptor } from "./preemption.ts";

const deployment = (meta: Partial<StoredObject["metadata"]> = {}): StoredObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "nginx", namespace: "default", uid: "uid-nginx", ...meta },
});

function pp(
  name: string,
  spec: Partial<PropagationSpec> = {},
  meta: Partial<Policy["metadata"]> = {},
): Policy {
  return {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "PropagationPolicy",
    metadata: {
      name,
      namespace: "default",
      uid: `uid-pp-${name}`,
      labels: { [LABEL.ppPermanentId]: `id-${name}` },
      ...meta,
    },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], ...spec } as PropagationSpec,
  };
}

function cpp(
  name: string,
  spec: Partial<PropagationSpec> = {},
  meta: Partial<Policy["metadata"]> = {},
): Policy {
  return {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "ClusterPropagationPolicy",
    metadata: { name, uid: `uid-cpp-${name}`, labels: { [LABEL.cppPermanentId]: `id-${name}` }, ...meta },
    spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], ...spec } as PropagationSpec,
  };
}

function lookup(
  pps: Policy[],
  cpps: Policy[],
  overrides: string[] = [],
  clusterOverrides: string[] = [],
): PolicyLookup {
  return {
    propagationPolicy: (ns, name) => pps.find((p) => p.metadata.namespace === ns && p.metadata.name === name),
    clusterPropagationPolicy: (name) => cpps.find((p) => p.metadata.name === name),
    propagationPolicies: (ns) => pps.filter((p) => p.metadata.namespace === ns),
    clusterPropagationPolicies: () => cpps,
    overridePolicyExists: (_ns, name) => overrides.includes(name),
    clusterOverridePolicyExists: (name) => clusterOverrides.includes(name),
  };
}

const ppClaim = (name: string, id = `id-${name}`) => ({
  labels: { [LABEL.ppPermanentId]: id },
  annotations: { [ANNOTATION.ppNamespace]: "default", [ANNOTATION.ppName]: name },
});
const cppClaim = (name: string, id = `id-${name}`) => ({
  labels: { [LABEL.cppPermanentId]: id },
  annotations: { [ANNOTATION.cppName]: name },
});

describe("heldClaim", () => {
  const web = pp("web");
  const all = cpp("all");
  const cases: Array<[string, StoredObject, PolicyLookup, HeldClaim["state"]]> = [
    ["no claim", deployment(), lookup([web], [all]), "unclaimed"],
    ["its PP still selects it", deployment(ppClaim("web")), lookup([web], []), "held"],
    ["its PP is gone", deployment(ppClaim("web")), lookup([], []), "stale"],
    ["its PP was recreated (another id)", deployment(ppClaim("web", "id-old")), lookup([web], []), "stale"],
    [
      "its PP no longer selects it",
      deployment(ppClaim("web")),
      lookup([pp("web", { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap" }] })], []),
      "stale",
    ],
    [
      "its PP is being deleted",
      deployment(ppClaim("web")),
      lookup([pp("web", {}, { deletionTimestamp: "2026-01-01T00:00:00Z" })], []),
      "deleting",
    ],
    ["its CPP still selects it", deployment(cppClaim("all")), lookup([web], [all]), "held"],
    ["its CPP is gone", deployment(cppClaim("all")), lookup([web], []), "stale"],
  ];
  it.each(cases)("%s", (_name, template, policies, state) => {
    expect(heldClaim(template, policies).state).toBe(state);
  });

  it("a held claim names its policy and scope", () => {
    expect(heldClaim(deployment(cppClaim("all")), lookup([], [all]))).toEqual({
      state: "held",
      claimer: { policy: all, clusterScoped: true },
    });
  });
});

describe("bestMatch", () => {
  it.each([
    ["a PP before any CPP", [pp("a")], [cpp("z", { priority: 10 })], "a", false],
    ["the higher explicit priority", [pp("a"), pp("b", { priority: 1 })], [], "b", false],
    [
      "a name selector before a kind selector",
      [
        pp("a"),
        pp("b", { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }] }),
      ],
      [],
      "b",
      false,
    ],
    ["the smaller name on a tie", [pp("b"), pp("a")], [], "a", false],
    ["a CPP when no PP selects it", [], [cpp("all")], "all", true],
  ] as const)("%s", (_name, pps, cpps, want, clusterScoped) => {
    const got = bestMatch(deployment(), lookup([...pps], [...cpps]));
    expect(got?.policy.metadata.name).toBe(want);
    expect(got?.clusterScoped).toBe(clusterScoped);
  });

  it("a cluster-scoped template only matches CPPs", () => {
    const ns: StoredObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team", uid: "u" } };
    const selectNs = { resourceSelectors: [{ apiVersion: "v1", kind: "Namespace" }] };
    expect(bestMatch(ns, lookup([pp("a", selectNs)], []))).toBeUndefined();
    expect(bestMatch(ns, lookup([pp("a", selectNs)], [cpp("c", selectNs)]))?.clusterScoped).toBe(true);
  });
});

describe("missingOverrides", () => {
  it("lists the dependent overrides not there yet, of the policy's scope", () => {
    const policy = pp("a", { dependentOverrides: ["op1", "op2"] });
    expect(missingOverrides({ policy, clusterScoped: false }, lookup([], [], ["op1"], ["op2"]))).toEqual([
      "op2",
    ]);
    const cluster = cpp("c", { dependentOverrides: ["op1", "op2"] });
    expect(
      missingOverrides({ policy: cluster, clusterScoped: true }, lookup([], [], ["op1"], ["op2"])),
    ).toEqual(["op1"]);
  });
});

describe("preemptor", () => {
  const byName = { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }] };
  const claimer = { policy: pp("low", { priority: 1 }), clusterScoped: false };
  it.each([
    [
      "a higher-priority PP naming it",
      [pp("high", { ...byName, priority: 2, preemption: "Always" })],
      "high",
    ],
    ["not without preemption: Always", [pp("high", { ...byName, priority: 2 })], undefined],
    ["not at equal priority", [pp("same", { ...byName, priority: 1, preemption: "Always" })], undefined],
    ["not by a kind selector", [pp("high", { priority: 2, preemption: "Always" })], undefined],
  ] as const)("%s", (_name, pps, want) => {
    expect(preemptor(deployment(), claimer, lookup([claimer.policy, ...pps], []))?.policy.metadata.name).toBe(
      want,
    );
  });

  it("a PP of any priority preempts a CPP; a CPP preempts only a lower CPP, never a PP", () => {
    const claimedByCpp = { policy: cpp("low", { priority: 5 }), clusterScoped: true };
    const anyPp = pp("any", { ...byName, preemption: "Always" });
    expect(preemptor(deployment(), claimedByCpp, lookup([anyPp], [claimedByCpp.policy]))?.policy).toBe(anyPp);
    const higherCpp = cpp("high", { ...byName, priority: 6, preemption: "Always" });
    expect(preemptor(deployment(), claimedByCpp, lookup([], [higherCpp]))?.policy).toBe(higherCpp);
    expect(preemptor(deployment(), claimer, lookup([claimer.policy], [higherCpp]))).toBeUndefined();
  });
});

describe("claim patches", () => {
  it("claiming for a PP drops a CPP's claim; a claimed template needs no patch", () => {
    const claim = claimOf({ policy: pp("web"), clusterScoped: false });
    expect(claimPatch(deployment(cppClaim("all")), claim)).toEqual({
      metadata: {
        labels: { [LABEL.cppPermanentId]: null, [LABEL.ppPermanentId]: "id-web" },
        annotations: {
          [ANNOTATION.cppName]: null,
          [ANNOTATION.ppNamespace]: "default",
          [ANNOTATION.ppName]: "web",
        },
      },
    });
    expect(claimPatch(deployment(ppClaim("web")), claim)).toBeUndefined();
  });

  it("unclaiming removes only the claim keys present", () => {
    expect(unclaimPatch(deployment())).toBeUndefined();
    expect(unclaimPatch(deployment(cppClaim("all")))).toEqual({
      metadata: { labels: { [LABEL.cppPermanentId]: null }, annotations: { [ANNOTATION.cppName]: null } },
    });
  });
});
