import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/meta.ts";
import { applyImageOverriders, type ImageOverrider, imagePatches, overrideImage } from "./image.ts";

const IMAGE = "fictional.registry.example/imagename:v1.0.0";
const SHA = "sha256:dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9c";

function podTemplate(kind: string, apiVersion: string, containers: unknown[]): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: { name: "nginx" },
    spec: { replicas: 1, template: { spec: { containers } } },
  };
}
const deployment = (containers: unknown[] = [{ image: IMAGE, name: "nginx" }]) =>
  podTemplate("Deployment", "apps/v1", containers);
const pod = (): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "nginx" },
  spec: { containers: [{ image: IMAGE, name: "nginx" }] },
});
const job = () => podTemplate("Job", "batch/v1", [{ image: "perl:5.34.0", name: "perl" }]);
const twoContainers = () =>
  deployment([
    { image: IMAGE, name: "nginx" },
    { image: "registry.k8s.io/nginx-slim:0.8", name: "nginx" },
  ]);
const TEMPLATE_IMAGE_0 = "/spec/template/spec/containers/0/image";

// upstream's TestParseJSONPatchesByImageOverrider, case by case
describe("imagePatches (upstream's TestParseJSONPatchesByImageOverrider)", () => {
  it.each<{ name: string; object: KubeObject; overrider: ImageOverrider; want: Array<[string, string]> }>([
    {
      name: "Job, Registry add, no predicate",
      object: job(),
      overrider: { component: "Registry", operator: "add", value: "registry.k8s.io" },
      want: [[TEMPLATE_IMAGE_0, "registry.k8s.io/perl:5.34.0"]],
    },
    {
      name: "Job, Registry add, predicate",
      object: job(),
      overrider: {
        predicate: { path: TEMPLATE_IMAGE_0 },
        component: "Registry",
        operator: "add",
        value: "registry.k8s.io",
      },
      want: [[TEMPLATE_IMAGE_0, "registry.k8s.io/perl:5.34.0"]],
    },
    {
      name: "Deployment, Registry add",
      object: deployment(),
      overrider: { component: "Registry", operator: "add", value: ".test" },
      want: [[TEMPLATE_IMAGE_0, "fictional.registry.example.test/imagename:v1.0.0"]],
    },
    {
      name: "Deployment, Registry replace",
      object: deployment(),
      overrider: { component: "Registry", operator: "replace", value: "fictional.registry.us" },
      want: [[TEMPLATE_IMAGE_0, "fictional.registry.us/imagename:v1.0.0"]],
    },
    {
      name: "Deployment, Registry remove",
      object: deployment(),
      overrider: { component: "Registry", operator: "remove", value: "fictional.registry.us" },
      want: [[TEMPLATE_IMAGE_0, "imagename:v1.0.0"]],
    },
    {
      name: "Deployment, Repository add",
      object: deployment(),
      overrider: { component: "Repository", operator: "add", value: "/nginx" },
      want: [[TEMPLATE_IMAGE_0, "fictional.registry.example/imagename/nginx:v1.0.0"]],
    },
    {
      name: "Deployment, Repository replace",
      object: deployment(),
      overrider: { component: "Repository", operator: "replace", value: "nginx" },
      want: [[TEMPLATE_IMAGE_0, "fictional.registry.example/nginx:v1.0.0"]],
    },
    {
      name: "Deployment, Repository remove",
      object: deployment(),
      overrider: { component: "Repository", operator: "remove", value: "nginx" },
      want: [[TEMPLATE_IMAGE_0, "fictional.registry.example/:v1.0.0"]],
    },
    {
      name: "Deployment, Tag add: the concatenation is neither a tag nor a digest",
      object: deployment(),
      overrider: { component: "Tag", operator: "add", value: SHA },
      want: [[TEMPLATE_IMAGE_0, IMAGE]],
    },
    {
      name: "Deployment, Tag replace with a digest",
      object: deployment(),
      overrider: { component: "Tag", operator: "replace", value: SHA },
      want: [[TEMPLATE_IMAGE_0, `fictional.registry.example/imagename@${SHA}`]],
    },
    {
      name: "Deployment, Tag remove",
      object: deployment(),
      overrider: { component: "Tag", operator: "remove", value: SHA },
      want: [[TEMPLATE_IMAGE_0, "fictional.registry.example/imagename"]],
    },
    {
      name: "Pod",
      object: pod(),
      overrider: { component: "Repository", operator: "replace", value: "nginx" },
      want: [["/spec/containers/0/image", "fictional.registry.example/nginx:v1.0.0"]],
    },
    ...["StatefulSet", "ReplicaSet", "DaemonSet"].map((kind) => ({
      name: kind,
      object: podTemplate(kind, "apps/v1", [{ image: IMAGE, name: "nginx" }]),
      overrider: { component: "Repository", operator: "replace", value: "nginx" } as ImageOverrider,
      want: [[TEMPLATE_IMAGE_0, "fictional.registry.example/nginx:v1.0.0"]] as Array<[string, string]>,
    })),
    {
      name: "every container without a predicate",
      object: twoContainers(),
      overrider: { component: "Repository", operator: "replace", value: "nginx" },
      want: [
        [TEMPLATE_IMAGE_0, "fictional.registry.example/nginx:v1.0.0"],
        ["/spec/template/spec/containers/1/image", "registry.k8s.io/nginx:0.8"],
      ],
    },
    {
      name: "predicate on the first of one container",
      object: deployment(),
      overrider: {
        predicate: { path: TEMPLATE_IMAGE_0 },
        component: "Repository",
        operator: "replace",
        value: "nginx",
      },
      want: [[TEMPLATE_IMAGE_0, "fictional.registry.example/nginx:v1.0.0"]],
    },
    {
      name: "predicate on the second of two containers",
      object: twoContainers(),
      overrider: {
        predicate: { path: "/spec/template/spec/containers/1/image" },
        component: "Repository",
        operator: "replace",
        value: "nginx",
      },
      want: [["/spec/template/spec/containers/1/image", "registry.k8s.io/nginx:0.8"]],
    },
  ])("$name", ({ object, overrider, want }) => {
    expect(imagePatches(object, overrider)).toEqual(
      want.map(([path, value]) => ({ op: "replace", path, value })),
    );
  });
});

