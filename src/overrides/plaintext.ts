/**
 * plaintext overrider: JSON patch operations on the whole object. All plaintext items of one
 * rule form a single patch, so one failing operation leaves the object as it was.
 */
import type { KubeObject } from "../api/meta.ts";
import type { Overriders } from "../karmada/types.ts";
import { applyJsonPatchToObject, type PatchOperation } from "./json-patch-v5.ts";

export type PlaintextOverrider = NonNullable<Overriders["plaintext"]>[number];

/** The patch the plaintext items make; a missing value is `null`, as upstream encodes it. */
export function plaintextPatch(overriders: readonly PlaintextOverrider[]): PatchOperation[] {
  return overriders.map((o) => ({ op: o.operator, path: o.path, value: o.value ?? null }));
}

export function applyPlaintextOverriders(
  object: KubeObject,
  overriders: readonly PlaintextOverrider[],
): KubeObject {
  return applyJsonPatchToObject(object, plaintextPatch(overriders));
}
