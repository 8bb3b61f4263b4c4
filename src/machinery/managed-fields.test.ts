import { describe, expect, it } from "vitest";
import {
  type ApplyRequest,
  type ApplyResult,
  applyFields,
  compareFields,
  emptyFieldSet,
  type FieldPath,
  FieldSetError,
  FieldsV1ParseError,
  fieldSetDifference,
  fieldSetFromPaths,
  fieldSetHas,
  fieldSetIntersection,
  fieldSetOf,
  fieldSetPaths,
  fieldSetRecursiveDifference,
  fieldSetUnion,
  fieldsChanged,
  formatApplyConflicts,
  formatPath,
  isFieldSetEmpty,
  keyElement,
  parseFieldsV1,
  serializeFieldsV1,
  stripUntrackedFields,
  updateFields,
  valueElement,
} from "./managed-fields.ts";
import { deploymentSchema, serviceSchema } from "./strategic-merge-patch.fixtures.ts";

/** Parses dotted test notation: "spec.replicas", "spec.containers[name=a].image", "metadata.finalizers[=x]". */
function p(text: string): FieldPath {
  const out: string[] = [];
  for (const part of text.match(/[^.[\]]+|\[[^\]]*\]/g) ?? []) {
    if (!part.startsWith("[")) {
      out.push(`f:${part}`);
    } else if (part.startsWith("[=")) {
      out.push(valueElement(part.slice(2, -1)));
    } else {
      const fields = Object.fromEntries(
        part
          .slice(1, -1)
          .split(",")
          .map((kv) => kv.split("="))
          .map(([k, v]) => [k, /^\d+$/.test(v!) ? Number(v) : v]),
      );
      out.push(keyElement(fields));
    }
  }
  return out;
}

const set = (...paths: string[]) => fieldSetFromPaths(paths.map(p));
const paths = (s: ReturnType<typeof emptyFieldSet>) => fieldSetPaths(s).map(formatPath);

const nginxConfig = (replicas = 2) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "nginx", labels: { app: "nginx" } },
  spec: {
    replicas,
    selector: { matchLabels: { app: "nginx" } },
    template: {
      metadata: { labels: { app: "nginx" } },
      spec: { containers: [{ name: "nginx", image: "nginx:1.27", ports: [{ containerPort: 80 }] }] },
    },
  },
});

/** What kube-apiserver records for `kubectl apply --server-side` of nginxConfig(). */
const nginxFieldsV1 =
  '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}}';

/** A kube-controller-manager status entry as a real cluster stores it. */
const statusFieldsV1 =
  '{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\\"type\\":\\"Available\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\\"type\\":\\"Progressing\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}}';

