import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Schema } from "../api/schema.ts";
import { deploymentSchema, podSchema, serviceSchema } from "./strategic-merge-patch.fixtures.ts";
import { type KubectlPatcher, kubectlAvailable, kubectlPatcher } from "./strategic-merge-patch.kubectl.ts";
import { applyStrategicMergePatch, StrategicMergePatchError } from "./strategic-merge-patch.ts";

const deployment = () => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", labels: { app: "web" }, finalizers: ["a", "b"] },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [
          {
            name: "nginx",
            image: "nginx:1",
            command: ["nginx", "-g", "daemon off;"],
            env: [
              { name: "X", value: "1" },
              { name: "Y", value: "2" },
            ],
            ports: [{ containerPort: 80, protocol: "TCP" }],
          },
          { name: "sidecar", image: "busybox" },
        ],
        volumes: [{ name: "data", emptyDir: { medium: "Memory" } }],
        tolerations: [{ key: "k", operator: "Exists" }],
        securityContext: { runAsUser: 1000 },
      },
    },
  },
});

const podSpecOf = (o: unknown) =>
  (o as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec;

const containersPatch = (containers: unknown[], extra: Record<string, unknown> = {}) => ({
  spec: { template: { spec: { containers, ...extra } } },
});

interface Case {
  name: string;
  original: unknown;
  patch: unknown;
  schema?: Schema | undefined;
  /** Checks the result (or the error) when the expectation is not the whole object. */
  expect: (result: unknown) => void;
}

const cases: Case[] = [
  {
    name: "scalars replace, null deletes, objects merge",
    original: deployment(),
    patch: { metadata: { labels: { tier: "fe", app: null } }, spec: { replicas: 3, paused: true } },
    expect: (r) => {
      const d = r as ReturnType<typeof deployment> & { spec: { paused?: boolean } };
      expect(d.metadata.labels).toEqual({ tier: "fe" });
      expect(d.spec.replicas).toBe(3);
      expect(d.spec.paused).toBe(true);
      expect(d.spec.selector).toEqual({ matchLabels: { app: "web" } });
    },
  },
  {
    name: "lists without a strategy are replaced (tolerations, command)",
    original: deployment(),
    patch: containersPatch([{ name: "nginx", command: ["sh"] }], { tolerations: [{ key: "other" }] }),
    expect: (r) => {
      expect(podSpecOf(r).tolerations).toEqual([{ key: "other" }]);
      expect((podSpecOf(r).containers as Array<{ command?: unknown }>)[0]?.command).toEqual(["sh"]);
    },
  },
  {
    name: "merge list by key: matched element merges, nested env merges",
    original: deployment(),
    patch: containersPatch([{ name: "nginx", image: "nginx:2", env: [{ name: "Y", value: "3" }] }]),
    expect: (r) => {
      const [nginx, sidecar] = podSpecOf(r).containers as Array<Record<string, unknown>>;
      expect(nginx?.image).toBe("nginx:2");
      expect(nginx?.env).toEqual([
        { name: "X", value: "1" },
        { name: "Y", value: "3" },
      ]);
      expect(nginx?.ports).toEqual([{ containerPort: 80, protocol: "TCP" }]);
      expect(sidecar).toEqual({ name: "sidecar", image: "busybox" });
    },
  },
  {
    name: "a new element goes before the live elements it has no order with",
    original: deployment(),
    patch: containersPatch([{ name: "new", image: "x" }]),
    expect: (r) =>
      expect((podSpecOf(r).containers as Array<{ name: string }>).map((c) => c.name)).toEqual([
        "new",
        "nginx",
        "sidecar",
      ]),
  },
  {
    name: "patched elements keep their place among live-only ones",
    original: { metadata: { finalizers: ["a", "b", "c"] } },
    patch: { metadata: { finalizers: ["b"] } },
    schema: podSchema,
    expect: (r) => expect(r).toEqual({ metadata: { finalizers: ["a", "b", "c"] } }),
  },
  {
    name: "$patch: delete removes the element with that key",
    original: deployment(),
    patch: containersPatch([{ name: "sidecar", $patch: "delete" }]),
    expect: (r) =>
      expect((podSpecOf(r).containers as Array<{ name: string }>).map((c) => c.name)).toEqual(["nginx"]),
  },
  {
    name: "$patch: replace in a list makes the rest of the patch list the new list",
    original: deployment(),
    patch: containersPatch([{ name: "only", image: "x" }, { $patch: "replace" }]),
    expect: (r) => expect(podSpecOf(r).containers).toEqual([{ name: "only", image: "x" }]),
  },
  {
    name: "primitive merge list: union without duplicates, new values first",
    original: deployment(),
    patch: { metadata: { finalizers: ["c", "a"] } },
    expect: (r) => expect((r as ReturnType<typeof deployment>).metadata.finalizers).toEqual(["c", "a", "b"]),
  },
  {
    name: "$deleteFromPrimitiveList removes values",
    original: deployment(),
    patch: { metadata: { "$deleteFromPrimitiveList/finalizers": ["a", "zz"] } },
    expect: (r) => expect((r as ReturnType<typeof deployment>).metadata.finalizers).toEqual(["b"]),
  },
  {
    name: "$setElementOrder alone reorders a primitive list",
    original: deployment(),
    patch: { metadata: { "$setElementOrder/finalizers": ["b", "a"] } },
    expect: (r) => expect((r as ReturnType<typeof deployment>).metadata.finalizers).toEqual(["b", "a"]),
  },
  {
    name: "$setElementOrder orders patched elements, live-only ones keep their relative place",
    original: { spec: { containers: [{ name: "a" }, { name: "b" }, { name: "c" }] } },
    patch: {
      spec: {
        "$setElementOrder/containers": [{ name: "c" }, { name: "a" }],
        containers: [{ name: "c", image: "3" }],
      },
    },
    schema: podSchema,
    expect: (r) =>
      expect(r).toEqual({ spec: { containers: [{ name: "b" }, { name: "c", image: "3" }, { name: "a" }] } }),
  },
  {
    name: "$setElementOrder places a new element where the order says",
    original: deployment(),
    patch: containersPatch([{ name: "mid", image: "m" }], {
      "$setElementOrder/containers": [{ name: "nginx" }, { name: "mid" }, { name: "sidecar" }],
    }),
    expect: (r) =>
      expect((podSpecOf(r).containers as Array<{ name: string }>).map((c) => c.name)).toEqual([
        "nginx",
        "mid",
        "sidecar",
      ]),
  },
  {
    name: "kubectl apply's recorded patch (section 1.6): image and env change",
    original: deployment(),
    patch: {
      metadata: { annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" } },
      spec: {
        template: {
          spec: {
            "$setElementOrder/containers": [{ name: "nginx" }],
            containers: [
              {
                "$setElementOrder/env": [{ name: "A" }],
                env: [{ name: "A", value: "2" }],
                image: "nginx:3",
                name: "nginx",
              },
            ],
          },
        },
      },
    },
    expect: (r) => {
      const [nginx, sidecar] = podSpecOf(r).containers as Array<Record<string, unknown>>;
      expect(nginx?.image).toBe("nginx:3");
      expect(nginx?.env).toEqual([
        { name: "A", value: "2" },
        { name: "X", value: "1" },
        { name: "Y", value: "2" },
      ]);
      expect(nginx?.ports).toEqual([{ containerPort: 80, protocol: "TCP" }]);
      expect(sidecar?.name).toBe("sidecar");
      expect(JSON.stringify(r)).not.toContain("$setElementOrder");
    },
  },
  {
    name: "map $patch: replace makes the map exactly the patch",
    original: deployment(),
    patch: { spec: { template: { spec: { securityContext: { $patch: "replace", runAsGroup: 5 } } } } },
    expect: (r) => expect(podSpecOf(r).securityContext).toEqual({ runAsGroup: 5 }),
  },
  {
    name: "map $patch: delete empties an existing map (as apimachinery does)",
    original: deployment(),
    patch: { spec: { template: { spec: { securityContext: { $patch: "delete" } } } } },
    expect: (r) => expect(podSpecOf(r).securityContext).toEqual({}),
  },
  {
    name: "map $patch: delete of a missing map leaves nothing",
    original: deployment(),
    patch: { spec: { template: { spec: { nodeSelector: { $patch: "delete" } } } } },
    expect: (r) => expect(podSpecOf(r)).not.toHaveProperty("nodeSelector"),
  },
  {
    name: "map $patch: merge is the default behaviour",
    original: deployment(),
    patch: { spec: { template: { spec: { securityContext: { $patch: "merge", runAsGroup: 5 } } } } },
    expect: (r) => expect(podSpecOf(r).securityContext).toEqual({ runAsUser: 1000, runAsGroup: 5 }),
  },
  {
    name: "map $patch: replace on a missing map sets it",
    original: deployment(),
    patch: { spec: { template: { spec: { nodeSelector: { $patch: "replace", disk: "ssd" } } } } },
    expect: (r) => expect(podSpecOf(r).nodeSelector).toEqual({ disk: "ssd" }),
  },
  {
    name: "$retainKeys clears the union members not listed (strategy Recreate)",
    original: deployment(),
    patch: { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
    expect: (r) => expect((r as ReturnType<typeof deployment>).spec.strategy).toEqual({ type: "Recreate" }),
  },
  {
    name: "$retainKeys in a volume switches its source",
    original: deployment(),
    patch: {
      spec: {
        template: {
          spec: {
            volumes: [{ name: "data", $retainKeys: ["name", "configMap"], configMap: { name: "cm" } }],
          },
        },
      },
    },
    expect: (r) => expect(podSpecOf(r).volumes).toEqual([{ name: "data", configMap: { name: "cm" } }]),
  },
  {
    name: "fields the schema does not know behave as a merge patch",
    original: { spec: { extra: { list: [1, 2], keep: true } } },
    patch: { spec: { extra: { list: [3] } } },
    schema: deploymentSchema,
    expect: (r) => expect(r).toEqual({ spec: { extra: { list: [3], keep: true } } }),
  },
  {
    name: "no schema at all: merge patch with directives",
    original: { a: { b: 1, c: [1] } },
    patch: { a: { c: [2], b: null, d: { $patch: "replace", e: 1 } } },
    schema: undefined,
    expect: (r) => expect(r).toEqual({ a: { c: [2], d: { e: 1 } } }),
  },
  {
    name: "directives in new elements are carried out, never stored",
    original: deployment(),
    patch: containersPatch([
      {
        name: "new",
        "$setElementOrder/env": [{ name: "R" }],
        env: [
          { name: "Q", $patch: "delete" },
          { name: "R", value: "r" },
        ],
        resources: { limits: { cpu: "1", memory: null } },
      },
    ]),
    expect: (r) =>
      expect((podSpecOf(r).containers as unknown[])[0]).toEqual({
        name: "new",
        env: [{ name: "R", value: "r" }],
        resources: { limits: { cpu: "1" } },
      }),
  },
  {
    name: "a null inside a merged element deletes that member only",
    original: deployment(),
    patch: containersPatch([
      {
        name: "nginx",
        env: [
          { name: "Z", value: "z" },
          { name: "X", value: null },
        ],
      },
    ]),
    expect: (r) =>
      expect((podSpecOf(r).containers as Array<{ env?: unknown }>)[0]?.env).toEqual([
        { name: "Z", value: "z" },
        { name: "X" },
        { name: "Y", value: "2" },
      ]),
  },
  {
    name: "a list replaced by a scalar (type change) takes the patch value",
    original: deployment(),
    patch: containersPatch([{ name: "nginx", env: "oops" }]),
    expect: (r) => expect((podSpecOf(r).containers as Array<{ env?: unknown }>)[0]?.env).toBe("oops"),
  },
  {
    name: "service ports merge by port",
    original: {
      spec: {
        ports: [
          { port: 80, targetPort: 8080, name: "http" },
          { port: 443, targetPort: 8443, name: "https" },
        ],
      },
    },
    patch: {
      spec: {
        ports: [
          { port: 443, targetPort: 9443 },
          { port: 8080, name: "alt" },
        ],
      },
    },
    schema: serviceSchema,
    expect: (r) =>
      expect(r).toEqual({
        spec: {
          ports: [
            { port: 80, targetPort: 8080, name: "http" },
            { port: 443, targetPort: 9443, name: "https" },
            { port: 8080, name: "alt" },
          ],
        },
      }),
  },
  {
    name: "top-level $patch: delete empties the object",
    original: { a: 1 },
    patch: { $patch: "delete" },
    schema: undefined,
    expect: (r) => expect(r).toEqual({}),
  },
];

const errorCases: Array<{
  name: string;
  original?: unknown;
  patch: unknown;
  message: RegExp;
  code?: number;
}> = [
  {
    name: "unknown $ directive",
    patch: { spec: { $foo: 1 } },
    message: /unknown strategic merge patch directive "\$foo"/,
  },
  {
    name: "merge element without its merge key",
    patch: containersPatch([{ image: "x" }]),
    message: /map: map\[image:x\] does not contain declared merge key: name/,
  },
  {
    name: "$patch: merge in a list",
    patch: containersPatch([{ $patch: "merge" }]),
    message: /merging lists cannot yet/,
  },
  {
    name: "unknown $patch value",
    patch: { spec: { $patch: "frobnicate" } },
    message: /unknown patch type: frobnicate/,
  },
  {
    name: "patch member outside $retainKeys",
    patch: {
      spec: { strategy: { $retainKeys: ["type"], type: "Recreate", rollingUpdate: { maxSurge: 2 } } },
    },
    message: /invalid patch format of retainKeys/,
  },
  {
    name: "patch list not following $setElementOrder",
    patch: containersPatch([{ name: "nginx", image: "q" }], {
      "$setElementOrder/containers": [{ name: "sidecar" }],
    }),
    message: /The order in patch list:\n\[map\[image:q name:nginx\]\]\n doesn't match \$setElementOrder list/,
  },
  {
    name: "$setElementOrder without a field",
    patch: { spec: { $setElementOrder: [] } },
    message: /setElementOrder/,
  },
  {
    name: "$deleteFromPrimitiveList that is not a list",
    patch: { metadata: { "$deleteFromPrimitiveList/finalizers": "a" } },
    message: /invalid patch format of primitive list/,
  },
  {
    name: "lists of lists",
    original: { metadata: { finalizers: [["a"]] } },
    patch: { metadata: { finalizers: [["b"]] } },
    message: /lists of lists are not supported/,
    code: 422,
  },
  { name: "a patch that is not an object", patch: [1], message: /invalid JSON document/ },
];

describe("applyStrategicMergePatch", () => {
  it.each(cases)("$name", (c) => {
    const original = structuredClone(c.original);
    const patch = structuredClone(c.patch);
    const result = applyStrategicMergePatch(original, patch, "schema" in c ? c.schema : deploymentSchema);
    c.expect(result);
    // Inputs are never modified.
    expect(original).toEqual(c.original);
    expect(patch).toEqual(c.patch);
  });

  it.each(errorCases)("rejects: $name", (c) => {
    const run = () => applyStrategicMergePatch(c.original ?? deployment(), c.patch, deploymentSchema);
    expect(run).toThrow(StrategicMergePatchError);
    expect(run).toThrow(c.message);
    try {
      run();
    } catch (err) {
      expect((err as StrategicMergePatchError).code).toBe(c.code ?? 400);
    }
  });

  it("never aliases patch values into the result", () => {
    const env = [{ name: "A", value: "1" }];
    const result = applyStrategicMergePatch(
      deployment(),
      containersPatch([{ name: "new", env }]),
      deploymentSchema,
    );
    (podSpecOf(result).containers as Array<{ env: Array<{ value: string }> }>)[0]!.env[0]!.value = "changed";
    expect(env[0]?.value).toBe("1");
  });

  it("treats __proto__ as a plain member", () => {
    const patch = JSON.parse('{"metadata":{"labels":{"__proto__":"x"}}}');
    const result = applyStrategicMergePatch(deployment(), patch, deploymentSchema) as ReturnType<
      typeof deployment
    >;
    expect(Object.hasOwn(result.metadata.labels, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(result.metadata.labels)).toBe(Object.prototype);
  });
});

/**
 * The same (object, patch) pairs through the real kubectl, which applies strategic merge
 * patches locally with apimachinery and the compiled-in Go types of the built-in kinds.
 */
const oracleCases: Array<{ name: string; object: unknown; patch: unknown; schema: Schema }> = [
  {
    name: "scalars, nulls, nested maps",
    object: deployment(),
    patch: cases[0]!.patch,
    schema: deploymentSchema,
  },
  {
    name: "replace lists",
    object: deployment(),
    patch: containersPatch([{ name: "nginx", command: ["sh"] }], { tolerations: [{ key: "other" }] }),
    schema: deploymentSchema,
  },
  {
    name: "merge containers and env",
    object: deployment(),
    patch: containersPatch([
      {
        name: "nginx",
        image: "nginx:2",
        env: [
          { name: "Y", value: "3" },
          { name: "W", value: "w" },
        ],
      },
    ]),
    schema: deploymentSchema,
  },
  {
    name: "new container",
    object: deployment(),
    patch: containersPatch([{ name: "new", image: "x" }]),
    schema: deploymentSchema,
  },
  {
    name: "new and existing containers in one patch",
    object: deployment(),
    patch: containersPatch([
      { name: "sidecar", image: "b2" },
      { name: "new", image: "x" },
      { name: "nginx", image: "n2" },
    ]),
    schema: deploymentSchema,
  },
  {
    name: "delete container",
    object: deployment(),
    patch: containersPatch([
      { name: "nginx", $patch: "delete" },
      { name: "z", image: "z" },
    ]),
    schema: deploymentSchema,
  },
  {
    name: "replace container list",
    object: deployment(),
    patch: containersPatch([{ name: "z", image: "z" }, { $patch: "replace" }]),
    schema: deploymentSchema,
  },
  {
    name: "finalizers union",
    object: deployment(),
    patch: { metadata: { finalizers: ["c", "b", "d"] } },
    schema: deploymentSchema,
  },
  {
    name: "finalizers delete and add",
    object: deployment(),
    patch: {
      metadata: {
        "$setElementOrder/finalizers": ["b", "z"],
        finalizers: ["z"],
        "$deleteFromPrimitiveList/finalizers": ["a"],
      },
    },
    schema: deploymentSchema,
  },
  {
    name: "finalizers reorder",
    object: deployment(),
    patch: { metadata: { "$setElementOrder/finalizers": ["b", "a"] } },
    schema: deploymentSchema,
  },
  {
    name: "kubectl apply's recorded patch",
    object: deployment(),
    patch: cases.find((c) => c.name.startsWith("kubectl apply"))!.patch,
    schema: deploymentSchema,
  },
  {
    name: "setElementOrder with a new container in the middle",
    object: deployment(),
    patch: containersPatch([{ name: "mid", image: "m" }], {
      "$setElementOrder/containers": [{ name: "nginx" }, { name: "mid" }, { name: "sidecar" }],
    }),
    schema: deploymentSchema,
  },
  {
    name: "setElementOrder reversing live containers",
    object: deployment(),
    patch: {
      spec: {
        template: { spec: { "$setElementOrder/containers": [{ name: "sidecar" }, { name: "nginx" }] } },
      },
    },
    schema: deploymentSchema,
  },
  {
    name: "setElementOrder naming a subset, live-only kept in place",
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "a" }, { name: "b" }, { name: "c" }, { name: "d" }] },
    },
    patch: {
      spec: {
        "$setElementOrder/containers": [{ name: "d" }, { name: "e" }, { name: "a" }],
        containers: [
          { name: "d", image: "4" },
          { name: "e", image: "5" },
        ],
      },
    },
    schema: podSchema,
  },
  {
    name: "env order from setElementOrder with deletions",
    object: deployment(),
    patch: containersPatch(
      [
        {
          name: "nginx",
          "$setElementOrder/env": [{ name: "Y" }, { name: "N" }],
          env: [
            { name: "X", $patch: "delete" },
            { name: "N", value: "n" },
          ],
        },
      ],
      { "$setElementOrder/containers": [{ name: "nginx" }, { name: "sidecar" }] },
    ),
    schema: deploymentSchema,
  },
  {
    name: "map replace",
    object: deployment(),
    patch: cases.find((c) => c.name.startsWith("map $patch: replace makes"))!.patch,
    schema: deploymentSchema,
  },
  {
    name: "map delete",
    object: deployment(),
    patch: cases.find((c) => c.name.startsWith("map $patch: delete empties"))!.patch,
    schema: deploymentSchema,
  },
  {
    name: "strategy retainKeys",
    object: deployment(),
    patch: { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
    schema: deploymentSchema,
  },
  {
    name: "volume retainKeys",
    object: deployment(),
    patch: cases.find((c) => c.name.startsWith("$retainKeys in a volume"))!.patch,
    schema: deploymentSchema,
  },
  {
    name: "ports merge by containerPort",
    object: deployment(),
    patch: containersPatch([
      {
        name: "nginx",
        ports: [
          { containerPort: 443, protocol: "TCP" },
          { containerPort: 80, name: "http" },
        ],
      },
    ]),
    schema: deploymentSchema,
  },
  {
    name: "null element member and new element",
    object: deployment(),
    patch: containersPatch([
      {
        name: "nginx",
        env: [
          { name: "Z", value: "z" },
          { name: "X", value: null },
        ],
      },
    ]),
    schema: deploymentSchema,
  },
  {
    name: "env removed by null",
    object: deployment(),
    patch: containersPatch([{ name: "nginx", env: null, image: null }]),
    schema: deploymentSchema,
  },
  {
    name: "service ports by port",
    object: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "s" },
      spec: {
        selector: { app: "web" },
        ports: [
          { port: 80, targetPort: 8080, name: "http" },
          { port: 443, targetPort: 8443, name: "https" },
        ],
      },
    },
    patch: {
      spec: {
        ports: [
          { port: 8080, name: "alt" },
          { port: 443, targetPort: 9443 },
        ],
        selector: { tier: "fe" },
      },
    },
    schema: serviceSchema,
  },
  {
    name: "pod volumes and tolerations",
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", finalizers: ["x"] },
      spec: {
        containers: [{ name: "a", image: "a" }],
        volumes: [
          { name: "v1", emptyDir: {} },
          { name: "v2", hostPath: { path: "/tmp" } },
        ],
        tolerations: [{ key: "a" }, { key: "b" }],
      },
    },
    patch: {
      metadata: { finalizers: ["y"] },
      spec: {
        volumes: [
          { name: "v3", configMap: { name: "c" } },
          { name: "v1", $patch: "delete" },
        ],
        tolerations: [{ key: "c" }],
      },
    },
    schema: podSchema,
  },
  {
    name: "finalizers: duplicates in the patch, order with new and live-only values",
    object: deployment(),
    patch: { metadata: { "$setElementOrder/finalizers": ["z", "a"], finalizers: ["z", "z", "a"] } },
    schema: deploymentSchema,
  },
  {
    name: "retainKeys with a null member, as kubectl apply sends it",
    object: deployment(),
    patch: { spec: { strategy: { $retainKeys: ["type"], type: "Recreate", rollingUpdate: null } } },
    schema: deploymentSchema,
  },
  {
    name: "setElementOrder for a list the original lacks",
    object: deployment(),
    patch: {
      spec: {
        template: {
          spec: {
            "$setElementOrder/initContainers": [{ name: "i2" }, { name: "i1" }],
            initContainers: [
              { name: "i1", image: "1" },
              { name: "i2", image: "2" },
            ],
          },
        },
      },
    },
    schema: deploymentSchema,
  },
  {
    name: "imagePullSecrets and volumeMounts merge by their keys",
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: {
        imagePullSecrets: [{ name: "a" }],
        containers: [
          {
            name: "c",
            volumeMounts: [
              { name: "v", mountPath: "/a" },
              { name: "w", mountPath: "/b" },
            ],
          },
        ],
      },
    },
    patch: {
      spec: {
        imagePullSecrets: [{ name: "b" }],
        containers: [
          {
            name: "c",
            volumeMounts: [
              { mountPath: "/b", name: "w2" },
              { mountPath: "/c", name: "x" },
            ],
          },
        ],
      },
    },
    schema: podSchema,
  },
  {
    name: "kubectl's deletion of a container with setElementOrder",
    object: deployment(),
    patch: containersPatch([{ $patch: "delete", name: "nginx" }], {
      "$setElementOrder/containers": [{ name: "sidecar" }],
    }),
    schema: deploymentSchema,
  },
  {
    name: "replace directive in a nested merge list",
    object: deployment(),
    patch: containersPatch([{ name: "nginx", env: [{ $patch: "replace" }, { name: "Z", value: "z" }] }]),
    schema: deploymentSchema,
  },
  {
    name: "error: missing merge key",
    object: deployment(),
    patch: containersPatch([{ image: "x" }]),
    schema: deploymentSchema,
  },
  {
    name: "error: order mismatch",
    object: deployment(),
    patch: containersPatch([{ name: "nginx", image: "q" }], {
      "$setElementOrder/containers": [{ name: "sidecar" }],
    }),
    schema: deploymentSchema,
  },
  {
    name: "error: retainKeys mismatch",
    object: deployment(),
    patch: {
      spec: { strategy: { $retainKeys: ["type"], type: "Recreate", rollingUpdate: { maxSurge: 2 } } },
    },
    schema: deploymentSchema,
  },
];

describe.skipIf(!kubectlAvailable)("applyStrategicMergePatch against kubectl patch --local", () => {
  let kubectl: KubectlPatcher;
  beforeAll(async () => {
    kubectl = await kubectlPatcher();
  });
  afterAll(async () => {
    await kubectl?.close();
  });

  it.each(oracleCases)("$name", async (c) => {
    const expected = await kubectl.patch(c.object, c.patch, "strategic");
    if (!expected.ok) {
      expect(() => applyStrategicMergePatch(c.object, c.patch, c.schema)).toThrow(StrategicMergePatchError);
      expect(() => applyStrategicMergePatch(c.object, c.patch, c.schema)).toThrow(expected.error);
      return;
    }
    expect(applyStrategicMergePatch(c.object, c.patch, c.schema)).toEqual(expected.object);
  });
});
