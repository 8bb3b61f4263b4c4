/**
 * The pure parts of the propagation controllers, as tables: which clusters a binding's Works
 * belong in, aggregatedStatus items and FullyApplied, what the execution controller sends over
 * an existing member object, which namespaces are auto-propagated, which bindings the
 * scheduler takes.
 */
import { describe, expect, it } from "vitest";
import type { StoredObject } from "../api/meta.ts";
import { Interpreter } from "../interpreter/index.ts";
import { nativeInterpreter } from "../interpreter/native/index.ts";
import type { BindingSpec } from "../karmada/types.ts";
import { expectedClusters } from "./binding.ts";
import { aggregatedItems, fullyApplied } from "./binding-status.ts";
import { changedByKarmada } from "./detector/index.ts";
import { desiredOver } from "./execution.ts";
import { shouldPropagateNamespace } from "./namespace.ts";
import { schedulable } from "./scheduler.ts";

const resource = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  namespace: "default",
  name: "nginx",
  uid: "u1",
};
const binding = (spec: Partial<BindingSpec>): StoredObject & { spec: BindingSpec } => ({
  apiVersion: "work.karmada.io/v1alpha2",
  kind: "ResourceBinding",
  metadata: { name: "nginx-deployment", namespace: "default", uid: "uid-nginx-deployment" },
  spec: { resource, ...spec },
});
const work = (cluster: string, status?: Record<string, unknown>, deleting = false): StoredObject => ({
  apiVersion: "work.karmada.io/v1alpha1",
  kind: "Work",
  metadata: {
    name: "nginx-687f7fb96f",
    namespace: `karmada-es-${cluster}`,
    uid: `uid-work-${cluster}`,
    ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
  },
  spec: {
    workload: {
      manifests: [
        { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "nginx", namespace: "default" } },
      ],
    },
  },
  ...(status ? { status } : {}),
});
const applied = (ok: boolean, message = "") => ({
  conditions: [
    {
      type: "Applied",
      status: ok ? "True" : "False",
      reason: ok ? "AppliedSuccessful" : "AppliedFailed",
      message,
    },
  ],
});
const identifier = {
  ordinal: 0,
  group: "apps",
  version: "v1",
  kind: "Deployment",
  namespace: "default",
  name: "nginx",
};

describe("expectedClusters", () => {
  const cases: Array<[string, Partial<BindingSpec>, string[]]> = [
    ["targets", { clusters: [{ name: "m1" }, { name: "m2" }] }, ["m1", "m2"]],
    [
      "requiredBy",
      { clusters: [{ name: "m1" }], requiredBy: [{ name: "x", clusters: [{ name: "m3" }] }] },
      ["m1", "m3"],
    ],
    [
      "graceful eviction keeps the old copy, except Directly/Immediately",
      {
        clusters: [{ name: "m2" }],
        gracefulEvictionTasks: [
          { fromCluster: "m1", reason: "r", producer: "p", purgeMode: "Gracefully" },
          { fromCluster: "m3", reason: "r", producer: "p", purgeMode: "Directly" },
          { fromCluster: "m4", reason: "r", producer: "p" },
        ],
      },
      ["m1", "m2", "m4"],
    ],
  ];
  for (const [name, spec, want] of cases) {
    it(name, () => expect([...expectedClusters(binding(spec).spec)].sort()).toEqual(want));
  }
});

describe("aggregatedStatus and FullyApplied", () => {
  it("one item per live Work, sorted; unapplied ones carry the message and Unknown health", () => {
    const b = binding({ clusters: [{ name: "m1" }, { name: "m2" }, { name: "m3" }] });
    const items = aggregatedItems(b, [
      work("m2", {
        ...applied(true),
        manifestStatuses: [{ identifier, status: { readyReplicas: 1 }, health: "Healthy" }],
      }),
      work("m1", applied(false, "boom")),
      work("m3", applied(true), true),
    ]);
    expect(items).toEqual([
      { clusterName: "m1", applied: false, appliedMessage: "boom", health: "Unknown" },
      { clusterName: "m2", applied: true, status: { readyReplicas: 1 }, health: "Healthy" },
    ]);
    expect(fullyApplied(b, items)).toMatchObject({ status: "False", reason: "FullyAppliedFailed" });
  });
  it("FullyApplied when every expected cluster applied", () => {
    const b = binding({ clusters: [{ name: "m1" }] });
    const items = aggregatedItems(b, [work("m1", applied(true))]);
    expect(items).toEqual([{ clusterName: "m1", applied: true, health: "Unknown" }]);
    expect(fullyApplied(b, items)).toEqual({
      type: "FullyApplied",
      status: "True",
      reason: "FullyAppliedSuccess",
      message: "All works have been successfully applied",
    });
    expect(fullyApplied(binding({}), [])).toMatchObject({ status: "False" });
  });
});