describe("fieldsV1 serialization", () => {
  it("records an applied Deployment exactly as kube-apiserver does", () => {
    const fields = stripUntrackedFields(fieldSetOf(nginxConfig(), deploymentSchema, { strict: true }));
    expect(JSON.stringify(serializeFieldsV1(fields))).toBe(nginxFieldsV1);
  });

  it.each([
    ["apply entry", nginxFieldsV1],
    ["status update entry", statusFieldsV1],
    ["sets and keys", '{"f:metadata":{"f:finalizers":{".":{},"v:\\"a\\"":{},"v:\\"b\\"":{}}}}'],
    ["empty set", "{}"],
  ])("round-trips a %s byte for byte", (_, text) => {
    expect(JSON.stringify(serializeFieldsV1(parseFieldsV1(JSON.parse(text))))).toBe(text);
  });

  it("orders elements as structured-merge-diff: fields, keys, values; numbers by value", () => {
    const s = fieldSetFromPaths([
      [valueElement("b")],
      [keyElement({ port: 443 })],
      [valueElement(10)],
      ["f:z"],
      [keyElement({ port: 80 })],
      ["f:a"],
      [valueElement("a")],
    ]);
    expect(Object.keys(serializeFieldsV1(s))).toEqual([
      "f:a",
      "f:z",
      'k:{"port":80}',
      'k:{"port":443}',
      "v:10",
      'v:"a"',
      'v:"b"',
    ]);
  });

  it("puts key elements in canonical form: sorted fields, Go escaping", () => {
    const parsed = parseFieldsV1({ 'k:{"protocol":"TCP","containerPort":80}': {}, 'v:"a<b"': {} });
    expect(Object.keys(serializeFieldsV1(parsed))).toEqual([
      'k:{"containerPort":80,"protocol":"TCP"}',
      'v:"a\\u003cb"',
    ]);
    expect(keyElement({ b: "x&y", a: 1 })).toBe('k:{"a":1,"b":"x\\u0026y"}');
  });

  it("reads a node with only children as not owned itself, with '.' as owned", () => {
    const s = parseFieldsV1({ "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } });
    expect(fieldSetHas(s, p("metadata"))).toBe(false);
    expect(fieldSetHas(s, p("metadata.labels"))).toBe(true);
    expect(fieldSetHas(s, p("metadata.labels.app"))).toBe(true);
  });

  it("drops element types it does not know, as newer writers may add some", () => {
    expect(serializeFieldsV1(parseFieldsV1({ "f:a": {}, "z:future": {} }))).toEqual({ "f:a": {} });
  });

  it.each([
    ["not an object", []],
    ["a one-letter key", { f: {} }],
    ["a key without colon", { fx: {} }],
    ["a non-object value", { "f:a": 1 }],
    ["bad JSON in a key element", { "k:{nope": {} }],
    ["a key element that is not an object", { "k:[1]": {} }],
  ])("rejects %s", (_, json) => {
    expect(() => parseFieldsV1(json)).toThrow(FieldsV1ParseError);
  });

  it("formats paths as Kubernetes prints them", () => {
    expect(formatPath(p("spec.template.spec.containers[name=nginx].image"))).toBe(
      '.spec.template.spec.containers[name="nginx"].image',
    );
    expect(formatPath([...p("spec.ports"), keyElement({ port: 80, protocol: "TCP" })])).toBe(
      '.spec.ports[port=80,protocol="TCP"]',
    );
    expect(formatPath(p("metadata.finalizers[=x]"))).toBe('.metadata.finalizers[="x"]');
  });
});

describe("field sets of objects", () => {
  it.each([
    {
      name: "scalars, granular maps, atomic maps",
      object: {
        spec: { replicas: 1, selector: { matchLabels: { a: "b" } } },
        metadata: { labels: { a: "b" } },
      },
      want: [".metadata.labels.a", ".spec.replicas", ".spec.selector"],
    },
    {
      name: "associative lists by key, key fields defaulted",
      object: {
        spec: { template: { spec: { containers: [{ name: "a", ports: [{ containerPort: 80 }] }] } } },
      },
      want: [
        '.spec.template.spec.containers[name="a"]',
        '.spec.template.spec.containers[name="a"].name',
        '.spec.template.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"]',
        '.spec.template.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"].containerPort',
      ],
    },
    {
      name: "sets by value, atomic lists as one leaf",
      object: {
        metadata: { finalizers: ["x", "y"] },
        spec: { template: { spec: { tolerations: [{ key: "k" }], containers: [{ name: "a", args: [] }] } } },
      },
      want: [
        '.metadata.finalizers[="x"]',
        '.metadata.finalizers[="y"]',
        '.spec.template.spec.containers[name="a"]',
        '.spec.template.spec.containers[name="a"].args',
        '.spec.template.spec.containers[name="a"].name',
        ".spec.template.spec.tolerations",
      ],
    },
    {
      name: "null and empty maps are owned, empty granular lists are not",
      object: { spec: { strategy: {}, paused: null }, metadata: { finalizers: [] } },
      want: [".spec.paused", ".spec.strategy"],
    },
    {
      name: "unknown fields: objects granular, lists atomic",
      object: { extra: { list: [1, 2], deep: { x: 1 } } },
      want: [".extra", ".extra.deep", ".extra.deep.x", ".extra.list"],
    },
  ])("$name", ({ object, want }) => {
    expect(paths(fieldSetOf(object, deploymentSchema))).toEqual(want);
  });

  it("without a schema every object is granular and every list atomic", () => {
    expect(paths(fieldSetOf({ a: { b: [1] }, c: 1 }, undefined))).toEqual([".a", ".a.b", ".c"]);
  });

  it("a duplicated key is owned as a whole, without descending", () => {
    const object = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: "a", image: "1" },
              { name: "a", image: "2" },
            ],
          },
        },
      },
    };
    expect(paths(fieldSetOf(object, deploymentSchema))).toEqual(['.spec.template.spec.containers[name="a"]']);
    expect(() => fieldSetOf(object, deploymentSchema, { strict: true })).toThrow(
      '.spec.template.spec.containers: duplicate entries for key [name="a"]',
    );
  });

  it("an element without its key fails only when strict", () => {
    const object = { spec: { template: { spec: { containers: [{ image: "x" }] } } } };
    expect(isFieldSetEmpty(fieldSetOf(object, deploymentSchema))).toBe(true);
    expect(() => fieldSetOf(object, deploymentSchema, { strict: true })).toThrow(FieldSetError);
    expect(() => fieldSetOf(object, deploymentSchema, { strict: true })).toThrow(/omits key field "name"/);
  });
});

