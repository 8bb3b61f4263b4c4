/**
 * The interpreter operations a ResourceInterpreterCustomization scripts, run on a LuaEngine
 * with upstream's function names, arguments and result conversion
 * (`pkg/resourceinterpreter/customized/declarative/luavm/lua.go`):
 *
 * | customization            | function                                 | result                        |
 * |--------------------------|------------------------------------------|-------------------------------|
 * | retention                | Retain(desiredObj, observedObj)          | object                        |
 * | replicaResource          | GetReplicas(desiredObj)                  | number, requirements or nil   |
 * | componentResource        | GetComponents(desiredObj)                | list of components or nil     |
 * | replicaRevision          | ReviseReplica(desiredObj, desiredReplica)| object                        |
 * | statusReflection         | ReflectStatus(observedObj)               | status table                  |
 * | statusAggregation        | AggregateStatus(desiredObj, statusItems) | object                        |
 * | healthInterpretation     | InterpretHealth(observedObj)             | boolean                       |
 * | dependencyInterpretation | GetDependencies(desiredObj)              | list of references            |
 */
import type { KubeObject } from "../../api/meta.ts";
import { validateLabelSelector } from "../../api/validation/selectors.ts";
import type { AggregatedStatusItem, ReplicaRequirements } from "../../karmada/types.ts";
import { type FieldError, fieldErrorMessage } from "../../machinery/errors.ts";
import type { DependentObjectReference, InterpreterOperation, ResourceInterpreter } from "../types.ts";
import { restoreEmptyTables } from "./empty-tables.ts";
import { type LuaEngine, LuaError, type LuaLimits } from "./engine.ts";
import {
  type Component,
  toComponents,
  toDependencies,
  toReplicaRequirements,
  toUnstructured,
} from "./typed.ts";
import { type Json, luaTypeOf } from "./values.ts";

export interface LuaScriptRule {
  luaScript: string;
}

/** `spec.customizations` of a ResourceInterpreterCustomization. */
export interface Customizations {
  retention?: LuaScriptRule;
  replicaResource?: LuaScriptRule;
  componentResource?: LuaScriptRule;
  replicaRevision?: LuaScriptRule;
  statusReflection?: LuaScriptRule;
  statusAggregation?: LuaScriptRule;
  healthInterpretation?: LuaScriptRule;
  dependencyInterpretation?: LuaScriptRule;
}

export type CustomizationName = keyof Customizations;

/** Each customization's operation and the global function its script must define. */
export const LUA_RULES = {
  retention: { operation: "Retain", functionName: "Retain" },
  replicaResource: { operation: "InterpretReplica", functionName: "GetReplicas" },
  componentResource: { operation: "InterpretComponent", functionName: "GetComponents" },
  replicaRevision: { operation: "ReviseReplica", functionName: "ReviseReplica" },
  statusReflection: { operation: "InterpretStatus", functionName: "ReflectStatus" },
  statusAggregation: { operation: "AggregateStatus", functionName: "AggregateStatus" },
  healthInterpretation: { operation: "InterpretHealth", functionName: "InterpretHealth" },
  dependencyInterpretation: { operation: "InterpretDependency", functionName: "GetDependencies" },
} as const satisfies Record<CustomizationName, { operation: InterpreterOperation; functionName: string }>;

function expectTable(value: Json, what: string): void {
  if (typeof value !== "object" || value === null) {
    throw new LuaError("result", `expect the returned ${what} type is table but got ${luaTypeOf(value)}`);
  }
}

/** Retain: the desired object with what the member owns kept from the observed one. */
export function runRetain(
  engine: LuaEngine,
  script: string,
  desired: KubeObject,
  observed: KubeObject,
  limits: LuaLimits = {},
): KubeObject {
  const [result = null] = engine.call(script, "Retain", [desired, observed], limits);
  expectTable(result, "retained object");
  return toUnstructured(restoreEmptyTables(result, "object", [desired, observed]));
}

/** InterpretReplica: replicas (truncated to an integer, as Go's int32 conversion) and per-replica requirements. */
export function runGetReplicas(
  engine: LuaEngine,
  script: string,
  obj: KubeObject,
  limits: LuaLimits = {},
): { replicas: number; requirements: ReplicaRequirements | undefined } {
  const [replicas = null, requires = null] = engine.call(script, "GetReplicas", [obj], {
    ...limits,
    results: 2,
  });
  if (typeof replicas !== "number")
    throw new LuaError("result", `result type ${luaTypeOf(replicas)} is not number`);
  if (requires === null) return { replicas: Math.trunc(replicas), requirements: undefined };
  expectTable(requires, "requires");
  return {
    replicas: Math.trunc(replicas),
    requirements: toReplicaRequirements(restoreEmptyTables(requires, "object")),
  };
}

