/**
 * The pure parts of the dependencies distributor, as tables: the depended-by label and the
 * dependencies annotation in upstream's form, the attached binding one independent binding
 * asks for, how it merges into (and is released from) an existing attached binding, how the
 * strategy fields resolve across several dependents, which attached bindings are orphans,
 * and which dependency objects concern a binding. Upstream's own test vectors where it has them.
 */
import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import type { DependentObjectReference } from "../../interpreter/types.ts";
import type { Binding, NewBinding } from "../../karmada/bindings.ts";
import type { BindingSpec } from "../../karmada/types.ts";
import { expectedClusters } from "../binding.ts";
import { schedulable } from "../scheduler.ts";
import {
  type BindingSnapshot,
  buildAttachedBinding,
  deleteBindingFromSnapshot,
  dependedByLabelKey,
  dependenciesAnnotation,
  formatDependencies,
  generatedByDependencies,
  isOrphanAttached,
  matchesDependencies,
  mergeAttachedBinding,
  mergeBindingSnapshot,
  needsLabels,
  policyConflictMessage,
  recordedDependencies,
  releaseAttachedBinding,
  resolveConflictResolution,
  resolvePreserveOnDeletion,
} from "./index.ts";

const ID = "93162d3c-ee8e-4995-9034-05f4d5d2c2b9";
const PP_ID = "propagationpolicy.karmada.io/permanent-id";

function rb(name: string, spec: Partial<BindingSpec>, meta: Partial<StoredObject["metadata"]> = {}): Binding {
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: { name, namespace: "test", uid: `uid-${name}`, ...meta },
    spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "test", name }, ...spec },
  };
}

/** A binding to be written, as the server stores it once created: with a uid. */
function stored(b: NewBinding): Binding {
  return { ...b, metadata: { ...b.metadata, uid: `uid-${b.metadata.name}` } };
}

const configMap: StoredObject = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cfg", namespace: "test", uid: "cm-uid", resourceVersion: "7", labels: { app: "web" } },
};

const independent = rb(
  "test-binding",
  { propagateDeps: true, clusters: [{ name: "member1", replicas: 2 }] },
  { labels: { "resourcebinding.karmada.io/permanent-id": ID } },
);

describe("names", () => {
  it("the depended-by label key is upstream's (test/test-binding → 5dbb6dc9c8)", () => {
    expect(dependedByLabelKey("test", "test-binding")).toBe(
      "resourcebinding.karmada.io/depended-by-5dbb6dc9c8",
    );
  });
});

describe("dependenciesAnnotation", () => {
  const cases: Array<[string, DependentObjectReference[], string]> = [
    [
      "named",
      [
        { apiVersion: "v1", kind: "ConfigMap", namespace: "test", name: "test-cm" },
        {
          apiVersion: "v1",
          kind: "Secret",
          namespace: "test",
          labelSelector: { matchLabels: { env: "prod" } },
        },
      ],
      '[{"apiVersion":"v1","kind":"ConfigMap","namespace":"test","name":"test-cm"},{"apiVersion":"v1","kind":"Secret","namespace":"test","labelSelector":{"matchLabels":{"env":"prod"}}}]',
    ],
    [
      "match expressions",
      [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          namespace: "test",
          labelSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["test"] }] },
        },
      ],
      '[{"apiVersion":"v1","kind":"ConfigMap","namespace":"test","labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["test"]}]}}]',
    ],
    [
      "cluster-scoped: no namespace",
      [{ apiVersion: "v1", kind: "Namespace", namespace: "", name: "x" }],
      '[{"apiVersion":"v1","kind":"Namespace","name":"x"}]',
    ],
    ["none: a nil slice marshals to null", [], "null"],
  ];
  for (const [name, deps, want] of cases) {
    it(name, () => {
      expect(dependenciesAnnotation(deps)).toBe(want);
      const b = rb("x", {}, { annotations: { "resourcebinding.karmada.io/dependencies": want } });
      expect(dependenciesAnnotation(recordedDependencies(b))).toBe(want);
    });
  }
  it("an unreadable annotation throws; none reads as no dependencies", () => {
    expect(() =>
      recordedDependencies(rb("x", {}, { annotations: { "resourcebinding.karmada.io/dependencies": "{" } })),
    ).toThrow();
    expect(recordedDependencies(rb("x", {}))).toEqual([]);
  });
  it("the GetDependenciesSucceed message prints the list as Go's %+v", () => {
    expect(
      formatDependencies([{ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "cfg" }]),
    ).toBe("[{APIVersion:v1 Kind:ConfigMap Namespace:default Name:cfg LabelSelector:nil}]");
  });
});