describe("set operations", () => {
  const a = set(
    "spec.replicas",
    "spec.template.spec.containers[name=x]",
    "spec.template.spec.containers[name=x].image",
  );
  const b = set("spec.replicas", "spec.paused", "spec.template.spec.containers[name=x].image");

  it.each([
    [
      "union",
      fieldSetUnion(a, b),
      [
        ".spec.paused",
        ".spec.replicas",
        '.spec.template.spec.containers[name="x"]',
        '.spec.template.spec.containers[name="x"].image',
      ],
    ],
    ["difference", fieldSetDifference(a, b), ['.spec.template.spec.containers[name="x"]']],
    [
      "intersection",
      fieldSetIntersection(a, b),
      [".spec.replicas", '.spec.template.spec.containers[name="x"].image'],
    ],
    [
      "recursive difference removes everything below",
      fieldSetRecursiveDifference(a, set("spec.template.spec.containers[name=x]")),
      [".spec.replicas"],
    ],
    [
      "difference keeps children of removed paths",
      fieldSetDifference(a, set("spec.template.spec.containers[name=x]")),
      [".spec.replicas", '.spec.template.spec.containers[name="x"].image'],
    ],
  ])("%s", (_, result, want) => {
    expect(paths(result)).toEqual(want);
  });

  it("leaves its inputs alone", () => {
    const before = JSON.stringify(serializeFieldsV1(a));
    fieldSetUnion(a, b);
    fieldSetDifference(a, b);
    fieldSetRecursiveDifference(a, b);
    expect(JSON.stringify(serializeFieldsV1(a))).toBe(before);
  });

  it("strips the fields Kubernetes never tracks", () => {
    const s = set(
      "apiVersion",
      "kind",
      "metadata.name",
      "metadata.namespace",
      "metadata.uid",
      "metadata.labels.a",
      "spec.replicas",
    );
    expect(paths(stripUntrackedFields(s))).toEqual([".metadata.labels.a", ".spec.replicas"]);
    expect(paths(stripUntrackedFields(set("metadata")))).toEqual([]);
  });
});

describe("compareFields / fieldsChanged", () => {
  const before = nginxConfig();
  it.each([
    {
      name: "a changed scalar is modified",
      after: { ...before, spec: { ...before.spec, replicas: 5 } },
      want: { added: [], modified: [".spec.replicas"], removed: [] },
    },
    {
      name: "a new list element is added with everything in it",
      after: {
        ...before,
        spec: {
          ...before.spec,
          template: {
            ...before.spec.template,
            spec: { containers: [...before.spec.template.spec.containers, { name: "side", image: "b" }] },
          },
        },
      },
      want: {
        added: [
          '.spec.template.spec.containers[name="side"]',
          '.spec.template.spec.containers[name="side"].image',
          '.spec.template.spec.containers[name="side"].name',
        ],
        modified: [],
        removed: [],
      },
    },
    {
      name: "a removed map is removed with its keys; an atomic map changes as one",
      after: {
        ...before,
        metadata: { name: "nginx" },
        spec: { ...before.spec, selector: { matchLabels: { app: "x" } } },
      },
      want: {
        added: [],
        modified: [".spec.selector"],
        removed: [".metadata.labels", ".metadata.labels.app"],
      },
    },
  ])("$name", ({ after, want }) => {
    const c = compareFields(before, after, deploymentSchema);
    expect({ added: paths(c.added), modified: paths(c.modified), removed: paths(c.removed) }).toEqual(want);
  });

  it("fieldsChanged is the union of the three", () => {
    const after = { ...before, metadata: { name: "nginx" }, spec: { ...before.spec, replicas: 9 } };
    expect(paths(fieldsChanged(before, after, deploymentSchema))).toEqual([
      ".metadata.labels",
      ".metadata.labels.app",
      ".spec.replicas",
    ]);
    expect(isFieldSetEmpty(fieldsChanged(before, structuredClone(before), deploymentSchema))).toBe(true);
  });
});

