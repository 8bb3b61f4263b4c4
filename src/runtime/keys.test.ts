import { describe, expect, it } from "vitest";
import { objectKey, objectKeys, parseObjectKey, tupleKey } from "./keys.ts";

describe("object keys", () => {
  it.each([
    [{ namespace: "default", name: "web" }, "default/web"],
    [{ namespace: undefined, name: "member1" }, "member1"],
  ])("%j is %s and back", (ref, key) => {
    expect(objectKeys.encode(ref)).toBe(key);
    expect(parseObjectKey(key)).toEqual(ref);
  });

  it("keys an object by its metadata", () => {
    expect(objectKey({ metadata: { namespace: "ns", name: "a" } })).toBe("ns/a");
    expect(objectKey({ metadata: { name: "a" } })).toBe("a");
  });

  it("keeps what follows the first slash in the name", () => {
    expect(parseObjectKey("ns/a/b")).toEqual({ namespace: "ns", name: "a/b" });
  });
});

describe("tuple keys", () => {
  const k = tupleKey(["cluster", "apiVersion", "kind"]);

  it("round-trips parts holding separators, and absent parts", () => {
    const key = { cluster: "m/1", apiVersion: "apps/v1", kind: undefined };
    expect(k.parse(k.encode(key))).toEqual(key);
  });

  it("encodes equal tuples alike whatever the property order", () => {
    expect(k.encode({ kind: "Deployment", cluster: "m1", apiVersion: "apps/v1" })).toBe(
      k.encode({ cluster: "m1", apiVersion: "apps/v1", kind: "Deployment" }),
    );
  });

  it("refuses a key of another kind", () => {
    expect(() => k.parse('["m1"]')).toThrow(/not a key of \[cluster, apiVersion, kind\]/);
  });
});