describe("imagePatches beyond upstream's table", () => {
  it("leaves initContainers and other kinds alone without a predicate", () => {
    const withInit = deployment([{ image: "a:1", name: "a" }]);
    (withInit.spec as { template: { spec: Record<string, unknown> } }).template.spec.initContainers = [
      { image: "init:1", name: "init" },
    ];
    expect(imagePatches(withInit, { component: "Tag", operator: "replace", value: "2" })).toEqual([
      { op: "replace", path: TEMPLATE_IMAGE_0, value: "a:2" },
    ]);
    const cronJob: KubeObject = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      spec: { jobTemplate: { spec: { template: { spec: { containers: [{ image: "a:1" }] } } } } },
    };
    expect(imagePatches(cronJob, { component: "Tag", operator: "replace", value: "2" })).toEqual([]);
  });

  it("reaches any kind and initContainers through a predicate", () => {
    const cronJob: KubeObject = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      spec: { jobTemplate: { spec: { template: { spec: { initContainers: [{ image: "busybox" }] } } } } },
    };
    const path = "/spec/jobTemplate/spec/template/spec/initContainers/0/image";
    expect(
      imagePatches(cronJob, {
        predicate: { path },
        component: "Registry",
        operator: "replace",
        value: "r.io",
      }),
    ).toEqual([{ op: "replace", path, value: "r.io/busybox" }]);
  });

  it("leaves a workload without containers alone", () => {
    expect(imagePatches(deployment([]), { component: "Tag", operator: "replace", value: "2" })).toEqual([]);
    const bare: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", spec: {} };
    expect(imagePatches(bare, { component: "Tag", operator: "replace", value: "2" })).toEqual([]);
  });

  it.each<{ name: string; object: KubeObject; overrider: ImageOverrider; error: string }>([
    {
      name: "a predicate path that is not a string",
      object: deployment(),
      overrider: { predicate: { path: "/spec/replicas" }, component: "Tag", operator: "remove" },
      error:
        "failed to obtain imageValue with predicate path(/spec/replicas), error: failed to convert path(replicas) to string",
    },
    {
      name: "a predicate path through a scalar",
      object: deployment(),
      overrider: { predicate: { path: "/spec/replicas/x/image" }, component: "Tag", operator: "remove" },
      error:
        "failed to obtain imageValue with predicate path(/spec/replicas/x/image), error: path(replicas) of rawObj's type is not map[string]interface{} and []interface{}",
    },
    {
      name: "a predicate path with a non-numeric list index",
      object: deployment(),
      overrider: {
        predicate: { path: "/spec/template/spec/containers/first/image" },
        component: "Tag",
        operator: "remove",
      },
      error: "error: path(first) of rawObj's is not number",
    },
    {
      name: "a predicate path that is not absolute",
      object: deployment(),
      overrider: {
        predicate: { path: "spec/template/spec/containers/0/image" },
        component: "Tag",
        operator: "remove",
      },
      error: "imagePath should be start with / character",
    },
    {
      name: "an image that does not parse",
      object: deployment([{ image: "Bad/Image", name: "x" }]),
      overrider: { component: "Tag", operator: "remove" },
      error: "failed to parse image value(Bad/Image), error: repository name must be lowercase",
    },
    {
      name: "a container without an image",
      object: deployment([{ name: "x" }]),
      overrider: { component: "Tag", operator: "remove" },
      error: "failed to parse image value(), error: repository name must have at least one component",
    },
  ])("fails on $name", ({ object, overrider, error }) => {
    expect(() => imagePatches(object, overrider)).toThrow(error);
  });
});

