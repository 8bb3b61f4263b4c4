import { describe, expect, it } from "vitest";
import { buildRegistry, builtinRegistry } from "./registry.ts";
import type { PackageTable } from "./schema.ts";

const numbers = (message: string): Record<string, number> =>
  Object.fromEntries(builtinRegistry.message(message).fields.map((f) => [f.json || "...", f.number]));

describe("builtin tables", () => {
  it("parse, resolve every reference and cover the kinds we promise", () => {
    expect(builtinRegistry.messages.length).toBeGreaterThan(300);
    const kinds = builtinRegistry.kinds.map((k) => `${k.apiVersion} ${k.kind}`);
    for (const expected of [
      "v1 Namespace",
      "v1 Pod",
      "apps/v1 Deployment",
      "coordination.k8s.io/v1 Lease",
      "authorization.k8s.io/v1 SelfSubjectAccessReview",
      "certificates.k8s.io/v1 CertificateSigningRequest",
      "apiextensions.k8s.io/v1 CustomResourceDefinition",
      "meta.k8s.io/v1 DeleteOptions",
    ]) {
      expect(kinds).toContain(expected);
    }
  });

  // Numbers written down independently from the reference notes (docs: k8s-api-compat.md §1.10);
  // the kubectl oracle test checks the rest against real request bodies.
  it("agree with the meta/v1 numbers in our reference notes", () => {
    expect(numbers("meta.v1.ObjectMeta")).toEqual({
      name: 1,
      generateName: 2,
      namespace: 3,
      selfLink: 4,
      uid: 5,
      resourceVersion: 6,
      generation: 7,
      creationTimestamp: 8,
      deletionTimestamp: 9,
      deletionGracePeriodSeconds: 10,
      labels: 11,
      annotations: 12,
      ownerReferences: 13,
      finalizers: 14,
      managedFields: 17,
    });
    expect(numbers("meta.v1.OwnerReference")).toEqual({
      kind: 1,
      name: 3,
      uid: 4,
      apiVersion: 5,
      controller: 6,
      blockOwnerDeletion: 7,
    });
    expect(numbers("meta.v1.DeleteOptions")).toEqual({
      gracePeriodSeconds: 1,
      preconditions: 2,
      orphanDependents: 3,
      propagationPolicy: 4,
      dryRun: 5,
      ignoreStoreReadErrorWithClusterBreakingPotential: 6,
    });
    expect(numbers("meta.v1.Preconditions")).toEqual({ uid: 1, resourceVersion: 2 });
  });

  it("mark every top-level kind's metadata as a non-pointer ObjectMeta", () => {
    for (const { message } of builtinRegistry.kinds) {
      const metadata = builtinRegistry.message(message).fields.find((f) => f.json === "metadata");
      if (message === "meta.v1.DeleteOptions") continue;
      expect(metadata, message).toMatchObject({
        number: 1,
        cardinality: "value",
        type: { name: "meta.v1.ObjectMeta" },
      });
    }
  });
});

describe("table parser", () => {
  const table = (messages: string): PackageTable[] => [
    { package: "t.v1", apiVersion: "t/v1", kinds: [], messages },
  ];

  it("reads every field form", () => {
    const registry = buildRegistry(
      table(`
# comment
A @union
  many 2 []B
  one 1 *B
B
  s 1 string omitempty
  m 2 map[string]quantity
  ... 3 C
  $ref 4 *string
C @array
  items 1 []int64
`),
    );
    expect(registry.message("t.v1.B").fields).toEqual([
      {
        json: "s",
        number: 1,
        cardinality: "value",
        type: { kind: "scalar", name: "string" },
        omitempty: true,
      },
      {
        json: "m",
        number: 2,
        cardinality: "map",
        type: { kind: "special", name: "quantity" },
        omitempty: false,
      },
      {
        json: "",
        number: 3,
        cardinality: "value",
        type: { kind: "message", name: "t.v1.C" },
        omitempty: false,
      },
      {
        json: "$ref",
        number: 4,
        cardinality: "pointer",
        type: { kind: "scalar", name: "string" },
        omitempty: false,
      },
    ]);
    expect(registry.message("t.v1.A").form).toBe("union");
    expect(registry.message("t.v1.C").form).toBe("array");
  });

  const invalid: [string, string, RegExp][] = [
    ["an unknown type", "A\n  x 1 strin\n", /unknown type/],
    ["omitempty on a pointer", "A\n  x 1 *string omitempty\n", /omitempty only matters/],
    ["a duplicate number", "A\n  x 1 string\n  y 1 string\n", /duplicate field number 1/],
    ["a duplicate JSON name", "A\n  x 1 string\n  x 2 string\n", /duplicate JSON name x/],
    ["field number 0", "A\n  x 0 string\n", /out of range/],
    ["a field before any header", "  x 1 string\n", /before the first message/],
    ["a missing message", "A\n  b 1 B\n", /unknown message t\.v1\.B/],
    ["an inlined pointer", "A\n  ... 1 *A\n", /inlined field/],
    ["an @array without one repeated field", "A @array\n  x 1 string\n", /exactly one repeated/],
    ["a non-string map key", "A\n  m 1 map[int32]string\n", /string map keys/],
  ];
  for (const [what, messages, error] of invalid) {
    it(`rejects ${what}`, () => {
      expect(() => buildRegistry(table(messages))).toThrow(error);
    });
  }

  it("rejects a kind without a message", () => {
    expect(() =>
      buildRegistry([{ package: "t.v1", apiVersion: "t/v1", kinds: ["Gone"], messages: "A\n" }]),
    ).toThrow(/kind Gone has no message/);
  });
});
