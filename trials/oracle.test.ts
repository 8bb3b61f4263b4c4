import { describe, expect, it } from "vitest";
import type { StoredObject } from "../src/api/meta.ts";
import { judge, type NameLedger, type Outcome } from "./durability.ts";
import {
  keyOf,
  NAMESPACE,
  OVERRIDE_LABEL,
  overridePolicy,
  REV_LABEL,
  TIER_LABEL,
  type Written,
} from "./fixtures.ts";
import {
  checkAcknowledged,
  checkBindingsAndWorks,
  checkMembers,
  checkTerminating,
  contentDiff,
  expectedCopies,
  type Model,
  oracle,
  resolveUncertain,
} from "./oracle.ts";
import { mulberry32 } from "./random.ts";

let uid = 0;
function stored(
  kind: string,
  name: string,
  extra: Record<string, unknown> = {},
  namespace = NAMESPACE,
): StoredObject {
  const { labels, annotations, deletionTimestamp, finalizers, ...rest } = extra as {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    finalizers?: string[];
  };
  return {
    apiVersion: kind === "Deployment" ? "apps/v1" : "v1",
    kind,
    metadata: {
      name,
      namespace,
      uid: `u${uid++}`,
      resourceVersion: "1",
      creationTimestamp: "2026-01-01T00:00:00Z",
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
      ...(deletionTimestamp ? { deletionTimestamp } : {}),
      ...(finalizers ? { finalizers } : {}),
    },
    ...rest,
  } as StoredObject;
}

const dup: Written = {
  kind: "Deployment",
  name: "dup-1",
  labels: { [TIER_LABEL]: "dup", [REV_LABEL]: "2" },
  replicas: 2,
  mounts: "dup-1-cfg",
};
const dep: Written = {
  kind: "ConfigMap",
  name: "dup-1-cfg",
  labels: { [TIER_LABEL]: "dep", [REV_LABEL]: "0" },
  data: { k: "v0" },
};
const div: Written = {
  kind: "Deployment",
  name: "div-2",
  labels: { [TIER_LABEL]: "div", [REV_LABEL]: "0" },
  replicas: 5,
};
const cm: Written = {
  kind: "ConfigMap",
  name: "cm-3",
  labels: { [TIER_LABEL]: "cm", [REV_LABEL]: "1" },
  data: { k: "v7" },
};
const svc: Written = { kind: "Service", name: "svc-4", labels: { [TIER_LABEL]: "svc", [REV_LABEL]: "0" } };
const opLabels: Written = { kind: "OverridePolicy", name: "op-labels", labels: {}, data: { value: "o1" } };
const opData: Written = { kind: "OverridePolicy", name: "op-data", labels: {}, data: { value: "o2" } };

const asStored = (w: Written, extraLabels: Record<string, string> = {}): StoredObject =>
  w.kind === "OverridePolicy"
    ? stored("OverridePolicy", w.name, { spec: overridePolicy(w.name, w.data!.value!).spec })
    : stored(w.kind, w.name, {
        labels: { ...w.labels, ...extraLabels },
        ...(w.replicas !== undefined ? { spec: { replicas: w.replicas } } : {}),
        ...(w.data ? { data: w.data } : {}),
      });

const binding = (
  w: Written,
  clusters: Array<{ name: string; replicas?: number }>,
  name = `${w.name}-${w.kind.toLowerCase()}`,
) =>
  stored("ResourceBinding", name, {
    spec: {
      resource: { apiVersion: "v1", kind: w.kind, namespace: NAMESPACE, name: w.name },
      replicas: w.replicas,
      clusters,
    },
  });

const model = (...ws: Array<Written | [string, null]>): Model =>
  new Map(ws.map((w) => (Array.isArray(w) ? [w[0], null] : [keyOf(w), w])));

describe("contentDiff", () => {
  it.each([
    ["the same content", dup, asStored(dup), []],
    ["extra labels stored by controllers", dup, asStored(dup, { "karmada.io/managed": "true" }), []],
    [
      "an older label",
      dup,
      asStored({ ...dup, labels: { ...dup.labels, [REV_LABEL]: "1" } }),
      [`label ${REV_LABEL}=1, wrote 2`],
    ],
    ["other replicas", dup, asStored({ ...dup, replicas: 3 }), ["replicas 3, wrote 2"]],
    ["other data", cm, asStored({ ...cm, data: { k: "v6" } }), ['data {"k":"v6"}, wrote {"k":"v7"}']],
    [
      "a data key more",
      cm,
      asStored({ ...cm, data: { k: "v7", x: "1" } }),
      ['data {"k":"v7","x":"1"}, wrote {"k":"v7"}'],
    ],
    ["an override value", opLabels, asStored(opLabels), []],
    [
      "another override value",
      opLabels,
      asStored({ ...opLabels, data: { value: "o0" } }),
      ['override value "o0", wrote "o1"'],
    ],
  ] as const)("%s", (_, w, s, want) => {
    expect(contentDiff(w, s)).toEqual(want);
  });
});

