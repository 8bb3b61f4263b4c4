/**
 * Lua results decoded into the shapes upstream unmarshals them into (Go structs with JSON
 * tags): known fields only, a field of the wrong JSON type is an error, empty strings, maps
 * and lists are left out (`omitempty`), an object pointer that was present stays present
 * even when empty, and quantities are put in canonical form.
 */
import type { KubeObject } from "../../api/meta.ts";
import type { ReplicaRequirements, Toleration } from "../../karmada/types.ts";
import { formatQuantity, parseQuantity, QUANTITY_PARSE_ERROR } from "../../machinery/quantity.ts";
import type { DependentObjectReference } from "../types.ts";
import { LuaError } from "./engine.ts";
import type { Json } from "./values.ts";

type JsonObject = { [key: string]: Json };

/** InterpretComponent's result element (`workv1alpha2.Component`). */
export interface Component {
  name: string;
  replicas: number;
  replicaRequirements?: ComponentReplicaRequirements;
}

export interface ComponentReplicaRequirements {
  nodeClaim?: NonNullable<ReplicaRequirements["nodeClaim"]>;
  resourceRequest?: Record<string, string>;
  priorityClassName?: string;
}

export function isJsonObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function jsonType(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  return typeof value;
}

function mismatch(value: Json, field: string, goType: string): LuaError {
  return new LuaError(
    "result",
    `json: cannot unmarshal ${jsonType(value)} into Go struct field ${field} of type ${goType}`,
  );
}

function stringField(obj: JsonObject, key: string, field: string): string {
  const v = obj[key];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw mismatch(v, field, "string");
  return v;
}

function objectField(obj: JsonObject, key: string, field: string, goType: string): JsonObject | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (!isJsonObject(v)) throw mismatch(v, field, goType);
  return v;
}

