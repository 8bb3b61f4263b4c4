/**
 * An empty Lua table comes out of Lua as `[]`: nothing says whether it was an object or a
 * list. Upstream (`ConvertLuaResultInto` in `luavm/lua_convert.go`) repairs this with the
 * operation's input objects as references, and we do the same so results compare equal:
 *
 * 1. A result that is itself empty becomes `{}` when the operation returns an object
 *    (Unstructured, status, requirements) and stays `[]` when it returns a list.
 * 2. Every empty field is looked up by its path in the references (array indices left out):
 *    empty object there → `{}`; empty list there → kept as `[]`; neither → the field is
 *    deleted (upstream assumes the script added it and drops it).
 */
import type { Json } from "./values.ts";

export type ResultShape = "object" | "list";

/** Repairs `value` in place (it is a fresh conversion result) and returns it. */
export function restoreEmptyTables(
  value: Json,
  shape: ResultShape,
  references: readonly unknown[] = [],
): Json {
  if (Array.isArray(value) && value.length === 0) return shape === "object" ? {} : [];
  const empty: EmptyPaths = { lists: new Set(), objects: new Set() };
  for (const reference of references) visitReference(reference, "", empty);
  repair(value, "", empty);
  return value;
}

interface EmptyPaths {
  lists: Set<string>;
  objects: Set<string>;
}

function childPath(path: string, key: string): string {
  return path === "" ? key : `${path}\u0000${key}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Records where the references hold empty lists and empty objects. */
function visitReference(value: unknown, path: string, empty: EmptyPaths): void {
  if (Array.isArray(value)) {
    if (value.length === 0) empty.lists.add(path);
    // Elements share their list's path: `rules[*].names` is recorded as `rules.names`.
    else for (const item of value) visitReference(item, path, empty);
  } else if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) empty.objects.add(path);
    else for (const key of keys) visitReference(value[key], childPath(path, key), empty);
  }
}

function repair(value: Json, path: string, empty: EmptyPaths): void {
  if (Array.isArray(value)) {
    const drop: number[] = [];
    value.forEach((item, i) => {
      const action = repairChild(item, path, empty);
      if (action === "delete") drop.push(i);
      else if (action === "object") value[i] = {};
    });
    for (const i of drop.reverse()) value.splice(i, 1);
  } else if (isObject(value)) {
    for (const key of Object.keys(value)) {
      const action = repairChild(value[key]!, childPath(path, key), empty);
      if (action === "delete") delete value[key];
      else if (action === "object") value[key] = {};
    }
  }
}

function repairChild(value: Json, path: string, empty: EmptyPaths): "keep" | "object" | "delete" {
  if (Array.isArray(value) && value.length === 0) {
    if (empty.objects.has(path)) return "object";
    return empty.lists.has(path) ? "keep" : "delete";
  }
  repair(value, path, empty);
  return "keep";
}