/** InterpretComponent: the workload's components; nil means none. */
export function runGetComponents(
  engine: LuaEngine,
  script: string,
  obj: KubeObject,
  limits: LuaLimits = {},
): Component[] {
  const [result = null] = engine.call(script, "GetComponents", [obj], limits);
  if (result === null) return [];
  expectTable(result, "components");
  return toComponents(restoreEmptyTables(result, "list"));
}

/** ReviseReplica: the object with its replicas set. */
export function runReviseReplica(
  engine: LuaEngine,
  script: string,
  obj: KubeObject,
  replicas: number,
  limits: LuaLimits = {},
): KubeObject {
  const [result = null] = engine.call(script, "ReviseReplica", [obj, Math.trunc(replicas)], limits);
  expectTable(result, "revised object");
  return toUnstructured(restoreEmptyTables(result, "object", [obj]));
}

/** InterpretStatus: the status to record, any JSON the script builds (upstream keeps it raw). */
export function runReflectStatus(
  engine: LuaEngine,
  script: string,
  obj: KubeObject,
  limits: LuaLimits = {},
): Json {
  const [result = null] = engine.call(script, "ReflectStatus", [obj], limits);
  expectTable(result, "status");
  return restoreEmptyTables(result, "object");
}

/**
 * The status items as upstream hands them to Lua: marshalled from the typed struct, so only
 * its fields, and `applied: false` and empty strings left out.
 */
export function statusItemsForLua(items: readonly AggregatedStatusItem[]): Json[] {
  return items.map((item) => {
    const out: { [key: string]: Json } = { clusterName: item.clusterName ?? "" };
    if (item.status !== undefined && item.status !== null) out.status = item.status as Json;
    if (item.applied === true) out.applied = true;
    if (item.appliedMessage) out.appliedMessage = item.appliedMessage;
    if (item.health) out.health = item.health;
    return out;
  });
}

/**
 * AggregateStatus: the template with the members' statuses folded into it. `items` null is
 * Lua nil (upstream's nil slice, what a binding without status items has); a list, even an
 * empty one, is a table.
 */
export function runAggregateStatus(
  engine: LuaEngine,
  script: string,
  obj: KubeObject,
  items: readonly AggregatedStatusItem[] | null,
  limits: LuaLimits = {},
): KubeObject {
  const luaItems = items === null ? null : statusItemsForLua(items);
  const [result = null] = engine.call(script, "AggregateStatus", [obj, luaItems], limits);
  expectTable(result, "aggregated object");
  return toUnstructured(restoreEmptyTables(result, "object"));
}

/** InterpretHealth: the script must return a boolean (nil is an error, so the health is Unknown). */
export function runInterpretHealth(
  engine: LuaEngine,
  script: string,
  obj: KubeObject,
  limits: LuaLimits = {},
): boolean {
  const [result = null] = engine.call(script, "InterpretHealth", [obj], limits);
  if (typeof result !== "boolean")
    throw new LuaError("result", `result type ${luaTypeOf(result)} is not bool`);
  return result;
}

/** Upstream's `validation.VerifyDependencies`, with its messages. */
export function verifyDependencies(refs: readonly DependentObjectReference[]): void {
  const errors: FieldError[] = [];
  refs.forEach((ref, i) => {
    const field = `dependencies[${i}]`;
    if (ref.apiVersion === "") {
      errors.push({
        type: "FieldValueInvalid",
        field: `${field}.apiVersion`,
        value: "",
        detail: "missing required apiVersion",
      });
    }
    if (ref.kind === "") {
      errors.push({
        type: "FieldValueInvalid",
        field: `${field}.kind`,
        value: "",
        detail: "missing required kind",
      });
    }
    if (!ref.name && ref.labelSelector === undefined) {
      errors.push({
        type: "FieldValueInvalid",
        field,
        value: ref,
        detail: "dependency can not leave name and labelSelector all empty",
      });
    }
    if (ref.labelSelector !== undefined)
      errors.push(...validateLabelSelector(ref.labelSelector, `${field}.labelSelector`));
  });
  if (errors.length === 0) return;
  const messages = errors.map(fieldErrorMessage);
  throw new LuaError("result", messages.length === 1 ? messages[0]! : `[${messages.join(", ")}]`);
}