function applied(result: ApplyResult) {
  if (!result.ok) throw new Error(`unexpected conflicts: ${formatApplyConflicts(result.conflicts)}`);
  return result;
}

const request = (over: Partial<ApplyRequest> & Pick<ApplyRequest, "config">): ApplyRequest => ({
  live: undefined,
  schema: deploymentSchema,
  others: [],
  force: false,
  ...over,
});

describe("applyFields", () => {
  it("creates: the object is the configuration, the applier owns every field", () => {
    const r = applied(applyFields(request({ config: nginxConfig() })));
    expect(r.object).toEqual(nginxConfig());
    expect(JSON.stringify(serializeFieldsV1(r.fields))).toBe(nginxFieldsV1);
    expect(r.others).toEqual([]);
    expect(r.changed).toBe(true);
  });

  describe("kubectl scenario: A applies replicas=2, then B applies replicas=3", () => {
    const a = applied(applyFields(request({ config: nginxConfig(2) })));
    const bConfig = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "nginx" },
      spec: { replicas: 3 },
    };
    const others = [{ manager: "A", fields: a.fields }];

    it("without force: a conflict naming A at .spec.replicas, nothing applied", () => {
      const r = applyFields(request({ live: a.object, config: bConfig, others }));
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.conflicts.map(({ manager, field }) => ({ manager, field }))).toEqual([
        { manager: "A", field: ".spec.replicas" },
      ]);
      expect(formatApplyConflicts(r.conflicts)).toBe(
        'Apply failed with 1 conflict: conflict with "A": .spec.replicas',
      );
    });

    it("with force: B owns replicas, A's entry loses it", () => {
      const r = applied(applyFields(request({ live: a.object, config: bConfig, others, force: true })));
      expect((r.object.spec as { replicas: number }).replicas).toBe(3);
      expect(paths(r.fields)).toEqual([".spec.replicas"]);
      expect(r.others).toHaveLength(1);
      expect(fieldSetHas(r.others[0]!.fields, p("spec.replicas"))).toBe(false);
      expect(fieldSetHas(r.others[0]!.fields, p("spec.selector"))).toBe(true);
    });

    it("applying the value A already set shares ownership without conflict", () => {
      const r = applied(
        applyFields(request({ live: a.object, config: { ...bConfig, spec: { replicas: 2 } }, others })),
      );
      expect(r.changed).toBe(false);
      expect(fieldSetHas(r.fields, p("spec.replicas"))).toBe(true);
      expect(fieldSetHas(r.others[0]!.fields, p("spec.replicas"))).toBe(true);
    });
  });

  it("reports conflicts with several managers in Kubernetes' format", () => {
    const live = { ...nginxConfig(), spec: { ...nginxConfig().spec, paused: false } };
    const r = applyFields(
      request({
        live,
        config: { ...nginxConfig(5), spec: { ...nginxConfig(5).spec, paused: true } },
        others: [
          { manager: "B", fields: set("spec.paused") },
          { manager: "A", fields: set("spec.replicas", "spec.template.spec.containers[name=nginx].image") },
        ],
      }),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(formatApplyConflicts(r.conflicts, (m) => `"${m}" using apps/v1`)).toBe(
      'Apply failed with 2 conflicts: conflicts with "A" using apps/v1:\n- .spec.replicas\nconflicts with "B" using apps/v1:\n- .spec.paused',
    );
  });

  it("a conflict inside a list element names the element", () => {
    const r = applyFields(
      request({
        live: nginxConfig(),
        config: {
          ...nginxConfig(),
          spec: {
            ...nginxConfig().spec,
            template: {
              ...nginxConfig().spec.template,
              spec: { containers: [{ name: "nginx", image: "nginx:2" }] },
            },
          },
        },
        others: [
          {
            manager: "kube-controller-manager",
            fields: set("spec.template.spec.containers[name=nginx].image"),
          },
        ],
      }),
    );
    expect(r.ok ? [] : r.conflicts.map((c) => c.field)).toEqual([
      '.spec.template.spec.containers[name="nginx"].image',
    ]);
  });

  it("merges associative lists by key and sets by value; atomic lists are replaced", () => {
    const live = {
      ...nginxConfig(),
      metadata: { name: "nginx", finalizers: ["a"] },
      spec: {
        ...nginxConfig().spec,
        template: {
          spec: {
            containers: [
              { name: "nginx", image: "nginx:1", args: ["-v"] },
              { name: "side", image: "busybox" },
            ],
            tolerations: [{ key: "old" }],
          },
        },
      },
    };
    const config = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "nginx", finalizers: ["b"] },
      spec: {
        template: {
          spec: {
            containers: [
              { name: "extra", image: "e" },
              { name: "nginx", args: ["-q"] },
            ],
            tolerations: [{ key: "new" }],
          },
        },
      },
    };
    const r = applied(applyFields(request({ live, config })));
    const out = r.object as typeof live;
    expect(out.metadata.finalizers).toEqual(["a", "b"]);
    expect(out.spec.template.spec.containers).toEqual([
      { name: "extra", image: "e" },
      { name: "nginx", image: "nginx:1", args: ["-q"] },
      { name: "side", image: "busybox" },
    ]);
    expect(out.spec.template.spec.tolerations).toEqual([{ key: "new" }]);
    expect(out.spec.replicas).toBe(2);
  });

  it("orders a merged list like structured-merge-diff: configuration order, live-only elements in place", () => {
    const containers = (...names: string[]) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "x" },
      spec: { template: { spec: { containers: names.map((name) => ({ name })) } } },
    });
    const r = applied(
      applyFields(request({ live: containers("a", "b", "c"), config: containers("c", "a") })),
    );
    expect(
      (r.object as ReturnType<typeof containers>).spec.template.spec.containers.map((c) => c.name),
    ).toEqual(["b", "c", "a"]);
  });

  describe("prune", () => {
    const first = {
      ...nginxConfig(),
      metadata: { name: "nginx", labels: { app: "nginx", tier: "web" } },
      spec: {
        ...nginxConfig().spec,
        template: {
          ...nginxConfig().spec.template,
          spec: {
            containers: [...nginxConfig().spec.template.spec.containers, { name: "side", image: "busybox" }],
          },
        },
      },
    };
    const a = applied(applyFields(request({ config: first })));

    it("removes what the manager applied before and no longer applies", () => {
      const r = applied(applyFields(request({ live: a.object, config: nginxConfig(), previous: a.fields })));
      expect(r.object).toEqual(nginxConfig());
      expect(JSON.stringify(serializeFieldsV1(r.fields))).toBe(nginxFieldsV1);
    });

    it("keeps what another manager also owns", () => {
      const others = [
        {
          manager: "B",
          fields: set(
            "metadata.labels.tier",
            "spec.template.spec.containers[name=side]",
            "spec.template.spec.containers[name=side].name",
            "spec.template.spec.containers[name=side].image",
          ),
        },
      ];
      const r = applied(
        applyFields(request({ live: a.object, config: nginxConfig(), previous: a.fields, others })),
      );
      const out = r.object as typeof first;
      expect(out.metadata.labels).toEqual({ app: "nginx", tier: "web" });
      expect(out.spec.template.spec.containers.map((c) => c.name)).toEqual(["nginx", "side"]);
    });

    it("keeps fields the manager never applied", () => {
      const live = { ...a.object, spec: { ...(a.object.spec as object), paused: true } };
      const others = [{ manager: "kubectl-edit", fields: set("spec.paused") }];
      const r = applied(applyFields(request({ live, config: nginxConfig(), previous: a.fields, others })));
      expect((r.object.spec as { paused?: boolean }).paused).toBe(true);
    });

    it("removes a whole struct field nobody owns anything under any more", () => {
      const withStrategy = {
        ...nginxConfig(),
        spec: { ...nginxConfig().spec, strategy: { type: "Recreate" } },
      };
      const first = applied(applyFields(request({ config: withStrategy })));
      const r = applied(
        applyFields(request({ live: first.object, config: nginxConfig(), previous: first.fields })),
      );
      expect(r.object.spec).not.toHaveProperty("strategy");
    });
  });

  it("ignored paths (status on the main resource) are merged but never owned or conflicting", () => {
    const config = { ...nginxConfig(), status: { replicas: 7 } };
    const r = applied(
      applyFields(
        request({
          live: { ...nginxConfig(), status: { replicas: 1 } },
          config,
          ignored: set("status"),
          others: [{ manager: "kube-controller-manager", fields: set("status.replicas") }],
        }),
      ),
    );
    expect(fieldSetHas(r.fields, p("status.replicas"))).toBe(false);
    expect(fieldSetHas(r.others[0]!.fields, p("status.replicas"))).toBe(true);
  });

  it("an explicit null owns the field and stores nothing", () => {
    const r = applied(
      applyFields(
        request({
          live: { ...nginxConfig(), spec: { ...nginxConfig().spec, paused: true } },
          config: { ...nginxConfig(), spec: { ...nginxConfig().spec, paused: null } },
        }),
      ),
    );
    expect(r.object.spec).not.toHaveProperty("paused");
    expect(fieldSetHas(r.fields, p("spec.paused"))).toBe(true);
  });

  it("rejects configurations with duplicate keys", () => {
    const config = {
      ...nginxConfig(),
      spec: { template: { spec: { containers: [{ name: "a" }, { name: "a" }] } } },
    };
    expect(() => applyFields(request({ config }))).toThrow(FieldSetError);
  });

  it("service ports are keyed by port and protocol", () => {
    const service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "s" },
      spec: {
        ports: [
          { port: 80, targetPort: 8080 },
          { port: 53, protocol: "UDP" },
        ],
      },
    };
    const r = applied(applyFields(request({ config: service, schema: serviceSchema })));
    expect(Object.keys(serializeFieldsV1(r.fields)["f:spec"]!["f:ports"]!)).toEqual([
      'k:{"port":53,"protocol":"UDP"}',
      'k:{"port":80,"protocol":"TCP"}',
    ]);
  });
});