describe("checkAcknowledged", () => {
  it.each([
    ["everything there", model(dup, cm), [asStored(dup), asStored(cm)], []],
    [
      "a write lost",
      model(dup, cm),
      [asStored(dup)],
      ["acknowledged write of ConfigMap/cm-3 lost: not found"],
    ],
    [
      "an update lost",
      model(dup),
      [asStored({ ...dup, replicas: 1 })],
      ["acknowledged write of Deployment/dup-1 lost: replicas 1, wrote 2"],
    ],
    [
      "a delete kept",
      model(["Service/svc-4", null]),
      [asStored(svc)],
      ["acknowledged delete of Service/svc-4 lost: it is still there"],
    ],
    ["a delete done", model(["Service/svc-4", null]), [], []],
  ] as const)("%s", (_, m, templates, want) => {
    expect(checkAcknowledged(m, templates)).toEqual(want);
  });
});

describe("expectedCopies", () => {
  it("Duplicated to every member, the dependency with it, the label override on member1", () => {
    const { copies, violations } = expectedCopies(model(dup, dep, opLabels), []);
    expect(violations).toEqual([]);
    expect([...copies.get(keyOf(dup))!.keys()]).toEqual(["member1", "member2", "pull1"]);
    expect(copies.get(keyOf(dup))!.get("member1")).toEqual({
      labels: { ...dup.labels, [OVERRIDE_LABEL]: "o1" },
      replicas: 2,
    });
    expect(copies.get(keyOf(dup))!.get("member2")!.labels[OVERRIDE_LABEL]).toBeUndefined();
    expect([...copies.get(keyOf(dep))!.keys()]).toEqual(["member1", "member2", "pull1"]);
  });
  it("a dependency whose Deployment is gone goes nowhere", () => {
    const { copies } = expectedCopies(model(dep, ["Deployment/dup-1", null]), []);
    expect(copies.get(keyOf(dep))!.size).toBe(0);
  });
  it("the data override on member2 for cm ConfigMaps only", () => {
    const { copies } = expectedCopies(model(cm, opData), []);
    expect([...copies.get(keyOf(cm))!.keys()]).toEqual(["member1", "member2"]);
    expect(copies.get(keyOf(cm))!.get("member2")!.data).toEqual({ k: "v7", override: "o2" });
    expect(copies.get(keyOf(cm))!.get("member1")!.data).toEqual({ k: "v7" });
  });
  it.each([
    [
      "a split that sums up",
      [
        { name: "member1", replicas: 2 },
        { name: "pull1", replicas: 3 },
      ],
      [],
    ],
    [
      "a split of an older replica count",
      [
        { name: "member1", replicas: 2 },
        { name: "pull1", replicas: 2 },
      ],
      ["Deployment/div-2: binding places 4 replicas, the template has 5"],
    ],
    [
      "a cluster outside the policy",
      [{ name: "member9", replicas: 5 }],
      ["Deployment/div-2: binding places it on member9, outside its policy"],
    ],
  ] as const)("Divided: %s", (_, clusters, want) => {
    const { copies, violations } = expectedCopies(model(div), [binding(div, [...clusters])]);
    expect(violations).toEqual(want);
    expect([...copies.get(keyOf(div))!].map(([c, e]) => [c, e.replicas])).toEqual(
      clusters.map((c) => [c.name, c.replicas]),
    );
  });
  it("Divided without a binding", () => {
    expect(expectedCopies(model(div), []).violations).toEqual(["Deployment/div-2: no ResourceBinding"]);
  });
});

describe("checkMembers", () => {
  const managed = { "karmada.io/managed": "true" };
  const { copies } = expectedCopies(model(svc), []);
  it.each([
    [
      "exactly the expected copies",
      { member1: [asStored(svc, managed)], pull1: [asStored(svc, managed)] },
      [],
    ],
    ["a copy missing", { member1: [asStored(svc, managed)] }, ["pull1: Service/svc-4 missing"]],
    [
      "a copy where it does not belong",
      {
        member1: [asStored(svc, managed)],
        member2: [asStored(svc, managed)],
        pull1: [asStored(svc, managed)],
      },
      ["member2: Service/svc-4 orphaned (no template places it here)"],
    ],
    [
      "a stale copy",
      {
        member1: [asStored({ ...svc, labels: { ...svc.labels, [REV_LABEL]: "9" } }, managed)],
        pull1: [asStored(svc, managed)],
      },
      [`member1: Service/svc-4: label ${REV_LABEL}=9, wrote 0`],
    ],
    [
      "an object of the member's own is not ours",
      {
        member1: [asStored(svc, managed)],
        member2: [stored("ConfigMap", "kube-root-ca.crt")],
        pull1: [asStored(svc, managed)],
      },
      [],
    ],
  ] as const)("%s", (_, members, want) => {
    expect(checkMembers(copies, members as unknown as Record<string, StoredObject[]>)).toEqual(want);
  });
});