describe("overrideImage", () => {
  it.each<[string, ImageOverrider, string]>([
    ["nginx", { component: "Registry", operator: "add", value: "docker.io" }, "docker.io/nginx"],
    ["localhost:5000/a/b:1", { component: "Registry", operator: "replace", value: "r.io" }, "r.io/a/b:1"],
    ["a/b", { component: "Repository", operator: "add", value: "-mirror" }, "a/b-mirror"],
    [`nginx@${SHA}`, { component: "Tag", operator: "add", value: "0" }, `nginx@${SHA}0`],
    [`nginx@${SHA}`, { component: "Tag", operator: "remove" }, "nginx"],
    [`nginx@${SHA}`, { component: "Tag", operator: "replace", value: "1.0" }, "nginx:1.0"],
    ["nginx:1.0", { component: "Tag", operator: "add", value: "-alpine" }, "nginx:1.0-alpine"],
    ["nginx:1.0", { component: "Tag", operator: "replace", value: "bad tag" }, "nginx:1.0"],
    [`nginx:1.0@${SHA}`, { component: "Registry", operator: "add", value: "" }, "nginx:1.0"],
  ])("%s with %j -> %s", (image, overrider, want) => {
    expect(overrideImage(image, overrider)).toBe(want);
  });

  it("refuses an unknown component", () => {
    expect(() => overrideImage("nginx", { component: "Port" as "Tag", operator: "add" })).toThrow(
      "unsupported image component(Port)",
    );
  });
});

describe("applyImageOverriders", () => {
  it("applies overriders in order to a copy", () => {
    const input = twoContainers();
    const out = applyImageOverriders(input, [
      { component: "Registry", operator: "replace", value: "fictional.registry.us" },
      { component: "Repository", operator: "replace", value: "busybox" },
      { component: "Tag", operator: "replace", value: "1.0" },
      { predicate: { path: TEMPLATE_IMAGE_0 }, component: "Tag", operator: "replace", value: "2.0" },
    ]);
    const containers = (out.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template
      .spec.containers;
    expect(containers.map((c) => c.image)).toEqual([
      "fictional.registry.us/busybox:2.0",
      "fictional.registry.us/busybox:1.0",
    ]);
    expect(input).toEqual(twoContainers());
  });
});
