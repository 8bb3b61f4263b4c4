import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMergePatch, cloneJson } from "./merge-patch.ts";
import { type KubectlPatcher, kubectlAvailable, kubectlPatcher } from "./strategic-merge-patch.kubectl.ts";

const doc = () => ({
  apiVersion: "example.io/v1",
  kind: "Widget",
  metadata: { name: "w", labels: { app: "web", tier: "fe" } },
  spec: { replicas: 1, list: [1, 2, 3], nested: { a: { b: 1, c: 2 } }, flag: true },
});

const cases: Array<{ name: string; patch: unknown; want: unknown }> = [
  {
    name: "scalars replace",
    patch: { spec: { replicas: 3, flag: false } },
    want: { ...doc(), spec: { ...doc().spec, replicas: 3, flag: false } },
  },
  {
    name: "null deletes",
    patch: { metadata: { labels: { tier: null } }, spec: { nested: null } },
    want: {
      ...doc(),
      metadata: { name: "w", labels: { app: "web" } },
      spec: { replicas: 1, list: [1, 2, 3], flag: true },
    },
  },
  {
    name: "objects merge recursively",
    patch: { spec: { nested: { a: { c: 3, d: 4 }, e: 5 } } },
    want: { ...doc(), spec: { ...doc().spec, nested: { a: { b: 1, c: 3, d: 4 }, e: 5 } } },
  },
  {
    name: "arrays replace wholesale",
    patch: { spec: { list: [9] } },
    want: { ...doc(), spec: { ...doc().spec, list: [9] } },
  },
  {
    name: "an object replaces a scalar, nulls inside it dropped",
    patch: { spec: { replicas: { min: 1, max: null } } },
    want: { ...doc(), spec: { ...doc().spec, replicas: { min: 1 } } },
  },
  {
    name: "a scalar replaces an object",
    patch: { spec: { nested: "flat" } },
    want: { ...doc(), spec: { ...doc().spec, nested: "flat" } },
  },
  {
    name: "deleting a missing member is a no-op",
    patch: { status: null, spec: { nothere: null } },
    want: doc(),
  },
  { name: "empty patch", patch: {}, want: doc() },
];

describe("cloneJson", () => {
  it("copies every level, keeps undefined members and array holes as they are, shares nothing", () => {
    const value = { a: [1, { b: "x" }, null], c: { d: { e: true } }, u: undefined, n: null, s: "s" };
    const copy = cloneJson(value);
    expect(copy).toStrictEqual(value);
    expect(Object.hasOwn(copy, "u")).toBe(true);
    copy.a[1] = { b: "y" };
    copy.c.d.e = false;
    expect(value.a[1]).toEqual({ b: "x" });
    expect(value.c.d.e).toBe(true);
    expect(cloneJson(undefined)).toBeUndefined();
    expect(cloneJson("s")).toBe("s");
  });

  it("copies a __proto__ member as a member, never as the prototype", () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as Record<string, unknown>;
    const copy = cloneJson(value);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, "__proto__")).toBe(true);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
  });
});

describe("applyMergePatch", () => {
  it.each(cases)("$name", ({ patch, want }) => {
    const original = doc();
    expect(applyMergePatch(original, patch)).toEqual(want);
    expect(original).toEqual(doc());
  });

  it("a non-object patch replaces the target (RFC 7386)", () => {
    expect(applyMergePatch({ a: 1 }, [1, 2])).toEqual([1, 2]);
    expect(applyMergePatch({ a: 1 }, "x")).toBe("x");
  });

  it("a non-object target becomes an object", () => {
    expect(applyMergePatch([1], { a: { b: null, c: 1 } })).toEqual({ a: { c: 1 } });
  });

  it("never aliases patch values into the result", () => {
    const patch = { spec: { nested: { x: { y: 1 } } } };
    const result = applyMergePatch(doc(), patch) as { spec: { nested: { x: { y: number } } } };
    result.spec.nested.x.y = 2;
    expect(patch.spec.nested.x.y).toBe(1);
  });

  it("treats __proto__ as a plain member", () => {
    const result = applyMergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}')) as object;
    expect(Object.hasOwn(result, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});

describe.skipIf(!kubectlAvailable)("applyMergePatch against kubectl patch --local --type merge", () => {
  let kubectl: KubectlPatcher;
  beforeAll(async () => {
    kubectl = await kubectlPatcher();
  });
  afterAll(async () => {
    await kubectl?.close();
  });

  it.each(cases)("$name", async ({ patch }) => {
    const expected = await kubectl.patch(doc(), patch, "merge");
    expect(expected.ok).toBe(true);
    if (expected.ok) expect(applyMergePatch(doc(), patch)).toEqual(expected.object);
  });
});
