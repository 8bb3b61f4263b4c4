/**
 * imageOverrider: rewrites the registry, repository or tag of container images. Without a
 * predicate it rewrites every entry of `containers` (not initContainers) of a Pod, or of the
 * pod template of a Deployment, ReplicaSet, DaemonSet, StatefulSet or Job; other kinds are
 * left alone. With `predicate.path` it rewrites the one image string at that path, of any kind.
 */
import type { KubeObject } from "../api/meta.ts";
import type { Overriders } from "../karmada/types.ts";
import {
  formatImageReference,
  type ImageReference,
  parseImageReference,
  tagOrDigest,
  withoutTagOrDigest,
  withTagOrDigest,
} from "./image-reference.ts";
import { applyJsonPatchToObject, type PatchOperation } from "./json-patch-v5.ts";

export type ImageOverrider = NonNullable<Overriders["imageOverrider"]>[number];

/** The pod spec of each kind whose images are rewritten without a predicate. */
const POD_SPEC_PATH: Record<string, string[]> = {
  Pod: ["spec"],
  ReplicaSet: ["spec", "template", "spec"],
  Deployment: ["spec", "template", "spec"],
  DaemonSet: ["spec", "template", "spec"],
  StatefulSet: ["spec", "template", "spec"],
  Job: ["spec", "template", "spec"],
};

/** The image after one overrider; unknown operators leave it as it was (normalised). */
export function overrideImage(image: string, overrider: ImageOverrider): string {
  let ref: ImageReference;
  try {
    ref = parseImageReference(image);
  } catch (err) {
    throw new Error(`failed to parse image value(${image}), error: ${(err as Error).message}`);
  }
  const value = overrider.value ?? "";
  const op = overrider.operator;
  switch (overrider.component) {
    case "Registry":
      if (op === "add") ref = { ...ref, hostname: ref.hostname + value };
      else if (op === "replace") ref = { ...ref, hostname: value };
      else if (op === "remove") ref = { ...ref, hostname: "" };
      break;
    case "Repository":
      if (op === "add") ref = { ...ref, repository: ref.repository + value };
      else if (op === "replace") ref = { ...ref, repository: value };
      else if (op === "remove") ref = { ...ref, repository: "" };
      break;
    case "Tag":
      if (op === "add") ref = withTagOrDigest(ref, tagOrDigest(ref) + value);
      else if (op === "replace") ref = withTagOrDigest(ref, value);
      else if (op === "remove") ref = withoutTagOrDigest(ref);
      break;
    default:
      throw new Error(`unsupported image component(${String(overrider.component)})`);
  }
  return formatImageReference(ref);
}

function replaceImage(path: string, image: string, overrider: ImageOverrider): PatchOperation {
  if (!path.startsWith("/")) throw new Error("imagePath should be start with / character");
  return { op: "replace", path, value: overrideImage(image, overrider) };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The image string a predicate path points at. Segments are split on `/` without JSON
 * pointer unescaping, and a list must be followed by a numeric segment, as upstream reads it.
 */
function imageAt(object: KubeObject, predicatePath: string): string {
  const segments = predicatePath.replace(/^\/+|\/+$/g, "").split("/");
  let current: Record<string, unknown> = object;
  for (let i = 0; i < segments.length - 1; i++) {
    const next = current[segments[i]!];
    if (isRecord(next)) {
      current = next;
    } else if (Array.isArray(next)) {
      const index = segments[i + 1]!;
      if (!/^[+-]?\d+$/.test(index) || Math.abs(Number(index)) > 2 ** 31 - 1) {
        throw new Error(`path(${index}) of rawObj's is not number`);
      }
      const element: unknown = next[Number(index)];
      if (!isRecord(element)) throw new Error(`path(${index}) of rawObj's is not an object`);
      current = element;
      i++;
    } else {
      throw new Error(
        `path(${segments[i]}) of rawObj's type is not map[string]interface{} and []interface{}`,
      );
    }
  }
  const last = segments[segments.length - 1]!;
  const image = current[last];
  if (typeof image !== "string") throw new Error(`failed to convert path(${last}) to string`);
  return image;
}

/** The JSON patch one imageOverrider makes for `object` (upstream's buildPatches). */
export function imagePatches(object: KubeObject, overrider: ImageOverrider): PatchOperation[] {
  if (overrider.predicate) {
    const path = overrider.predicate.path;
    let image: string;
    try {
      image = imageAt(object, path);
    } catch (err) {
      throw new Error(
        `failed to obtain imageValue with predicate path(${path}), error: ${(err as Error).message}`,
      );
    }
    return [replaceImage(path, image, overrider)];
  }
  const specPath = POD_SPEC_PATH[object.kind ?? ""];
  if (!specPath) return [];
  let spec: unknown = object;
  for (const key of specPath) spec = isRecord(spec) ? spec[key] : undefined;
  const containers = isRecord(spec) ? spec.containers : undefined;
  if (containers !== undefined && containers !== null && !Array.isArray(containers)) {
    throw new Error(`failed to convert ${object.kind} from unstructured object: containers is not a list`);
  }
  const prefix = `/${specPath.join("/")}/containers`;
  return (containers ?? []).map((container, i) => {
    const image = isRecord(container) && typeof container.image === "string" ? container.image : "";
    return replaceImage(`${prefix}/${i}/image`, image, overrider);
  });
}

/** Applies imageOverriders in order. */
export function applyImageOverriders(object: KubeObject, overriders: readonly ImageOverrider[]): KubeObject {
  for (const overrider of overriders)
    object = applyJsonPatchToObject(object, imagePatches(object, overrider));
  return object;
}