describe("buildAttachedBinding", () => {
  it("upstream's example: name, owner, depended-by label, finalizer, resource, requiredBy", () => {
    const deployment: StoredObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "demo-app",
        namespace: "fake-ns",
        resourceVersion: "22222",
        uid: "db56a4a6-0dff-465a-b046-2c1dea42a42b",
      },
    };
    expect(buildAttachedBinding(independent, deployment)).toEqual({
      apiVersion: "work.karmada.io/v1alpha2",
      kind: "ResourceBinding",
      metadata: {
        name: "demo-app-deployment",
        namespace: "test",
        ownerReferences: [
          {
            apiVersion: "apps/v1",
            kind: "Deployment",
            name: "demo-app",
            uid: "db56a4a6-0dff-465a-b046-2c1dea42a42b",
            blockOwnerDeletion: true,
            controller: true,
          },
        ],
        labels: { "resourcebinding.karmada.io/depended-by-5dbb6dc9c8": ID },
        finalizers: ["karmada.io/binding-controller"],
      },
      spec: {
        resource: {
          apiVersion: "apps/v1",
          kind: "Deployment",
          namespace: "fake-ns",
          name: "demo-app",
          uid: "db56a4a6-0dff-465a-b046-2c1dea42a42b",
          resourceVersion: "22222",
        },
        requiredBy: [
          { namespace: "test", name: "test-binding", clusters: [{ name: "member1", replicas: 2 }] },
        ],
      },
    });
  });
  it("an unscheduled binding's snapshot has no clusters; strategy fields are copied", () => {
    const b = rb("web", {
      propagateDeps: true,
      conflictResolution: "Overwrite",
      preserveResourcesOnDeletion: true,
    });
    const a = buildAttachedBinding(b, configMap);
    expect(a.metadata.name).toBe("cfg-configmap");
    expect(a.spec.requiredBy).toEqual([{ namespace: "test", name: "web" }]);
    expect(a.spec).toMatchObject({ conflictResolution: "Overwrite", preserveResourcesOnDeletion: true });
  });
  it("attached bindings are not scheduled (no claim) and their Works follow requiredBy", () => {
    const a = buildAttachedBinding(independent, configMap);
    expect(schedulable(stored(a))).toBe(false);
    expect([...expectedClusters(a.spec)]).toEqual(["member1"]);
    expect(generatedByDependencies(a)).toBe(true);
  });
});

describe("binding snapshots", () => {
  const s = (ns: string, name: string, ...clusters: string[]): BindingSnapshot => ({
    namespace: ns,
    name,
    ...(clusters.length ? { clusters: clusters.map((c) => ({ name: c })) } : {}),
  });
  const merges: Array<[string, BindingSnapshot[], BindingSnapshot[], BindingSnapshot[]]> = [
    ["into nothing", [], [s("a", "x", "m1")], [s("a", "x", "m1")]],
    [
      "upstream's case: a known one takes the new clusters, an unknown one is appended",
      [s("d1", "b1", "member1"), s("d2", "b2", "member2"), s("d3", "b3", "member3")],
      [s("t1", "tb1", "foo"), s("d2", "b2", "member2", "bar")],
      [
        s("d1", "b1", "member1"),
        s("d2", "b2", "member2", "bar"),
        s("d3", "b3", "member3"),
        s("t1", "tb1", "foo"),
      ],
    ],
    ["unscheduled now: clusters dropped", [s("a", "x", "m1")], [s("a", "x")], [s("a", "x")]],
  ];
  for (const [name, existing, fresh, want] of merges) {
    it(`merge: ${name}`, () => {
      const before = structuredClone(existing);
      expect(mergeBindingSnapshot(existing, fresh)).toEqual(want);
      expect(existing).toEqual(before);
    });
  }
  it("delete removes every entry of that binding only", () => {
    expect(
      deleteBindingFromSnapshot("a", "x", [s("a", "x", "m1"), s("b", "x"), s("a", "y"), s("a", "x")]),
    ).toEqual([s("b", "x"), s("a", "y")]);
  });
});