/** Orders references by apiVersion, kind, namespace and name. */
export function compareDependencies(a: DependentObjectReference, b: DependentObjectReference): number {
  for (const key of ["apiVersion", "kind", "namespace", "name"] as const) {
    const x = a[key] ?? "";
    const y = b[key] ?? "";
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Verified references, duplicates dropped, sorted by apiVersion, kind, namespace and name. */
export function sortDependencies(refs: readonly DependentObjectReference[]): DependentObjectReference[] {
  const seen = new Map<string, DependentObjectReference>();
  for (const ref of refs) seen.set(JSON.stringify(ref), ref);
  return [...seen.values()].sort(compareDependencies);
}

/** InterpretDependency: the objects the workload needs, verified and sorted. */
export function runGetDependencies(
  engine: LuaEngine,
  script: string,
  obj: KubeObject,
  limits: LuaLimits = {},
): DependentObjectReference[] {
  const [result = null] = engine.call(script, "GetDependencies", [obj], limits);
  expectTable(result, "dependencies");
  const refs = toDependencies(restoreEmptyTables(result, "list"));
  verifyDependencies(refs);
  return sortDependencies(refs);
}

/** The operations one customization scripts, in the shape of the native interpreter. */
export type LuaInterpreter = Partial<ResourceInterpreter> & {
  /** InterpretComponent (the native interpreter has none). */
  getComponents?(obj: KubeObject): Component[];
};

function scriptOf(rule: LuaScriptRule | undefined): string | undefined {
  return rule?.luaScript ? rule.luaScript : undefined;
}

/**
 * The operations `customizations` defines (a rule with an empty script defines nothing),
 * each running its script on `engine`. Methods throw LuaError when a script fails.
 */
export function luaInterpreter(
  engine: LuaEngine,
  customizations: Customizations,
  limits: LuaLimits = {},
): LuaInterpreter {
  const out: LuaInterpreter = {};
  const retention = scriptOf(customizations.retention);
  if (retention) out.retain = (desired, observed) => runRetain(engine, retention, desired, observed, limits);
  const replicaResource = scriptOf(customizations.replicaResource);
  if (replicaResource) {
    out.getReplicas = (obj) => {
      const { replicas, requirements } = runGetReplicas(engine, replicaResource, obj, limits);
      return requirements ? { replicas, requirements } : { replicas };
    };
  }
  const componentResource = scriptOf(customizations.componentResource);
  if (componentResource)
    out.getComponents = (obj) => runGetComponents(engine, componentResource, obj, limits);
  const replicaRevision = scriptOf(customizations.replicaRevision);
  if (replicaRevision)
    out.reviseReplica = (obj, replicas) => runReviseReplica(engine, replicaRevision, obj, replicas, limits);
  const statusReflection = scriptOf(customizations.statusReflection);
  if (statusReflection) {
    // Upstream records whatever JSON the script returns; a status is an object in practice.
    out.reflectStatus = (obj) =>
      runReflectStatus(engine, statusReflection, obj, limits) as Record<string, unknown>;
  }
  const statusAggregation = scriptOf(customizations.statusAggregation);
  if (statusAggregation) {
    // A binding's status items are never an empty list upstream (omitempty): none is nil.
    out.aggregateStatus = (obj, items) =>
      runAggregateStatus(engine, statusAggregation, obj, items.length > 0 ? items : null, limits);
  }
  const healthInterpretation = scriptOf(customizations.healthInterpretation);
  if (healthInterpretation) {
    out.interpretHealth = (obj) =>
      runInterpretHealth(engine, healthInterpretation, obj, limits) ? "Healthy" : "Unhealthy";
  }
  const dependencyInterpretation = scriptOf(customizations.dependencyInterpretation);
  if (dependencyInterpretation) {
    out.getDependencies = (obj) => runGetDependencies(engine, dependencyInterpretation, obj, limits);
  }
  return out;
}

/**
 * Admission for a customization: every script compiles and defines its function. Returns one
 * message per failing rule, in upstream's words (`InterpreterOperation(Retain) Lua script error: ...`).
 */
export function checkCustomizations(
  engine: LuaEngine,
  customizations: Customizations,
  limits: LuaLimits = {},
): string[] {
  const problems: string[] = [];
  for (const [name, rule] of Object.entries(LUA_RULES) as [
    CustomizationName,
    (typeof LUA_RULES)[CustomizationName],
  ][]) {
    const script = scriptOf(customizations[name]);
    if (!script) continue;
    try {
      engine.checkScript(script, rule.functionName, limits);
    } catch (e) {
      if (!(e instanceof LuaError)) throw e;
      problems.push(`InterpreterOperation(${rule.operation}) Lua script error: ${e.message}`);
    }
  }
  return problems;
}
