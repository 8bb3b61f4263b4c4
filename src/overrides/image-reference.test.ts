import { describe, expect, it } from "vitest";
import {
  formatImageReference,
  parseImageReference,
  splitHostname,
  withoutTagOrDigest,
  withTagOrDigest,
} from "./image-reference.ts";

const SHA = "sha256:50d858e0985ecc7f60418aaf0cc5ab587f42c2570a884095a9e8ccacd0f6545c";

describe("parseImageReference (upstream's imageparser TestParse)", () => {
  it.each([
    { image: "pause", hostname: "", repository: "pause", tag: "", digest: "" },
    {
      image: "subpath/imagename:v1.0.0",
      hostname: "",
      repository: "subpath/imagename",
      tag: "v1.0.0",
      digest: "",
    },
    {
      image: "fictional.registry.example/imagename:v1.0.0",
      hostname: "fictional.registry.example",
      repository: "imagename",
      tag: "v1.0.0",
      digest: "",
    },
    {
      image: "fictional.registry.example:10443/subpath/imagename:v1.0.0",
      hostname: "fictional.registry.example:10443",
      repository: "subpath/imagename",
      tag: "v1.0.0",
      digest: "",
    },
    {
      image: `fictional.registry.example:10443/subpath/imagename@${SHA}`,
      hostname: "fictional.registry.example:10443",
      repository: "subpath/imagename",
      tag: "",
      digest: SHA,
    },
    { image: "localhost/app", hostname: "localhost", repository: "app", tag: "", digest: "" },
    { image: "[::1]:5000/app:1", hostname: "[::1]:5000", repository: "app", tag: "1", digest: "" },
  ])("$image", ({ image, ...want }) => {
    const ref = parseImageReference(image);
    expect(ref).toEqual(want);
    expect(formatImageReference(ref)).toBe(image);
  });

  it("keeps only the tag when there are both a tag and a digest", () => {
    const ref = parseImageReference(`nginx:1.19@${SHA}`);
    expect(ref).toEqual({ hostname: "", repository: "nginx", tag: "1.19", digest: "" });
    expect(formatImageReference(ref)).toBe("nginx:1.19");
  });

  it.each([
    { image: "", error: "repository name must have at least one component" },
    { image: "Nginx", error: "repository name must be lowercase" },
    { image: "nginx:", error: "invalid reference format" },
    { image: "-nginx", error: "invalid reference format" },
    { image: `${"a".repeat(256)}:1`, error: "repository name must not be more than 255 characters" },
    { image: `nginx@sha256:${"a".repeat(63)}`, error: "invalid checksum digest length" },
    { image: `nginx@sha256:${"A".repeat(64)}`, error: "invalid checksum digest format" },
    { image: `nginx@md5:${"a".repeat(32)}`, error: "unsupported digest algorithm" },
    { image: `nginx@Md5:${"a".repeat(32)}`, error: "invalid checksum digest format" },
  ])("refuses $image", ({ image, error }) => {
    expect(() => parseImageReference(image)).toThrow(error);
  });
});

describe("splitHostname (upstream's TestSplitHostname)", () => {
  it.each([
    ["", "", ""],
    ["imagename", "", "imagename"],
    ["subpath/imagename", "", "subpath/imagename"],
    ["fictional.registry.example/subpath/imagename", "fictional.registry.example", "subpath/imagename"],
    [
      "fictional.registry.example:10443/subpath/imagename",
      "fictional.registry.example:10443",
      "subpath/imagename",
    ],
    ["10.10.10.10:10443/subpath/imagename", "10.10.10.10:10443", "subpath/imagename"],
  ])("%j", (name, hostname, repository) => {
    expect(splitHostname(name)).toEqual({ hostname, repository });
  });
});

describe("component setters (upstream's examples)", () => {
  it("ExampleComponents_SetHostname", () => {
    const ref = parseImageReference("imagename:v1.0.0");
    expect(formatImageReference({ ...ref, hostname: "fictional.registry.example" })).toBe(
      "fictional.registry.example/imagename:v1.0.0",
    );
    expect(formatImageReference({ ...ref, hostname: "gcr.io" })).toBe("gcr.io/imagename:v1.0.0");
    expect(formatImageReference({ ...ref, hostname: "" })).toBe("imagename:v1.0.0");
  });

  it("ExampleComponents_SetRepository", () => {
    const ref = parseImageReference("gcr.io/kube-apiserver:v1.19.0");
    expect(formatImageReference({ ...ref, repository: "kube-controller-manager" })).toBe(
      "gcr.io/kube-controller-manager:v1.19.0",
    );
  });

  it("ExampleComponents_SetTagOrDigest", () => {
    let ref = parseImageReference("gcr.io/kube-apiserver");
    ref = withTagOrDigest(ref, "v1.19.0");
    expect(formatImageReference(ref)).toBe("gcr.io/kube-apiserver:v1.19.0");
    ref = withoutTagOrDigest(ref);
    expect(formatImageReference(ref)).toBe("gcr.io/kube-apiserver");
    ref = withTagOrDigest(ref, SHA);
    expect(formatImageReference(ref)).toBe(`gcr.io/kube-apiserver@${SHA}`);
    ref = withoutTagOrDigest(ref);
    expect(formatImageReference(ref)).toBe("gcr.io/kube-apiserver");
  });

  it("ignores a value that is neither a tag nor a digest", () => {
    const ref = parseImageReference("nginx:1.0");
    expect(withTagOrDigest(ref, "not a tag")).toEqual(ref);
    expect(withTagOrDigest(ref, `1.0${SHA}`)).toEqual(ref);
  });
});