describe("strategy across dependents", () => {
  const cr = (v?: "Overwrite" | "Abort") => rb("x", v ? { conflictResolution: v } : {});
  const keep = (v?: boolean) => rb("x", v === undefined ? {} : { preserveResourcesOnDeletion: v });
  it.each([
    [[cr()], false, "Abort"],
    [[cr("Overwrite")], false, "Overwrite"],
    [[cr("Abort"), cr("Overwrite")], true, "Overwrite"],
    [[cr(), cr("Abort")], false, "Abort"],
    [[], false, "Abort"],
  ])("conflictResolution %#", (rbs, conflicted, effective) => {
    expect(resolveConflictResolution(rbs)).toEqual({ conflicted, effective });
  });
  it.each([
    [[keep()], false, false],
    [[keep(true)], false, true],
    [[keep(true), keep(false)], true, true],
    [[keep(), keep(false)], false, false],
  ])("preserveResourcesOnDeletion %#", (rbs, conflicted, effective) => {
    expect(resolvePreserveOnDeletion(rbs)).toEqual({ conflicted, effective });
  });
  it("upstream's conflict messages", () => {
    expect(policyConflictMessage(true, true)).toBe(
      "Dependency policy conflict detected: ConflictResolution conflicted (Overwrite vs Abort); PreserveResourcesOnDeletion conflicted (true vs false).",
    );
    expect(policyConflictMessage(true, false)).toBe(
      "Dependency policy conflict detected: ConflictResolution conflicted (Overwrite vs Abort).",
    );
    expect(policyConflictMessage(false, true)).toBe(
      "Dependency policy conflict detected: PreserveResourcesOnDeletion conflicted (true vs false).",
    );
    expect(policyConflictMessage(false, false)).toBeUndefined();
  });
});

