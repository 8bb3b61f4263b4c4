import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyJsonPatch,
  decodeJsonPatch,
  JsonPatchApplyError,
  JsonPatchDecodeError,
  JsonPatchTooLargeError,
  MAX_JSON_PATCH_OPERATIONS,
} from "./json-patch.ts";
import { type KubectlPatcher, kubectlAvailable, kubectlPatcher } from "./strategic-merge-patch.kubectl.ts";

const doc = () => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cm", labels: { app: "web", "a/b": "slash", "t~x": "tilde" }, finalizers: ["a", "b"] },
  data: { k: "v", empty: "" },
});

type Outcome = { result: unknown } | { error: string };

interface Case {
  name: string;
  patch: unknown[];
  want: Outcome;
}

const cases: Case[] = [
  {
    name: "add a member",
    patch: [{ op: "add", path: "/data/n", value: "1" }],
    want: { result: { ...doc(), data: { k: "v", empty: "", n: "1" } } },
  },
  {
    name: "add replaces an existing member",
    patch: [{ op: "add", path: "/data/k", value: { nested: true } }],
    want: { result: { ...doc(), data: { k: { nested: true }, empty: "" } } },
  },
  {
    name: "add into an array, append with -",
    patch: [
      { op: "add", path: "/metadata/finalizers/1", value: "x" },
      { op: "add", path: "/metadata/finalizers/-", value: "z" },
    ],
    want: { result: { ...doc(), metadata: { ...doc().metadata, finalizers: ["a", "x", "b", "z"] } } },
  },
  {
    name: "add at index == length appends",
    patch: [{ op: "add", path: "/metadata/finalizers/2", value: "c" }],
    want: { result: { ...doc(), metadata: { ...doc().metadata, finalizers: ["a", "b", "c"] } } },
  },
  {
    name: "negative index counts from the end (v4)",
    patch: [{ op: "remove", path: "/metadata/finalizers/-1" }],
    want: { result: { ...doc(), metadata: { ...doc().metadata, finalizers: ["a"] } } },
  },
  {
    name: "escaped pointer tokens ~1 and ~0",
    patch: [
      { op: "replace", path: "/metadata/labels/a~1b", value: "s2" },
      { op: "remove", path: "/metadata/labels/t~0x" },
    ],
    want: { result: { ...doc(), metadata: { ...doc().metadata, labels: { app: "web", "a/b": "s2" } } } },
  },
  {
    name: "remove a member",
    patch: [{ op: "remove", path: "/data/k" }],
    want: { result: { ...doc(), data: { empty: "" } } },
  },
  {
    name: "replace a member",
    patch: [{ op: "replace", path: "/data/k", value: "w" }],
    want: { result: { ...doc(), data: { k: "w", empty: "" } } },
  },
  {
    name: "replace of a missing member of an existing object adds it (v4)",
    patch: [{ op: "replace", path: "/data/new", value: "w" }],
    want: { result: { ...doc(), data: { k: "v", empty: "", new: "w" } } },
  },
  {
    name: "move and copy",
    patch: [
      { op: "move", from: "/data/k", path: "/metadata/labels/moved" },
      { op: "copy", from: "/metadata/finalizers", path: "/data/list" },
    ],
    want: {
      result: {
        ...doc(),
        metadata: { ...doc().metadata, labels: { ...doc().metadata.labels, moved: "v" } },
        data: { empty: "", list: ["a", "b"] },
      },
    },
  },
  {
    name: "copy from a missing member copies null (v4)",
    patch: [{ op: "copy", from: "/data/nothere", path: "/data/x" }],
    want: { result: { ...doc(), data: { k: "v", empty: "", x: null } } },
  },
  {
    name: "test passes, then the rest applies",
    patch: [
      { op: "test", path: "/metadata/finalizers", value: ["a", "b"] },
      { op: "test", path: "/data/nothere", value: null },
      { op: "add", path: "/data/ok", value: true },
    ],
    want: { result: { ...doc(), data: { k: "v", empty: "", ok: true } } },
  },
  {
    name: "replace the whole document",
    patch: [
      {
        op: "replace",
        path: "",
        value: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "other" } },
      },
    ],
    want: { result: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "other" } } },
  },
  {
    name: "failed test",
    patch: [{ op: "test", path: "/data/k", value: "nope" }],
    want: { error: "testing value /data/k failed: test failed" },
  },
  {
    name: "test against a missing member",
    patch: [{ op: "test", path: "/data/nothere", value: "x" }],
    want: { error: "testing value /data/nothere failed: test failed" },
  },
  {
    name: "remove of a missing member",
    patch: [{ op: "remove", path: "/data/nothere" }],
    want: {
      error:
        "error in remove for path: '/data/nothere': Unable to remove nonexistent key: nothere: missing value",
    },
  },
  {
    name: "remove under a missing parent",
    patch: [{ op: "remove", path: "/spec/x" }],
    want: { error: 'remove operation does not apply: doc is missing path: "/spec/x": missing value' },
  },
  {
    name: "add under a missing parent",
    patch: [{ op: "add", path: "/spec/replicas", value: 1 }],
    want: { error: 'add operation does not apply: doc is missing path: "/spec/replicas": missing value' },
  },
  {
    name: "replace under a missing parent",
    patch: [{ op: "replace", path: "/spec/replicas", value: 1 }],
    want: { error: "replace operation does not apply: doc is missing path: /spec/replicas: missing value" },
  },
  {
    name: "add at an index past the end",
    patch: [{ op: "add", path: "/metadata/finalizers/5", value: "x" }],
    want: {
      error:
        "error in add for path: '/metadata/finalizers/5': Unable to access invalid index: 5: invalid index referenced",
    },
  },
  {
    name: "add at a non-numeric index",
    patch: [{ op: "add", path: "/metadata/finalizers/x", value: "x" }],
    want: {
      error:
        "error in add for path: '/metadata/finalizers/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax",
    },
  },
  {
    name: "remove at an index past the end",
    patch: [{ op: "remove", path: "/metadata/finalizers/2" }],
    want: {
      error:
        "error in remove for path: '/metadata/finalizers/2': Unable to access invalid index: 2: invalid index referenced",
    },
  },
  {
    name: "remove with -",
    patch: [{ op: "remove", path: "/metadata/finalizers/-" }],
    want: {
      error:
        "error in remove for path: '/metadata/finalizers/-': strconv.Atoi: parsing \"-\": invalid syntax",
    },
  },
  {
    name: "move from a missing member",
    patch: [{ op: "move", from: "/data/nothere", path: "/data/x" }],
    want: {
      error: "error in move for path: 'nothere': Unable to remove nonexistent key: nothere: missing value",
    },
  },
  {
    name: "move into its own child",
    patch: [{ op: "move", from: "/metadata", path: "/metadata/x" }],
    want: {
      error: "move operation does not apply: doc is missing destination path: /metadata/x: missing value",
    },
  },
  {
    name: "copy to a missing parent",
    patch: [{ op: "copy", from: "/data", path: "/spec/data" }],
    want: {
      error: "copy operation does not apply: doc is missing destination path: /spec/data: missing value",
    },
  },
  {
    name: "a failing operation leaves no partial result",
    patch: [
      { op: "add", path: "/data/first", value: 1 },
      { op: "remove", path: "/data/nothere" },
    ],
    want: {
      error:
        "error in remove for path: '/data/nothere': Unable to remove nonexistent key: nothere: missing value",
    },
  },
];