describe("desiredOver (what the execution controller sends over a member object)", () => {
  it("keeps the member's resourceVersion, finalizers, owners and foreign labels; drops labels Karmada no longer wants", async () => {
    const manifest = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: "default", labels: { a: "1", "karmada.io/managed": "true" } },
      data: { k: "v2" },
    };
    const observed: StoredObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "c",
        namespace: "default",
        uid: "uid-c",
        resourceVersion: "42",
        finalizers: ["x/y"],
        labels: { a: "0", old: "gone", theirs: "kept", "karmada.io/managed": "true" },
        annotations: {
          "resourcetemplate.karmada.io/managed-labels": "a,karmada.io/managed,old",
          note: "kept",
        },
      },
      data: { k: "v1" },
    };
    const d = await desiredOver(manifest, observed, new Interpreter(nativeInterpreter));
    expect(d.metadata).toEqual({
      name: "c",
      namespace: "default",
      resourceVersion: "42",
      finalizers: ["x/y"],
      labels: { a: "1", theirs: "kept", "karmada.io/managed": "true" },
      annotations: { "resourcetemplate.karmada.io/managed-labels": "a,karmada.io/managed,old", note: "kept" },
    });
    expect(d.data).toEqual({ k: "v2" });
  });
});

describe("namespaces auto-propagated", () => {
  const ns = (name: string, labels?: Record<string, string>): StoredObject => ({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, uid: `uid-${name}`, ...(labels ? { labels } : {}) },
  });
  const cases: Array<[StoredObject, boolean]> = [
    [ns("demo"), true],
    [ns("default"), false],
    [ns("kube-public"), false],
    [ns("karmada-system"), false],
    [ns("karmada-cluster"), false],
    [ns("karmada-es-member1"), false],
    [ns("quiet", { "namespace.karmada.io/skip-auto-propagation": "TRUE" }), false],
    [ns("loud", { "namespace.karmada.io/skip-auto-propagation": "no" }), true],
  ];
  for (const [n, want] of cases)
    it(`${n.metadata.name}: ${want}`, () => expect(shouldPropagateNamespace(n)).toBe(want));
});

describe("which bindings the scheduler takes", () => {
  const b = (labels: Record<string, string>, spec: Record<string, unknown> = {}): StoredObject => ({
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: { name: "x", namespace: "d", uid: "uid-x", labels },
    spec: { resource, ...spec },
  });
  it("claimed by a policy or managed by a producer, our scheduler, not suspended", () => {
    expect(schedulable(b({ "propagationpolicy.karmada.io/permanent-id": "1" }))).toBe(true);
    expect(schedulable(b({ "clusterpropagationpolicy.karmada.io/permanent-id": "1" }))).toBe(true);
    expect(schedulable(b({ "binding.karmada.io/managed-by": "frq" }))).toBe(true);
    expect(schedulable(b({}))).toBe(false);
    expect(
      schedulable(b({ "propagationpolicy.karmada.io/permanent-id": "1" }, { schedulerName: "other" })),
    ).toBe(false);
    expect(
      schedulable(
        b({ "propagationpolicy.karmada.io/permanent-id": "1" }, { suspension: { scheduling: true } }),
      ),
    ).toBe(false);
  });
});

describe("changedByKarmada (upstream's ResourceChangeByKarmada)", () => {
  const base = (
    meta: Record<string, unknown> = {},
    spec: Record<string, unknown> = { replicas: 1 },
  ): StoredObject => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", namespace: "default", uid: "uid-d", generation: 1, resourceVersion: "5", ...meta },
    spec,
  });
  const cases: Array<[string, StoredObject, boolean]> = [
    [
      "a claim label and annotations",
      base({
        labels: { "propagationpolicy.karmada.io/permanent-id": "x" },
        annotations: { "propagationpolicy.karmada.io/name": "p" },
      }),
      true,
    ],
    [
      "status, resourceVersion and generation",
      { ...base({ resourceVersion: "9", generation: 2 }), status: { replicas: 1 } },
      true,
    ],
    ["a user label", base({ labels: { tier: "web" } }), false],
    [
      "the user's skip-auto-propagation label, though it has Karmada's suffix",
      base({ labels: { "namespace.karmada.io/skip-auto-propagation": "true" } }),
      false,
    ],
    ["a spec change", base({}, { replicas: 2 }), false],
  ];
  it.each(cases)("%s", (_name, after, byKarmada) => {
    expect(changedByKarmada(base(), after)).toBe(byKarmada);
  });
});
