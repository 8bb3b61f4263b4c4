/**
 * fieldOverrider: patches a document embedded as text in a string field (a ConfigMap's
 * `data["app.yaml"]`, say). `fieldPath` is a JSON pointer to the string; the `json` or `yaml`
 * operations are a JSON patch applied inside the embedded document, which is then written
 * back the way upstream writes it:
 * - JSON: compact, members in their original order (new ones last), untouched values as they
 *   were spelled;
 * - YAML: converted to JSON and back through go-yaml v2, so keys come out sorted, comments and
 *   anchors are gone, and strings that look like other types are quoted (`"3306"`).
 * An overrider with neither list empties the field, as upstream does.
 */
import type { KubeObject } from "../api/meta.ts";
import type { Overriders } from "../karmada/types.ts";
import { applyJsonPatchV5, type PatchOperation } from "./json-patch-v5.ts";
import { jsonToYaml, yamlToJson } from "./yaml-v2.ts";

export type FieldOverrider = NonNullable<Overriders["fieldOverrider"]>[number];

const POINTER_ERROR = "JSON pointer error";

/** The reference tokens of a JSON pointer (go-openapi/jsonpointer), unescaped. */
function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/"))
    throw new Error(`JSON pointer must be empty or start with a "/"\n${POINTER_ERROR}`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** One step of go-openapi/jsonpointer's Get. */
function step(node: unknown, token: string): unknown {
  if (node === null || node === undefined)
    throw new Error(`nil value has no field "${token}": ${POINTER_ERROR}`);
  if (isRecord(node)) {
    if (!Object.hasOwn(node, token) || node[token] === undefined) {
      throw new Error(`object has no key "${token}": ${POINTER_ERROR}`);
    }
    return node[token];
  }
  if (Array.isArray(node)) {
    if (token === "-") {
      throw new Error(
        `cannot resolve "-" token on get: the "-" array token cannot be resolved here: ${POINTER_ERROR}`,
      );
    }
    if (!/^[+-]?\d+$/.test(token)) {
      throw new Error(`strconv.Atoi: parsing ${JSON.stringify(token)}: invalid syntax\n${POINTER_ERROR}`);
    }
    const index = Number(token);
    if (index < 0 || index >= node.length) {
      throw new Error(`index out of bounds array[0,${node.length - 1}] index '${index}': ${POINTER_ERROR}`);
    }
    return node[index];
  }
  throw new Error(`invalid token reference "${token}": ${POINTER_ERROR}`);
}

/** A copy of `node` with the value at `tokens` (which exists) replaced. */
function setAt(node: unknown, tokens: string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const [token, ...rest] = tokens as [string, ...string[]];
  const child = step(node, token);
  if (Array.isArray(node)) {
    const copy = [...node];
    copy[Number(token)] = setAt(child, rest, value);
    return copy;
  }
  return { ...(node as Record<string, unknown>), [token]: setAt(child, rest, value) };
}

function patchOperations(ops: NonNullable<FieldOverrider["json"]>): PatchOperation[] {
  return ops.map((o) => ({ op: o.operator, path: o.subPath, value: o.value ?? null }));
}

/** The new text of the embedded document. */
export function overrideEmbeddedDocument(text: string, overrider: FieldOverrider): string {
  if (overrider.yaml?.length) {
    return jsonToYaml(applyJsonPatchV5(yamlToJson(text), patchOperations(overrider.yaml)));
  }
  if (overrider.json?.length) return applyJsonPatchV5(text, patchOperations(overrider.json));
  return "";
}

/** Applies one fieldOverrider to a copy of `object`. */
export function applyFieldOverrider(object: KubeObject, overrider: FieldOverrider): KubeObject {
  const tokens = pointerTokens(overrider.fieldPath);
  const current = tokens.reduce<unknown>(step, object);
  if (typeof current !== "string" || tokens.length === 0) {
    throw new Error(`Get object's value by overrider's path(${overrider.fieldPath}) is not string`);
  }
  return setAt(object, tokens, overrideEmbeddedDocument(current, overrider)) as KubeObject;
}

/** Applies fieldOverriders in order. */
export function applyFieldOverriders(object: KubeObject, overriders: readonly FieldOverrider[]): KubeObject {
  for (const overrider of overriders) object = applyFieldOverrider(object, overrider);
  return object;
}