/** Failures kubectl reports with its own wording (it rewrites "doc is missing key"). */
const ownWording: Case[] = [
  {
    name: "replace at an index past the end",
    patch: [{ op: "replace", path: "/metadata/finalizers/2", value: "x" }],
    want: {
      error: "replace operation does not apply: doc is missing key: /metadata/finalizers/2: missing value",
    },
  },
  {
    name: "add at the root",
    patch: [{ op: "add", path: "", value: {} }],
    want: { error: 'add operation does not apply: doc is missing path: "": missing value' },
  },
  {
    name: "a path without a leading slash",
    patch: [{ op: "add", path: "data/x", value: 1 }],
    want: { error: 'add operation does not apply: doc is missing path: "data/x": missing value' },
  },
  {
    name: "replace the document with a scalar",
    patch: [{ op: "replace", path: "", value: 3 }],
    want: { error: "replace operation value must be object or array" },
  },
];

function outcome(patch: unknown[]): Outcome {
  try {
    return { result: applyJsonPatch(doc(), patch) };
  } catch (err) {
    expect(err).toBeInstanceOf(JsonPatchApplyError);
    expect((err as JsonPatchApplyError).code).toBe(422);
    return { error: (err as Error).message };
  }
}

describe("applyJsonPatch", () => {
  it.each([...cases, ...ownWording])("$name", (c) => {
    expect(outcome(c.patch)).toEqual(c.want);
  });

  it("does not modify its inputs", () => {
    const original = doc();
    const patch = [{ op: "add", path: "/data/obj", value: { a: 1 } }];
    const result = applyJsonPatch(original, patch) as { data: { obj: { a: number } } };
    result.data.obj.a = 2;
    expect(original).toEqual(doc());
    expect(patch[0]?.value).toEqual({ a: 1 });
  });

  it("limits what copy operations add in all, as evanphx/json-patch's AccumulatedCopySizeLimit", () => {
    const doc = { a: ["x".repeat(49)] };
    const copy = { op: "copy", from: "/a/0", path: "/a/-" };
    // Each copy adds the 51 characters of the quoted string.
    expect(applyJsonPatch(doc, [copy, copy], 102)).toEqual({ a: Array(3).fill("x".repeat(49)) });
    expect(() => applyJsonPatch(doc, [copy, copy, copy], 102)).toThrow(
      new JsonPatchApplyError(
        "Unable to complete the copy, the accumulated size increase of copy is 153, exceeding the limit 102",
      ),
    );
  });

  it("treats __proto__ as a plain member", () => {
    const result = applyJsonPatch({}, [
      { op: "add", path: "/__proto__", value: { polluted: true } },
    ]) as object;
    expect(Object.hasOwn(result, "__proto__")).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});

describe("decodeJsonPatch", () => {
  const bad: Array<{ name: string; patch: unknown; message: string }> = [
    {
      name: "not an array",
      patch: { op: "add" },
      message: "json: cannot unmarshal object into Go value of type jsonpatch.Patch",
    },
    {
      name: "element not an object",
      patch: ["x"],
      message: "json: cannot unmarshal string into Go value of type jsonpatch.Operation",
    },
    {
      name: "missing op",
      patch: [{ path: "/a" }],
      message: 'invalid JSON patch operation 0: "op" must be a string',
    },
    { name: "unknown op", patch: [{ op: "frob", path: "/a" }], message: 'unknown "op" "frob"' },
    { name: "missing path", patch: [{ op: "remove" }], message: '"path" must be a string' },
    { name: "add without value", patch: [{ op: "add", path: "/a" }], message: '"add" needs a "value"' },
    {
      name: "move without from",
      patch: [{ op: "move", path: "/a" }],
      message: '"move" needs a string "from"',
    },
  ];

  it.each(bad)("rejects $name with a 400-class error", ({ patch, message }) => {
    expect(() => applyJsonPatch(doc(), patch)).toThrow(JsonPatchDecodeError);
    expect(() => applyJsonPatch(doc(), patch)).toThrow(message);
  });

  it("accepts an empty patch", () => {
    expect(applyJsonPatch(doc(), [])).toEqual(doc());
  });

  it(`allows ${MAX_JSON_PATCH_OPERATIONS} operations and refuses one more with a 413-class error`, () => {
    const op = { op: "test", path: "/kind", value: "ConfigMap" };
    expect(decodeJsonPatch(Array(MAX_JSON_PATCH_OPERATIONS).fill(op))).toHaveLength(
      MAX_JSON_PATCH_OPERATIONS,
    );
    const tooMany = Array(MAX_JSON_PATCH_OPERATIONS + 1).fill(op);
    expect(() => applyJsonPatch(doc(), tooMany)).toThrow(JsonPatchTooLargeError);
    expect(() => applyJsonPatch(doc(), tooMany)).toThrow(
      "The allowed maximum operations in a JSON patch is 10000, got 10001",
    );
  });
});

describe.skipIf(!kubectlAvailable)("applyJsonPatch against kubectl patch --local --type json", () => {
  let kubectl: KubectlPatcher;
  beforeAll(async () => {
    kubectl = await kubectlPatcher();
  });
  afterAll(async () => {
    await kubectl?.close();
  });

  it.each(cases)("$name", async (c) => {
    const expected = await kubectl.patch(doc(), c.patch, "json");
    expect(outcome(c.patch)).toEqual(expected.ok ? { result: expected.object } : { error: expected.error });
  });
});
