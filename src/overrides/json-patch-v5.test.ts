import { describe, expect, it } from "vitest";
import { applyJsonPatchToObject, applyJsonPatchV5, type PatchOperation } from "./json-patch-v5.ts";

interface Case {
  name: string;
  doc: string;
  patch: PatchOperation[];
  want?: string;
  error?: string;
}

// Expected texts and messages follow evanphx/json-patch v5 (its own tests where they exist:
// TestMaintainOrdering, BadCases).
const cases: Case[] = [
  {
    name: "add appends a new member last (TestMaintainOrdering)",
    doc: '{"z":"1","a":["baz"],"y":3,"b":true,"x":null}',
    patch: [{ op: "add", path: "/foo", value: "bar" }],
    want: '{"z":"1","a":["baz"],"y":3,"b":true,"x":null,"foo":"bar"}',
  },
  {
    name: "remove keeps the order of the others (TestMaintainOrdering)",
    doc: '{"z":"1","a":["baz"],"y":3,"b":true,"x":null}',
    patch: [{ op: "remove", path: "/y" }],
    want: '{"z":"1","a":["baz"],"b":true,"x":null}',
  },
  {
    name: "replace keeps the member's position; the value is marshalled with sorted keys",
    doc: '{"z":"1","b":true,"x":null}',
    patch: [{ op: "replace", path: "/b", value: { zz: 1, aa: "foo" } }],
    want: '{"z":"1","b":{"aa":"foo","zz":1},"x":null}',
  },
  {
    name: "add on an existing member replaces it in place",
    doc: '{"a":1,"b":2}',
    patch: [{ op: "add", path: "/a", value: 3 }],
    want: '{"a":3,"b":2}',
  },
  {
    name: "values the patch does not reach keep their spelling",
    doc: '{"a": 1.50, "b": "\\u00e9\\/", "c": 12345678901234567890, "d": 1E3}',
    patch: [{ op: "add", path: "/e", value: 1 }],
    want: '{"a":1.50,"b":"\\u00e9\\/","c":12345678901234567890,"d":1E3,"e":1}',
  },
  {
    name: "output is compact and HTML-escaped",
    doc: '{\n\t"a" : "<b>",\n\t"n" : { "k" : [ 1 , 2 ] }\n}',
    patch: [{ op: "replace", path: "/n/k/0", value: "&" }],
    want: '{"a":"\\u003cb\\u003e","n":{"k":["\\u0026",2]}}',
  },
  {
    name: "keys of objects the patch walks through are re-encoded the fork's way",
    doc: '{"\\u0062\\b":{"x":1}}',
    patch: [{ op: "add", path: "/b\b/y", value: 2 }],
    want: '{"b\\u0008":{"x":1,"y":2}}',
  },
  {
    name: "array: add at an index inserts",
    doc: '{ "foo": [ "bar", "baz" ] }',
    patch: [{ op: "add", path: "/foo/1", value: "qux" }],
    want: '{"foo":["bar","qux","baz"]}',
  },
  {
    name: "array: add at -1 appends",
    doc: '{ "foo": [ "bar", "baz" ] }',
    patch: [{ op: "add", path: "/foo/-1", value: "qux" }],
    want: '{"foo":["bar","baz","qux"]}',
  },
  {
    name: "array: add at - appends",
    doc: '{"foo":[]}',
    patch: [{ op: "add", path: "/foo/-", value: { b: 1, a: 2 } }],
    want: '{"foo":[{"a":2,"b":1}]}',
  },
  {
    name: "array: negative indexes count from the end",
    doc: '{"foo":["a","b","c"]}',
    patch: [
      { op: "replace", path: "/foo/-1", value: "z" },
      { op: "remove", path: "/foo/-3" },
    ],
    want: '{"foo":["b","z"]}',
  },
  {
    name: "~1 and ~0 in a path",
    doc: '{"a/b":{"c~d":1}}',
    patch: [{ op: "replace", path: "/a~1b/c~0d", value: 2 }],
    want: '{"a/b":{"c~d":2}}',
  },
  {
    name: "a path without a leading slash loses its first segment",
    doc: '{"spec":{"replicas":1},"replicas":1}',
    patch: [{ op: "replace", path: "spec/replicas", value: 3 }],
    want: '{"spec":{"replicas":1},"replicas":3}',
  },
  {
    name: "replace of a null member works",
    doc: '{"a":null}',
    patch: [{ op: "replace", path: "/a", value: [1] }],
    want: '{"a":[1]}',
  },
  {
    name: "a missing value is null",
    doc: '{"a":1}',
    patch: [{ op: "add", path: "/b" }],
    want: '{"a":1,"b":null}',
  },
  {
    name: "replace of the whole document",
    doc: '{"a":1}',
    patch: [{ op: "replace", path: "", value: { b: 2 } }],
    want: '{"b":2}',
  },
  {
    name: "add of the whole document",
    doc: '{"a":1}',
    patch: [{ op: "add", path: "", value: [1, 2] }],
    want: "[1,2]",
  },
  {
    name: "a root array",
    doc: "[1,2]",
    patch: [{ op: "add", path: "/0", value: 0 }],
    want: "[0,1,2]",
  },
  {
    name: "an empty document is returned as is",
    doc: "",
    patch: [{ op: "add", path: "/a", value: 1 }],
    want: "",
  },
  { name: "no operations still compacts", doc: '{ "a" : 1 }', patch: [], want: '{"a":1}' },
  {
    name: "add under a missing parent (BadCases)",
    doc: '{ "foo": "bar" }',
    patch: [{ op: "add", path: "/baz/bat", value: "qux" }],
    error: 'add operation does not apply: doc is missing path: "/baz/bat": missing value',
  },
  {
    name: "remove of a missing member (BadCases)",
    doc: '{ "a": { "b": { "d": 1 } } }',
    patch: [{ op: "remove", path: "/a/b/c" }],
    error: "error in remove for path: '/a/b/c': unable to remove nonexistent key: c: missing value",
  },
  {
    name: "remove past the end of an array (BadCases)",
    doc: '{ "a": { "b": [1] } }',
    patch: [{ op: "remove", path: "/a/b/1" }],
    error: "error in remove for path: '/a/b/1': Unable to access invalid index: 1: invalid index referenced",
  },
  {
    name: "remove of - (BadCases)",
    doc: '{ "foo": []}',
    patch: [{ op: "remove", path: "/foo/-" }],
    error: `error in remove for path: '/foo/-': strconv.Atoi: parsing "-": invalid syntax`,
  },
  {
    name: "remove at -2 of a one-element array (BadCases)",
    doc: '{ "foo": ["bar"]}',
    patch: [{ op: "remove", path: "/foo/-2" }],
    error:
      "error in remove for path: '/foo/-2': Unable to access invalid index: -2: invalid index referenced",
  },
  {
    name: "replace past the end of an array (BadCases)",
    doc: '{ "foo": ["bar","baz"]}',
    patch: [{ op: "replace", path: "/foo/2", value: "bum" }],
    error: "replace operation does not apply: doc is missing key: /foo/2: missing value",
  },
  {
    name: "add at -4 of a two-element array (BadCases)",
    doc: '{ "foo": ["bar","baz"]}',
    patch: [{ op: "add", path: "/foo/-4", value: "bum" }],
    error: "error in add for path: '/foo/-4': Unable to access invalid index: -4: invalid index referenced",
  },
  {
    name: "add past the end of an array (BadCases)",
    doc: '{ "foo": ["bar"]}',
    patch: [{ op: "add", path: "/foo/2", value: "bum" }],
    error: "error in add for path: '/foo/2': Unable to access invalid index: 2: invalid index referenced",
  },
  {
    name: "add at a non-numeric array index",
    doc: '{ "foo": ["bar"]}',
    patch: [{ op: "add", path: "/foo/x", value: "bum" }],
    error: `error in add for path: '/foo/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
  },
  {
    name: "replace of a missing member fails, unlike v4 (BadCases)",
    doc: '{ "baz": "qux" }',
    patch: [{ op: "replace", path: "/foo", value: "bar" }],
    error: "replace operation does not apply: doc is missing key: /foo: missing value",
  },
  {
    name: "replace under a missing parent (BadCases)",
    doc: '{ "name":{ "foo": "bat", "qux": "bum"}}',
    patch: [{ op: "replace", path: "/foo/bar", value: "baz" }],
    error: "replace operation does not apply: doc is missing path: /foo/bar: missing value",
  },
  {
    name: "a null member has no children (BadCases)",
    doc: '{ "foo": {"bar": []}}',
    patch: [
      { op: "replace", path: "/foo/bar", value: null },
      { op: "add", path: "/foo/bar/0", value: "blah" },
    ],
    error: 'add operation does not apply: doc is missing path: "/foo/bar/0": missing value',
  },
  {
    name: "a scalar has no children",
    doc: '{"a":"text"}',
    patch: [{ op: "add", path: "/a/b", value: 1 }],
    error: 'add operation does not apply: doc is missing path: "/a/b": missing value',
  },
  {
    name: "a failing operation aborts the whole patch",
    doc: '{"a":1}',
    patch: [
      { op: "add", path: "/b", value: 2 },
      { op: "remove", path: "/c" },
    ],
    error: "error in remove for path: '/c': unable to remove nonexistent key: c: missing value",
  },
  {
    name: "replace of the whole document by a scalar",
    doc: '{"a":1}',
    patch: [{ op: "replace", path: "", value: 1 }],
    error: "replace operation value must be object or array: %!w(<nil>)",
  },
  {
    name: "an operator the API does not allow",
    doc: '{"a":1}',
    patch: [{ op: "move", path: "/b" }],
    error: 'invalid operation {"op":"move","path":"/b","value":null}: unsupported operation',
  },
  { name: "a document that is not JSON", doc: "{a:1}", patch: [], error: "invalid state detected" },
  {
    name: "a document that is a scalar",
    doc: '"text"',
    patch: [],
    error: "json: cannot unmarshal string into Go value of type map[string]*jsonpatch.lazyNode",
  },
  { name: "a null document", doc: "null", patch: [], error: "invalid value, expected object" },
];

describe("applyJsonPatchV5", () => {
  it.each(cases)("$name", ({ doc, patch, want, error }) => {
    if (error !== undefined) expect(() => applyJsonPatchV5(doc, patch)).toThrow(error);
    else expect(applyJsonPatchV5(doc, patch)).toBe(want);
  });
});

describe("applyJsonPatchToObject", () => {
  it("patches a copy and leaves the input alone", () => {
    const input = { metadata: { name: "a", labels: { x: "1" } }, spec: { replicas: 1 } };
    const out = applyJsonPatchToObject(input, [
      { op: "replace", path: "/spec/replicas", value: 2 },
      { op: "add", path: "/metadata/labels/y", value: "2" },
    ]);
    expect(out).toEqual({ metadata: { name: "a", labels: { x: "1", y: "2" } }, spec: { replicas: 2 } });
    expect(input).toEqual({ metadata: { name: "a", labels: { x: "1" } }, spec: { replicas: 1 } });
  });
});