describe("mergeAttachedBinding", () => {
  const other = rb(
    "other",
    {
      propagateDeps: true,
      conflictResolution: "Overwrite",
      preserveResourcesOnDeletion: true,
      clusters: [{ name: "member2" }],
    },
    { labels: { "resourcebinding.karmada.io/permanent-id": "other-id" } },
  );
  const lookup = (s: BindingSnapshot): Binding => {
    if (s.name === independent.metadata.name) return independent;
    if (s.name === other.metadata.name) return other;
    throw new Error(`${s.name} not found`);
  };
  const desired = buildAttachedBinding(independent, configMap);

  it("a new one takes its strategy from the one binding requiring it (unset: Abort, false)", () => {
    const { binding, conflict } = mergeAttachedBinding(undefined, desired, lookup);
    expect(conflict).toBeUndefined();
    expect(binding.spec).toEqual({
      ...desired.spec,
      conflictResolution: "Abort",
      preserveResourcesOnDeletion: false,
    });
    expect(binding.metadata).toEqual(desired.metadata);
  });

  it("an existing one required by another binding: snapshots and labels merge, Overwrite and true win, the conflict is reported", () => {
    const existing = stored(
      mergeAttachedBinding(
        undefined,
        buildAttachedBinding(other, {
          ...configMap,
          metadata: { ...configMap.metadata, resourceVersion: "6" },
        }),
        lookup,
      ).binding,
    );
    existing.metadata.resourceVersion = "100";
    const { binding, conflict } = mergeAttachedBinding(existing, desired, lookup);
    expect(conflict).toBe(
      "Dependency policy conflict detected: ConflictResolution conflicted (Overwrite vs Abort); PreserveResourcesOnDeletion conflicted (true vs false).",
    );
    expect(binding.metadata.labels).toEqual({
      [dependedByLabelKey("test", "other")]: "other-id",
      [dependedByLabelKey("test", "test-binding")]: ID,
    });
    expect(binding.metadata.resourceVersion).toBe("100");
    expect(binding.spec.requiredBy).toEqual([
      { namespace: "test", name: "other", clusters: [{ name: "member2" }] },
      { namespace: "test", name: "test-binding", clusters: [{ name: "member1", replicas: 2 }] },
    ]);
    expect(binding.spec.resource.resourceVersion).toBe("7");
    expect(binding.spec).toMatchObject({
      conflictResolution: "Overwrite",
      preserveResourcesOnDeletion: true,
    });
  });

  it("the depending binding's new clusters replace its snapshot's", () => {
    const existing = stored(mergeAttachedBinding(undefined, desired, lookup).binding);
    const moved = {
      ...independent,
      spec: { ...independent.spec, clusters: [{ name: "member3", replicas: 1 }] },
    };
    const { binding } = mergeAttachedBinding(existing, buildAttachedBinding(moved, configMap), (s) =>
      s.name === "test-binding" ? moved : lookup(s),
    );
    expect(binding.spec.requiredBy).toEqual([
      { namespace: "test", name: "test-binding", clusters: [{ name: "member3", replicas: 1 }] },
    ]);
  });

  it("one a policy claims keeps its placement and strategy; only requiredBy, labels and resource change", () => {
    const claimed = rb(
      "cfg-configmap",
      {
        resource: {
          apiVersion: "v1",
          kind: "ConfigMap",
          namespace: "test",
          name: "cfg",
          resourceVersion: "6",
        },
        placement: { clusterAffinity: { clusterNames: ["member9"] } },
        clusters: [{ name: "member9" }],
        conflictResolution: "Overwrite",
      },
      { labels: { [PP_ID]: "pp-id" } },
    );
    expect(generatedByDependencies(claimed)).toBe(false);
    const { binding, conflict } = mergeAttachedBinding(claimed, desired, lookup);
    expect(conflict).toBeUndefined();
    expect(binding.spec).toMatchObject({
      placement: { clusterAffinity: { clusterNames: ["member9"] } },
      clusters: [{ name: "member9" }],
      conflictResolution: "Overwrite",
      requiredBy: desired.spec.requiredBy,
    });
    expect(binding.spec.preserveResourcesOnDeletion).toBeUndefined();
    expect(binding.metadata.labels).toEqual({ [PP_ID]: "pp-id", ...desired.metadata.labels });
    expect([...expectedClusters(binding.spec)].sort()).toEqual(["member1", "member9"]);
  });

  it("a binding requiring it that cannot be read fails the merge", () => {
    const existing = rb("cfg-configmap", { requiredBy: [{ namespace: "test", name: "gone" }] });
    expect(() => mergeAttachedBinding(existing, desired, lookup)).toThrow("gone not found");
  });
});

describe("releaseAttachedBinding", () => {
  const lookup = (s: BindingSnapshot): Binding => rb(s.name, { conflictResolution: "Overwrite" });
  const both = rb(
    "cfg-configmap",
    {
      requiredBy: [
        { namespace: "test", name: "a", clusters: [{ name: "m1" }] },
        { namespace: "test", name: "b", clusters: [{ name: "m2" }] },
      ],
      conflictResolution: "Abort",
      preserveResourcesOnDeletion: true,
    },
    { labels: { [dependedByLabelKey("test", "a")]: "ida", [dependedByLabelKey("test", "b")]: "idb" } },
  );
  it("another binding still requires it: label and snapshot go, strategy follows the rest", () => {
    const { binding, remove } = releaseAttachedBinding(both, "test", "a", lookup);
    expect(remove).toBe(false);
    expect(binding.metadata.labels).toEqual({ [dependedByLabelKey("test", "b")]: "idb" });
    expect(binding.spec.requiredBy).toEqual([{ namespace: "test", name: "b", clusters: [{ name: "m2" }] }]);
    expect(binding.spec).toMatchObject({
      conflictResolution: "Overwrite",
      preserveResourcesOnDeletion: false,
    });
    expect(both.spec.requiredBy).toHaveLength(2);
  });
  it("nothing requires it and no policy claims it: removed", () => {
    const once = releaseAttachedBinding(both, "test", "a", lookup).binding;
    const { binding, remove } = releaseAttachedBinding(once, "test", "b", lookup);
    expect(remove).toBe(true);
    expect(binding.spec.requiredBy).toBeUndefined();
    expect(binding.spec.conflictResolution).toBeUndefined();
    expect(binding.spec.preserveResourcesOnDeletion).toBeUndefined();
    expect(binding.metadata.labels).toEqual({});
  });
  it("a claimed one stays, with its own strategy", () => {
    const claimed = {
      ...both,
      metadata: { ...both.metadata, labels: { ...both.metadata.labels, [PP_ID]: "pp" } },
    };
    const once = releaseAttachedBinding(claimed, "test", "a", lookup).binding;
    const { binding, remove } = releaseAttachedBinding(once, "test", "b", lookup);
    expect(remove).toBe(false);
    expect(binding.spec).toMatchObject({ conflictResolution: "Abort", preserveResourcesOnDeletion: true });
    expect(binding.metadata.labels).toEqual({ [PP_ID]: "pp" });
  });
  it("a binding it never knew changes nothing", () => {
    const { binding, remove } = releaseAttachedBinding(both, "test", "zzz", lookup);
    expect(remove).toBe(false);
    expect(binding.spec.requiredBy).toEqual(both.spec.requiredBy);
  });
});

