/**
 * commandOverrider and argsOverrider: append to or remove from the `command` / `args` list of
 * the containers named `containerName` (not initContainers) of a Pod, or of the pod template
 * of a Deployment, ReplicaSet, DaemonSet, StatefulSet or Job. Other kinds are left alone.
 */
import type { KubeObject } from "../api/meta.ts";
import type { Overriders } from "../karmada/types.ts";
import { applyJsonPatchToObject, type PatchOperation } from "./json-patch-v5.ts";

export type CommandArgsOverrider = NonNullable<Overriders["commandOverrider"]>[number];
export type CommandArgsTarget = "command" | "args";

const CONTAINERS_PATH: Record<string, string[]> = {
  Pod: ["spec", "containers"],
  ReplicaSet: ["spec", "template", "spec", "containers"],
  Deployment: ["spec", "template", "spec", "containers"],
  DaemonSet: ["spec", "template", "spec", "containers"],
  Job: ["spec", "template", "spec", "containers"],
  StatefulSet: ["spec", "template", "spec", "containers"],
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Go's name for the dynamic type of a decoded JSON value. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  return Array.isArray(v) ? "[]interface {}" : "map[string]interface {}";
}

/** fmt.Sprintf("%s", v) for a decoded JSON value. */
function sprintS(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "%!s(<nil>)";
  if (typeof v === "object") return `%!s(${goType(v)}=${JSON.stringify(v)})`;
  return `%!s(${goType(v)}=${String(v)})`;
}

/** fmt's %v for a decoded JSON value, as far as error texts need it. */
function sprintV(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** The containers list at `path`, as unstructured.NestedSlice finds it (absent: undefined). */
function containersAt(object: KubeObject, path: string[]): unknown[] | undefined {
  const accessorError = (upTo: number, value: unknown, expected: string) =>
    new Error(
      `.${path.slice(0, upTo).join(".")} accessor error: ${sprintV(value)} is of the type ${goType(value)}, expected ${expected}`,
    );
  let value: unknown = object;
  for (let i = 0; i < path.length; i++) {
    if (!isRecord(value)) throw accessorError(i + 1, value, "map[string]interface{}");
    if (!Object.hasOwn(value, path[i]!) || value[path[i]!] === undefined) return undefined;
    value = value[path[i]!];
  }
  if (!Array.isArray(value)) throw accessorError(path.length, value, "[]interface{}");
  return value;
}

function overrideList(current: string[], overrider: CommandArgsOverrider): string[] {
  switch (overrider.operator) {
    case "add":
      return [...current, ...(overrider.value ?? [])];
    case "remove": {
      const removed = new Set(overrider.value ?? []);
      return current.filter((v) => !removed.has(v));
    }
    default:
      return current;
  }
}

/** The JSON patch one command/args overrider makes for `object` (upstream's buildCommandArgsPatches). */
export function commandArgsPatches(
  target: CommandArgsTarget,
  object: KubeObject,
  overrider: CommandArgsOverrider,
): PatchOperation[] {
  const path = CONTAINERS_PATH[object.kind ?? ""];
  if (!path) return [];
  let containers: unknown[] | undefined;
  try {
    containers = containersAt(object, path);
  } catch (err) {
    throw new Error(
      `failed to retrieves path(${path.join("/")}) from rawObj, error: ${(err as Error).message}`,
    );
  }
  const patches: PatchOperation[] = [];
  (containers ?? []).forEach((container, index) => {
    if (!isRecord(container)) throw new Error(`container ${index} at ${path.join("/")} is not an object`);
    if (container.name !== overrider.containerName) return;
    const listPath = `/${path.join("/")}/${index}/${target}`;
    const current = container[target];
    if (current === undefined || current === null) {
      patches.push({ op: "add", path: listPath, value: overrideList([], overrider) });
      return;
    }
    if (!Array.isArray(current)) throw new Error(`${listPath} is not a list`);
    patches.push({ op: "replace", path: listPath, value: overrideList(current.map(sprintS), overrider) });
  });
  return patches;
}

/** Applies commandOverriders (`target` "command") or argsOverriders ("args") in order. */
export function applyCommandArgsOverriders(
  target: CommandArgsTarget,
  object: KubeObject,
  overriders: readonly CommandArgsOverrider[],
): KubeObject {
  for (const overrider of overriders) {
    object = applyJsonPatchToObject(object, commandArgsPatches(target, object, overrider));
  }
  return object;
}