describe("checkBindingsAndWorks", () => {
  const work = (rb: string, namespace = NAMESPACE) =>
    stored(
      "Work",
      `${rb}-w`,
      {
        annotations: {
          "resourcebinding.karmada.io/name": rb,
          "resourcebinding.karmada.io/namespace": namespace,
        },
      },
      "karmada-es-member1",
    );
  it.each([
    ["one binding, its Work", model(svc), [binding(svc, [])], [work("svc-4-service")], []],
    [
      "two bindings for one template",
      model(svc),
      [binding(svc, []), binding(svc, [], "other")],
      [],
      ["duplicate bindings for Service/svc-4: svc-4-service and other"],
    ],
    [
      "a binding whose template is gone",
      model(["Service/svc-4", null]),
      [binding(svc, [])],
      [],
      ["binding svc-4-service orphaned: Service/svc-4 is gone"],
    ],
    [
      "a Work whose binding is gone",
      model(svc),
      [binding(svc, [])],
      [work("gone-service")],
      ["Work karmada-es-member1/gone-service-w orphaned: binding gone-service is gone"],
    ],
    ["a Work of another namespace", model(svc), [binding(svc, [])], [work("x", "default")], []],
  ] as const)("%s", (_, m, bindings, works, want) => {
    expect(checkBindingsAndWorks(m, bindings, works)).toEqual(want);
  });
});

describe("checkTerminating", () => {
  it("reports what is still terminating, wherever it is", () => {
    const stuck = stored(
      "Work",
      "w",
      { deletionTimestamp: "2026-01-01T00:00:01Z", finalizers: ["karmada.io/execution-controller"] },
      "karmada-es-pull1",
    );
    expect(
      checkTerminating({
        templates: [asStored(svc)],
        bindings: [],
        works: [stuck],
        members: { member1: [asStored(cm)] },
      }),
    ).toEqual([
      'control plane: Work karmada-es-pull1/w terminating since 2026-01-01T00:00:01Z with finalizers ["karmada.io/execution-controller"]',
    ]);
  });
});

describe("oracle", () => {
  it("passes on a converged fleet and names what is wrong otherwise", () => {
    const m = model(svc);
    const managed = { "karmada.io/managed": "true" };
    const observed = {
      templates: [asStored(svc)],
      bindings: [binding(svc, [])],
      works: [],
      members: { member1: [asStored(svc, managed)], pull1: [asStored(svc, managed)] },
    };
    expect(oracle(m, observed)).toEqual([]);
    expect(oracle(m, { ...observed, members: { member1: [asStored(svc, managed)] } })).toEqual([
      "pull1: Service/svc-4 missing",
    ]);
  });
});

describe("resolveUncertain", () => {
  const v1 = { ...cm, data: { k: "v1" } };
  const v2 = { ...cm, data: { k: "v2" } };
  it.each([
    ["the acknowledged state", [v1, v2], asStored(v1), v1],
    ["the unanswered write landed", [v1, v2], asStored(v2), v2],
    ["an unanswered delete landed", [v1, null], undefined, null],
    ["an unanswered create did not land", [null, v1], undefined, null],
  ] as const)("%s", (_, candidates, s, want) => {
    expect(resolveUncertain(candidates, s)).toEqual({ state: want });
  });
  it("neither: a lost write", () => {
    expect(resolveUncertain([v1, v2], asStored({ ...cm, data: { k: "v0" } }))).toBeUndefined();
    expect(resolveUncertain([v1], undefined)).toBeUndefined();
  });
});

describe("durability judge", () => {
  it.each<[string, NameLedger, number | undefined, Outcome]>([
    ["the acknowledged write", { acked: 3 }, 3, "ok"],
    ["an older one", { acked: 3 }, 2, "lost"],
    ["nothing", { acked: 1 }, undefined, "lost"],
    ["the in-flight write landed", { acked: 3, inFlight: 4 }, 4, "in-flight applied"],
    ["the in-flight write did not land", { acked: 3, inFlight: 4 }, 3, "in-flight not applied"],
    ["an in-flight create did not land", { inFlight: 1 }, undefined, "in-flight not applied"],
    ["older than acknowledged with one in flight", { acked: 3, inFlight: 4 }, 2, "lost"],
  ])("%s", (_, entry, s, want) => {
    expect(judge(entry, s)).toBe(want);
  });
});

describe("mulberry32", () => {
  it("is reproducible from its seed and stays in range", () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 100 }, () => a.int(3, 7));
    expect(Array.from({ length: 100 }, () => b.int(3, 7))).toEqual(xs);
    expect(xs.every((x) => x >= 3 && x <= 7)).toBe(true);
    expect(new Set(xs).size).toBe(5);
    expect(mulberry32(43).next()).not.toBe(mulberry32(42).next());
  });
});