describe("which objects are dependencies", () => {
  const deps: DependentObjectReference[] = [
    { apiVersion: "v1", kind: "ConfigMap", namespace: "test", name: "test-cm" },
    { apiVersion: "v1", kind: "Secret", namespace: "test", labelSelector: { matchLabels: { env: "prod" } } },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "test",
      labelSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["test"] }] },
    },
  ];
  const cases: Array<[string, Parameters<typeof matchesDependencies>[0], boolean]> = [
    ["by name", { apiVersion: "v1", kind: "ConfigMap", namespace: "test", name: "test-cm" }, true],
    [
      "other name, no matching labels",
      { apiVersion: "v1", kind: "ConfigMap", namespace: "test", name: "x" },
      false,
    ],
    [
      "by matchExpressions",
      { apiVersion: "v1", kind: "ConfigMap", namespace: "test", name: "x", labels: { app: "test" } },
      true,
    ],
    [
      "by matchLabels",
      { apiVersion: "v1", kind: "Secret", namespace: "test", name: "s", labels: { env: "prod" } },
      true,
    ],
    [
      "selector, object without labels",
      { apiVersion: "v1", kind: "Secret", namespace: "test", name: "s" },
      false,
    ],
    ["other namespace", { apiVersion: "v1", kind: "ConfigMap", namespace: "other", name: "test-cm" }, false],
    ["other kind", { apiVersion: "v1", kind: "Service", namespace: "test", name: "test-cm" }, false],
    ["other apiVersion", { apiVersion: "v2", kind: "ConfigMap", namespace: "test", name: "test-cm" }, false],
  ];
  for (const [name, obj, want] of cases)
    it(`match: ${name}`, () => expect(matchesDependencies(obj, deps)).toBe(want));
  it("an invalid selector operator throws, as upstream reports it", () => {
    expect(() =>
      matchesDependencies({ apiVersion: "v1", kind: "ConfigMap", namespace: "test", name: "x" }, [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          namespace: "test",
          labelSelector: {
            matchExpressions: [{ key: "app", operator: "InvalidOperator", values: ["test"] }],
          },
        },
      ]),
    ).toThrow();
  });

  const res = (kind: string, name: string) => ({ apiVersion: "v1", kind, namespace: "test", name });
  const orphans: Array<[string, ReturnType<typeof res>, Record<string, string> | undefined, boolean]> = [
    ["still named", res("ConfigMap", "test-cm"), undefined, false],
    ["no longer named", res("ConfigMap", "old"), {}, true],
    ["still selected", res("Secret", "s"), { env: "prod" }, false],
    ["labels changed", res("Secret", "s"), { env: "dev" }, true],
    ["object gone", res("Secret", "s"), undefined, true],
    ["kind no longer a dependency", res("PersistentVolumeClaim", "data"), undefined, true],
  ];
  for (const [name, r, labels, want] of orphans)
    it(`orphan: ${name}`, () => expect(isOrphanAttached(r, deps, labels)).toBe(want));
  it("labels are needed only where a selector could pick the object", () => {
    expect(needsLabels(res("Secret", "s"), deps)).toBe(true);
    expect(needsLabels(res("ServiceAccount", "sa"), deps)).toBe(false);
    expect(needsLabels(res("ConfigMap", "x"), deps.slice(0, 2))).toBe(false);
  });
});
