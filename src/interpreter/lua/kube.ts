/**
 * Upstream's `kube` module for interpreter scripts (`local kube = require("kube")`, see
 * `luavm/kube.go`): quantity arithmetic and the pod-template helpers the native interpreter
 * uses. Each helper takes the Lua arguments as they arrived (JSON, or an opaque marker for a
 * function) and throws an Error whose message becomes the script's Lua error.
 */

import type { ReplicaRequirements } from "../../karmada/types.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import {
  formatQuantity,
  parseQuantity,
  QUANTITY_PARSE_ERROR,
  type Quantity,
  sumQuantities,
} from "../../machinery/quantity.ts";
import { podSpecDependencies } from "../native/dependencies.ts";
import { replicaRequirements } from "../native/replica-requirements.ts";
import { restoreEmptyTables } from "./empty-tables.ts";
import { formatLuaNumber } from "./numbers.ts";
import { type Json, luaTypeOf, type OpaqueLuaValue } from "./values.ts";

export type LuaArgument = Json | OpaqueLuaValue;

function typeError(fn: string, position: number, expected: string, got: LuaArgument | undefined): Error {
  return new Error(`bad argument #${position} to ${fn} (${expected} expected, got ${luaTypeOf(got)})`);
}

/** gopher-lua's checks: nil is a zero quantity, a string must parse, anything else is refused. */
function quantityArgument(fn: string, args: readonly LuaArgument[], i: number): Quantity {
  const value = args[i];
  if (value === null || value === undefined) return { n: 0n, scale: 0, format: "DecimalSI" };
  if (typeof value !== "string") throw typeError(fn, i + 1, "string", value);
  const q = parseQuantity(value);
  // resource.MustParse panics with this text; gopher-lua turns the panic into the call's error.
  if (!q) throw new Error(`cannot parse '${value}': ${QUANTITY_PARSE_ERROR}`);
  return q;
}

/** `kube.resourceAdd(q1, q2, ...)`: the sum as a canonical quantity string. */
export function resourceAdd(args: readonly LuaArgument[]): string {
  const terms = args.map((_, i) => quantityArgument("resourceAdd", args, i));
  return formatQuantity(sumQuantities(terms));
}

/** `kube.getResourceQuantity(q)`: the quantity as a (approximate) number. */
export function getResourceQuantity(args: readonly LuaArgument[]): number {
  if (args.length !== 1) throw new Error("getResourceQuantity only accepts one argument");
  const q = quantityArgument("getResourceQuantity", args, 0);
  // Quantity.AsApproximateFloat64: mantissa times a power of ten, in float64.
  const value = q.scale === 0 ? Number(q.n) : Number(q.n) * 10 ** q.scale;
  if (value < 0)
    throw new Error(`int approximation unexpectedly returned a negative value: ${formatQuantity(q)},`);
  if (value === Number.POSITIVE_INFINITY) {
    throw new Error(`int approximation unexpectedly returned an infinite value: ${formatQuantity(q)},`);
  }
  return value;
}

/** A pod template table read the way upstream converts it into a typed PodTemplateSpec. */
function podTemplateArgument(fn: string, args: readonly LuaArgument[], i: number): Record<string, unknown> {
  const value = args[i];
  if (luaTypeOf(value) !== "table") throw typeError(fn, i + 1, "table", value);
  const template = restoreEmptyTables(cloneJson(value as Json), "object");
  if (Array.isArray(template)) {
    throw new Error(
      "fail to convert lua value to PodTemplateSpec: json: cannot unmarshal array into Go value of type v1.PodTemplateSpec",
    );
  }
  return template as Record<string, Json>;
}

/** `kube.accuratePodRequirements(podTemplate)`: what one replica needs, nil when nothing. */
export function accuratePodRequirements(args: readonly LuaArgument[]): ReplicaRequirements | null {
  if (args.length !== 1) throw new Error("getPodRequirements only accepts one argument");
  const template = podTemplateArgument("accuratePodRequirements", args, 0);
  return replicaRequirements(template.spec) ?? null;
}

/**
 * `kube.getPodDependencies(podTemplate, namespace)`: the ConfigMaps, Secrets, ServiceAccount
 * and claims the pod needs (namespace nil means "default"); nil when there are none, because
 * upstream hands Lua a nil slice.
 */
export function getPodDependencies(args: readonly LuaArgument[]): Json[] | null {
  if (args.length !== 2) throw new Error("getPodDependencies only accepts two argument");
  const template = podTemplateArgument("getPodDependencies", args, 0);
  const ns = args[1];
  let namespace: string;
  if (ns === null || ns === undefined) namespace = "default";
  else if (typeof ns === "string") namespace = ns;
  else if (typeof ns === "number") namespace = formatLuaNumber(ns);
  else throw typeError("getPodDependencies", 2, "string", ns);
  const refs = podSpecDependencies(template.spec, namespace);
  if (refs.length === 0) return null;
  // DependentObjectReference.namespace is omitempty.
  return refs.map(({ apiVersion, kind, name }) =>
    namespace === ""
      ? { apiVersion, kind, name: name ?? "" }
      : { apiVersion, kind, namespace, name: name ?? "" },
  );
}