function listField(obj: JsonObject, key: string, field: string, goType: string): Json[] {
  const v = obj[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw mismatch(v, field, goType);
  return v;
}

/** A result that must be an object with a kind (`unstructured.Unstructured`). */
export function toUnstructured(value: Json): KubeObject {
  if (!isJsonObject(value)) {
    throw new LuaError(
      "result",
      `json: cannot unmarshal ${jsonType(value)} into Go value of type map[string]interface {}`,
    );
  }
  if (typeof value.kind !== "string" || value.kind === "") {
    throw new LuaError("result", `Object 'Kind' is missing in '${JSON.stringify(value)}'`);
  }
  return value as KubeObject;
}

function stringMap(obj: JsonObject, key: string, field: string): Record<string, string> | undefined {
  const map = objectField(obj, key, field, "map[string]string");
  if (!map) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) {
    if (typeof v !== "string") throw mismatch(v, field, "string");
    out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function toleration(value: Json, field: string): Toleration {
  if (!isJsonObject(value)) throw mismatch(value, field, "v1.Toleration");
  const out: Toleration = {};
  for (const key of ["key", "operator", "value", "effect"] as const) {
    const s = stringField(value, key, `${field}.${key}`);
    if (s !== "") out[key] = s;
  }
  const seconds = value.tolerationSeconds;
  if (seconds !== undefined && seconds !== null) {
    if (typeof seconds !== "number" || !Number.isInteger(seconds)) {
      throw mismatch(seconds, `${field}.tolerationSeconds`, "int64");
    }
    out.tolerationSeconds = seconds;
  }
  return out;
}

function nodeClaim(obj: JsonObject, field: string): ReplicaRequirements["nodeClaim"] {
  const claim = objectField(obj, "nodeClaim", field, "v1alpha2.NodeClaim");
  if (!claim) return undefined;
  const out: NonNullable<ReplicaRequirements["nodeClaim"]> = {};
  const affinity = objectField(claim, "hardNodeAffinity", `${field}.hardNodeAffinity`, "v1.NodeSelector");
  if (affinity) out.hardNodeAffinity = affinity;
  const selector = stringMap(claim, "nodeSelector", `${field}.nodeSelector`);
  if (selector) out.nodeSelector = selector;
  const tolerations = listField(claim, "tolerations", `${field}.tolerations`, "[]v1.Toleration").map((t) =>
    toleration(t, `${field}.tolerations`),
  );
  if (tolerations.length > 0) out.tolerations = tolerations;
  return out;
}

function resourceList(obj: JsonObject, field: string): Record<string, string> | undefined {
  const list = objectField(obj, "resourceRequest", field, "v1.ResourceList");
  if (!list) return undefined;
  const out: Record<string, string> = {};
  for (const name of Object.keys(list).sort()) {
    const raw = list[name]!;
    if (raw === null) {
      out[name] = "0";
      continue;
    }
    const q = typeof raw === "string" || typeof raw === "number" ? parseQuantity(raw) : undefined;
    if (!q) throw new LuaError("result", QUANTITY_PARSE_ERROR);
    out[name] = formatQuantity(q);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `workv1alpha2.ReplicaRequirements`. */
export function toReplicaRequirements(value: Json): ReplicaRequirements {
  if (!isJsonObject(value)) {
    throw new LuaError(
      "result",
      `json: cannot unmarshal ${jsonType(value)} into Go value of type v1alpha2.ReplicaRequirements`,
    );
  }
  const out: ReplicaRequirements = {};
  const claim = nodeClaim(value, "ReplicaRequirements.nodeClaim");
  if (claim) out.nodeClaim = claim;
  const request = resourceList(value, "ReplicaRequirements.resourceRequest");
  if (request) out.resourceRequest = request;
  const namespace = stringField(value, "namespace", "ReplicaRequirements.namespace");
  if (namespace !== "") out.namespace = namespace;
  const priority = stringField(value, "priorityClassName", "ReplicaRequirements.priorityClassName");
  if (priority !== "") out.priorityClassName = priority;
  return out;
}

/** `[]workv1alpha2.Component`. */
export function toComponents(value: Json): Component[] {
  if (!Array.isArray(value)) {
    throw new LuaError(
      "result",
      `json: cannot unmarshal ${jsonType(value)} into Go value of type []v1alpha2.Component`,
    );
  }
  return value.map((item) => {
    if (!isJsonObject(item)) {
      throw new LuaError(
        "result",
        `json: cannot unmarshal ${jsonType(item)} into Go value of type v1alpha2.Component`,
      );
    }
    const replicas = item.replicas ?? 0;
    if (typeof replicas !== "number" || !Number.isInteger(replicas) || Math.abs(replicas) > 2 ** 31 - 1) {
      const shown = typeof replicas === "number" ? `number ${replicas}` : jsonType(replicas);
      throw new LuaError(
        "result",
        `json: cannot unmarshal ${shown} into Go struct field Component.replicas of type int32`,
      );
    }
    const out: Component = { name: stringField(item, "name", "Component.name"), replicas };
    const req = objectField(
      item,
      "replicaRequirements",
      "Component.replicaRequirements",
      "v1alpha2.ComponentReplicaRequirements",
    );
    if (req) {
      const requirements: ComponentReplicaRequirements = {};
      const claim = nodeClaim(req, "Component.replicaRequirements.nodeClaim");
      if (claim) requirements.nodeClaim = claim;
      const request = resourceList(req, "Component.replicaRequirements.resourceRequest");
      if (request) requirements.resourceRequest = request;
      const priority = stringField(
        req,
        "priorityClassName",
        "Component.replicaRequirements.priorityClassName",
      );
      if (priority !== "") requirements.priorityClassName = priority;
      out.replicaRequirements = requirements;
    }
    return out;
  });
}

/** `[]configv1alpha1.DependentObjectReference`. */
export function toDependencies(value: Json): DependentObjectReference[] {
  if (!Array.isArray(value)) {
    throw new LuaError(
      "result",
      `json: cannot unmarshal ${jsonType(value)} into Go value of type []v1alpha1.DependentObjectReference`,
    );
  }
  return value.map((item) => {
    if (!isJsonObject(item)) {
      throw new LuaError(
        "result",
        `json: cannot unmarshal ${jsonType(item)} into Go value of type v1alpha1.DependentObjectReference`,
      );
    }
    const f = (key: string) => stringField(item, key, `DependentObjectReference.${key}`);
    const out: DependentObjectReference = {
      apiVersion: f("apiVersion"),
      kind: f("kind"),
      namespace: f("namespace"),
    };
    const name = f("name");
    if (name !== "") out.name = name;
    const selector = objectField(
      item,
      "labelSelector",
      "DependentObjectReference.labelSelector",
      "v1.LabelSelector",
    );
    if (selector) {
      const labelSelector: NonNullable<DependentObjectReference["labelSelector"]> = {};
      const matchLabels = stringMap(selector, "matchLabels", "LabelSelector.matchLabels");
      if (matchLabels) labelSelector.matchLabels = matchLabels;
      const expressions = listField(
        selector,
        "matchExpressions",
        "LabelSelector.matchExpressions",
        "[]v1.LabelSelectorRequirement",
      );
      if (expressions.length > 0) labelSelector.matchExpressions = expressions;
      out.labelSelector = labelSelector;
    }
    return out;
  });
}
