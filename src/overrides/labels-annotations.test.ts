import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/meta.ts";
import {
  applyLabelAnnotationOverriders,
  type LabelAnnotationOverrider,
  labelAnnotationPatches,
  type MetadataMap,
} from "./labels-annotations.ts";

function deployment(field: MetadataMap, map: Record<string, string> | undefined): KubeObject {
  const metadata: Record<string, unknown> = { name: "test", namespace: "default" };
  if (map) metadata[field] = map;
  return { apiVersion: "apps/v1", kind: "Deployment", metadata, spec: { replicas: 1 } };
}

const FOO_BAR = { foo: "foo", bar: "bar" };

interface Case {
  name: string;
  start?: Record<string, string>;
  overriders: LabelAnnotationOverrider[];
  want: Record<string, string> | undefined;
}

// upstream's Test_applyLabelsOverriders and Test_applyAnnotationsOverriders
const cases: Case[] = [
  {
    name: "add to no map",
    overriders: [{ operator: "add", value: { test2: "test2" } }],
    want: { test2: "test2" },
  },
  {
    name: "replace changes only existing keys",
    start: FOO_BAR,
    overriders: [{ operator: "replace", value: { foo: "exist", "non-exist": "non-exist" } }],
    want: { foo: "exist", bar: "bar" },
  },
  {
    name: "add",
    start: FOO_BAR,
    overriders: [{ operator: "add", value: { test: "test" } }],
    want: { test: "test", foo: "foo", bar: "bar" },
  },
  {
    name: "remove deletes existing keys whatever the value",
    start: FOO_BAR,
    overriders: [{ operator: "remove", value: { foo: "other", "non-exist": "non-exist" } }],
    want: { bar: "bar" },
  },
  { name: "remove nothing", start: FOO_BAR, overriders: [{ operator: "remove", value: {} }], want: FOO_BAR },
  {
    name: "replace of a missing key",
    start: FOO_BAR,
    overriders: [{ operator: "replace", value: { test: "test" } }],
    want: FOO_BAR,
  },
  {
    name: "remove of a missing key",
    start: FOO_BAR,
    overriders: [{ operator: "remove", value: { test: "test" } }],
    want: FOO_BAR,
  },
  {
    name: "add a key with a slash",
    start: FOO_BAR,
    overriders: [{ operator: "add", value: { "testannotation/projectId": "c-m-lfx9lk92:p-v86cf" } }],
    want: { foo: "foo", bar: "bar", "testannotation/projectId": "c-m-lfx9lk92:p-v86cf" },
  },
  {
    name: "remove a key with a slash",
    start: { "testannotation/projectId": "c-m-lfx9lk92:p-v86cf", foo: "foo" },
    overriders: [{ operator: "remove", value: { "testannotation/projectId": "c-m-lfx9lk92:p-v86cf" } }],
    want: { foo: "foo" },
  },
  // beyond upstream's tables
  { name: "replace with no map", overriders: [{ operator: "replace", value: { a: "1" } }], want: undefined },
  { name: "remove with no map", overriders: [{ operator: "remove", value: { a: "1" } }], want: undefined },
  { name: "add nothing to no map", overriders: [{ operator: "add", value: {} }], want: undefined },
  { name: "add without a value", overriders: [{ operator: "add" }], want: undefined },
  {
    name: "add overwrites an existing value",
    start: FOO_BAR,
    overriders: [{ operator: "add", value: { foo: "new" } }],
    want: { foo: "new", bar: "bar" },
  },
  {
    name: "overriders apply in order",
    start: FOO_BAR,
    overriders: [
      { operator: "add", value: { env: "prod" } },
      { operator: "replace", value: { env: "stage", missing: "x" } },
      { operator: "remove", value: { foo: "" } },
    ],
    want: { bar: "bar", env: "stage" },
  },
];

describe.each(["labels", "annotations"] as const)("%s overriders", (field) => {
  it.each(cases)("$name", ({ start, overriders, want }) => {
    const input = deployment(field, start);
    const out = applyLabelAnnotationOverriders(field, input, overriders);
    expect(out.metadata?.[field]).toEqual(want);
    expect(input).toEqual(deployment(field, start));
  });

  it("sets keys with a / and hands back a copy that shares nothing with the input", () => {
    const input = deployment(field, FOO_BAR);
    const out = applyLabelAnnotationOverriders(field, input, [
      { operator: "add", value: { "example.com/team": "a" } },
      { operator: "remove", value: { foo: "" } },
    ]);
    expect(out.metadata?.[field]).toEqual({ bar: "bar", "example.com/team": "a" });
    (out.spec as { replicas: number }).replicas = 5;
    expect(input).toEqual(deployment(field, FOO_BAR));
  });
});

describe("labelAnnotationPatches", () => {
  it("escapes / in keys and creates the map before adding", () => {
    const { object, patches } = labelAnnotationPatches({ apiVersion: "v1", kind: "Pod" }, "annotations", {
      operator: "add",
      value: { "example.com/team": "a", plain: "b" },
    });
    expect(object.metadata).toEqual({ annotations: {} });
    expect(patches).toEqual([
      { op: "add", path: "/metadata/annotations/example.com~1team", value: "a" },
      { op: "add", path: "/metadata/annotations/plain", value: "b" },
    ]);
  });

  it("treats a map with non-string values as missing", () => {
    const odd = { apiVersion: "v1", kind: "Pod", metadata: { labels: { a: 1 } } } as unknown as KubeObject;
    expect(labelAnnotationPatches(odd, "labels", { operator: "remove", value: { a: "" } }).patches).toEqual(
      [],
    );
  });
});
