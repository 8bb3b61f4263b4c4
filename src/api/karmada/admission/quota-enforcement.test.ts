import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../meta.ts";
import { object } from "./admission.fixtures.ts";
import {
  bindingResourceUsage,
  evaluateFederatedQuota,
  quotaRelevantFieldChanged,
} from "./quota-enforcement.ts";

function rb(spec: Record<string, unknown>): StoredObject {
  return object(
    "work.karmada.io/v1alpha2",
    "ResourceBinding",
    { name: "nginx-deployment", namespace: "default", uid: "uid-nginx-deployment" },
    { spec },
  );
}

function frq(
  name: string,
  overall: Record<string, string> | undefined,
  overallUsed?: Record<string, string>,
): StoredObject {
  return object(
    "policy.karmada.io/v1alpha1",
    "FederatedResourceQuota",
    { name, namespace: "default", uid: `uid-${name}` },
    { spec: overall ? { overall } : {}, ...(overallUsed ? { status: { overallUsed } } : {}) },
  );
}

const REQUESTS = { resourceRequest: { cpu: "500m", memory: "1Gi" } };
const scheduled = (replicas: number[]) => replicas.map((r, i) => ({ name: `member${i + 1}`, replicas: r }));

function usage(binding: StoredObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, q] of bindingResourceUsage(binding)) out[k] = `${q.n}e${q.scale}`;
  return out;
}

describe("binding usage", () => {
  it("multiplies per-replica requests by the scheduled replicas", () => {
    expect(usage(rb({ replicaRequirements: REQUESTS, clusters: scheduled([2, 1]) }))).toEqual({
      cpu: "1500e-3",
      memory: `${3n * 1024n ** 3n}e0`,
    });
  });

  it("multiplies per-component requests by the number of clusters", () => {
    const binding = rb({
      components: [
        { name: "jm", replicas: 1, replicaRequirements: { resourceRequest: { cpu: "1" } } },
        { name: "tm", replicas: 2, replicaRequirements: { resourceRequest: { cpu: "2", memory: "0" } } },
        { name: "idle", replicas: 0, replicaRequirements: { resourceRequest: { cpu: "9" } } },
      ],
      clusters: scheduled([1, 1]),
    });
    expect(usage(binding)).toEqual({ cpu: "10e0" });
  });

  it("is empty while unscheduled", () => {
    expect(usage(rb({ replicaRequirements: REQUESTS }))).toEqual({});
  });
});

describe("evaluateFederatedQuota", () => {
  it("skips unscheduled creations", () => {
    expect(
      evaluateFederatedQuota(rb({ replicaRequirements: REQUESTS }), undefined, "CREATE", [
        frq("q", { cpu: "1" }),
      ]),
    ).toEqual({
      updates: [],
    });
  });

  it("charges a new binding to every quota that tracks its resources", () => {
    const binding = rb({ replicaRequirements: REQUESTS, clusters: scheduled([2, 1]) });
    const quotas = [
      frq("cpu-only", { cpu: "4" }, { cpu: "1" }),
      frq("memory", { memory: "8Gi" }),
      frq("none", undefined),
      frq("pods", { pods: "10" }),
    ];
    expect(evaluateFederatedQuota(binding, undefined, "CREATE", quotas)).toEqual({
      updates: [
        { namespace: "default", name: "cpu-only", overallUsed: { cpu: "2500m" } },
        { namespace: "default", name: "memory", overallUsed: { memory: "3Gi" } },
      ],
    });
  });

  it("refuses a binding that would exceed a quota", () => {
    const binding = rb({ replicaRequirements: REQUESTS, clusters: scheduled([4]) });
    expect(
      evaluateFederatedQuota(binding, undefined, "CREATE", [frq("q", { cpu: "3" }, { cpu: "1500m" })]),
    ).toEqual({
      denial: "FederatedResourceQuota(default/q) exceeded for resource cpu: requested sum 3500m, limit 3.",
      updates: [],
    });
  });

  it("charges only the difference on update, and releases on scale-down", () => {
    const old = rb({ replicaRequirements: REQUESTS, clusters: scheduled([2]) });
    const grown = rb({ replicaRequirements: REQUESTS, clusters: scheduled([3]) });
    const shrunk = rb({ replicaRequirements: REQUESTS, clusters: scheduled([1]) });
    const quota = frq("q", { cpu: "2" }, { cpu: "1" });
    expect(evaluateFederatedQuota(grown, old, "UPDATE", [quota]).updates).toEqual([
      { namespace: "default", name: "q", overallUsed: { cpu: "1500m" } },
    ]);
    expect(evaluateFederatedQuota(shrunk, old, "UPDATE", [quota]).updates).toEqual([
      { namespace: "default", name: "q", overallUsed: { cpu: "500m" } },
    ]);
  });

  it("ignores updates that change nothing it charges", () => {
    const old = rb({ replicaRequirements: REQUESTS, clusters: scheduled([2]) });
    const moved = rb({ replicaRequirements: REQUESTS, clusters: [{ name: "member9", replicas: 2 }] });
    expect(quotaRelevantFieldChanged(old, moved)).toBe(false);
    expect(evaluateFederatedQuota(moved, old, "UPDATE", [frq("q", { cpu: "0" })])).toEqual({ updates: [] });
  });

  it("sees requests, replicas and components as relevant", () => {
    const base = rb({ replicaRequirements: REQUESTS, clusters: scheduled([2]) });
    const cases: Array<Record<string, unknown>> = [
      { replicaRequirements: { resourceRequest: { cpu: "1" } }, clusters: scheduled([2]) },
      { replicaRequirements: REQUESTS, clusters: scheduled([1, 1, 1]) },
      { replicaRequirements: REQUESTS, clusters: scheduled([2]), components: [{ name: "a", replicas: 1 }] },
    ];
    for (const spec of cases) expect(quotaRelevantFieldChanged(base, rb(spec))).toBe(true);
  });
});
