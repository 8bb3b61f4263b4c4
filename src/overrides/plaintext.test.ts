import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/meta.ts";
import { applyPlaintextOverriders, type PlaintextOverrider, plaintextPatch } from "./plaintext.ts";

const deployment = (): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "nginx", namespace: "default", labels: { app: "nginx" } },
  spec: { replicas: 1, template: { spec: { containers: [{ name: "nginx", image: "nginx" }] } } },
});

describe("applyPlaintextOverriders", () => {
  it.each<{ name: string; overriders: PlaintextOverrider[]; want: (d: KubeObject) => void }>([
    {
      name: "replace",
      overriders: [{ path: "/spec/replicas", operator: "replace", value: 3 }],
      want: (d) => {
        (d.spec as { replicas: number }).replicas = 3;
      },
    },
    {
      name: "add a map (upstream's guestbook sample)",
      overriders: [{ path: "/metadata/annotations", operator: "add", value: { OverridePolicy: "test" } }],
      want: (d) => {
        d.metadata!.annotations = { OverridePolicy: "test" };
      },
    },
    {
      name: "remove",
      overriders: [{ path: "/metadata/labels/app", operator: "remove" }],
      want: (d) => {
        d.metadata!.labels = {};
      },
    },
    {
      name: "add without a value adds null",
      overriders: [{ path: "/spec/paused", operator: "add" }],
      want: (d) => {
        (d.spec as Record<string, unknown>).paused = null;
      },
    },
    {
      name: "items apply in order as one patch",
      overriders: [
        {
          path: "/spec/template/spec/containers/-",
          operator: "add",
          value: { name: "sidecar", image: "busybox" },
        },
        { path: "/spec/template/spec/containers/0/image", operator: "replace", value: "nginx:1.25" },
      ],
      want: (d) => {
        (d.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers = [
          { name: "nginx", image: "nginx:1.25" },
          { name: "sidecar", image: "busybox" },
        ];
      },
    },
  ])("$name", ({ overriders, want }) => {
    const input = deployment();
    const expected = deployment();
    want(expected);
    expect(applyPlaintextOverriders(input, overriders)).toEqual(expected);
    expect(input).toEqual(deployment());
  });

  it.each<{ name: string; overriders: PlaintextOverrider[]; error: string }>([
    {
      name: "replace of a missing field",
      overriders: [{ path: "/spec/paused", operator: "replace", value: true }],
      error: "replace operation does not apply: doc is missing key: /spec/paused: missing value",
    },
    {
      name: "add under a missing parent",
      overriders: [{ path: "/metadata/annotations/a", operator: "add", value: "b" }],
      error: 'add operation does not apply: doc is missing path: "/metadata/annotations/a": missing value',
    },
    {
      name: "remove of a missing field",
      overriders: [
        { path: "/spec/replicas", operator: "replace", value: 2 },
        { path: "/spec/paused", operator: "remove" },
      ],
      error:
        "error in remove for path: '/spec/paused': unable to remove nonexistent key: paused: missing value",
    },
  ])("fails on $name", ({ overriders, error }) => {
    expect(() => applyPlaintextOverriders(deployment(), overriders)).toThrow(error);
  });

  it("encodes a missing value as null", () => {
    expect(plaintextPatch([{ path: "/a", operator: "remove" }])).toEqual([
      { op: "remove", path: "/a", value: null },
    ]);
  });
});