describe("updateFields", () => {
  it("on create the writer owns every tracked field", () => {
    const out = updateFields({
      live: undefined,
      updated: nginxConfig(),
      schema: deploymentSchema,
      manager: "kubectl-create",
      managers: [],
    });
    expect(out.map((m) => m.manager)).toEqual(["kubectl-create"]);
    expect(fieldSetHas(out[0]!.fields, p("metadata.name"))).toBe(false);
    expect(fieldSetHas(out[0]!.fields, p("spec.replicas"))).toBe(true);
  });

  it("moves changed fields to the writer and drops removed ones from everybody", () => {
    const live = { ...nginxConfig(), spec: { ...nginxConfig().spec, paused: true } };
    const updated = { ...nginxConfig(4) };
    const managers = [
      { manager: "A", fields: set("spec.replicas", "spec.paused", "spec.selector") },
      { manager: "B", fields: set("spec.paused") },
    ];
    const out = updateFields({ live, updated, schema: deploymentSchema, manager: "kubectl-scale", managers });
    expect(out.map((m) => [m.manager, paths(m.fields)])).toEqual([
      ["A", [".spec.selector"]],
      ["kubectl-scale", [".spec.replicas"]],
    ]);
  });

  it("updates the writer's existing entry in place", () => {
    const managers = [
      { manager: "ctl", fields: set("spec.paused") },
      { manager: "A", fields: set("spec.selector") },
    ];
    const out = updateFields({
      live: nginxConfig(),
      updated: nginxConfig(3),
      schema: deploymentSchema,
      manager: "ctl",
      managers,
    });
    expect(out.map((m) => [m.manager, paths(m.fields)])).toEqual([
      ["ctl", [".spec.paused", ".spec.replicas"]],
      ["A", [".spec.selector"]],
    ]);
  });

  it("an unchanged write leaves ownership alone", () => {
    const managers = [{ manager: "A", fields: set("spec.replicas") }];
    const out = updateFields({
      live: nginxConfig(),
      updated: nginxConfig(),
      schema: deploymentSchema,
      manager: "B",
      managers,
    });
    expect(out).toEqual(managers);
    expect(isFieldSetEmpty(emptyFieldSet())).toBe(true);
  });
});
