/**
 * Resource names and quantities as Karmada checks them (its copies of the Kubernetes core
 * helpers): which names are standard, integral or extended, and resource lists for quotas.
 */

import type { FieldError } from "../../../machinery/errors.ts";
import {
  formatQuantity,
  parseQuantity,
  QUANTITY_PARSE_ERROR,
  quantitySign,
} from "../../../machinery/quantity.ts";
import { invalid, key } from "../../validation/field.ts";
import { obj } from "../../validation/json.ts";
import { isLabelKey } from "./formats.ts";

const STANDARD_RESOURCES = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "storage",
  "requests.storage",
  "services.nodeports",
  "services.loadbalancers",
]);

const STANDARD_QUOTA_RESOURCES = new Set([...STANDARD_RESOURCES].filter((r) => r !== "storage"));

const INTEGER_RESOURCES = new Set([
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "services.nodeports",
  "services.loadbalancers",
]);

const STANDARD_CONTAINER_RESOURCES = new Set(["cpu", "memory", "ephemeral-storage"]);

export function isHugePageResourceName(name: string): boolean {
  return name.startsWith("hugepages-");
}

function isQuotaHugePageResourceName(name: string): boolean {
  return name.startsWith("hugepages-") || name.startsWith("requests.hugepages-");
}

function isPrefixedNativeResource(name: string): boolean {
  return name.includes("kubernetes.io/");
}

/** Unprefixed names and `*kubernetes.io/` ones belong to Kubernetes. */
export function isNativeResource(name: string): boolean {
  return !name.includes("/") || isPrefixedNativeResource(name);
}

/** A vendor resource such as `example.com/gpu`, usable in quotas as `requests.example.com/gpu`. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith("requests.")) return false;
  return isLabelKey(`requests.${name}`).length === 0;
}

/** What the scheduler counts beyond cpu, memory, pods and ephemeral storage. */
export function isScalarResourceName(name: string): boolean {
  return (
    isExtendedResourceName(name) ||
    isHugePageResourceName(name) ||
    isPrefixedNativeResource(name) ||
    name.startsWith("attachable-volumes-")
  );
}

function isStandardResourceName(name: string): boolean {
  return STANDARD_RESOURCES.has(name) || isQuotaHugePageResourceName(name);
}

function isIntegerResourceName(name: string): boolean {
  return INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);
}

/** A qualified name; unprefixed ones must be standard. */
function validateResourceName(name: string, field: string): FieldError[] {
  const errs = isLabelKey(name).map((m) => invalid(field, name, m));
  if (errs.length > 0) return errs;
  if (!name.includes("/") && !isStandardResourceName(name)) {
    return [invalid(field, name, "must be a standard resource type or fully qualified")];
  }
  return [];
}

export function validateQuotaResourceName(name: string, field: string): FieldError[] {
  const errs = validateResourceName(name, field);
  if (!name.includes("/") && !STANDARD_QUOTA_RESOURCES.has(name) && !isQuotaHugePageResourceName(name)) {
    errs.push(invalid(field, name, "must be a standard resource for quota"));
  }
  return errs;
}

export function validateContainerResourceName(name: string, field: string): FieldError[] {
  const errs = validateResourceName(name, field);
  if (!name.includes("/")) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePageResourceName(name)) {
      errs.push(invalid(field, name, "must be a standard resource for containers"));
    }
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(invalid(field, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** Not negative, and whole for resources counted in units (pods, services, extended resources). */
export function validateResourceQuantityValue(resource: string, value: unknown, field: string): FieldError[] {
  const q = parseQuantity(value);
  if (!q) return [invalid(field, value, QUANTITY_PARSE_ERROR)];
  const errs: FieldError[] = [];
  if (quantitySign(q) < 0) errs.push(invalid(field, formatQuantity(q), "must be greater than or equal to 0"));
  // MilliValue rounds up, so anything finer than a milli-unit also counts as fractional.
  if (isIntegerResourceName(resource) && q.scale < 0 && q.n % 10n ** BigInt(-q.scale) !== 0n) {
    errs.push(invalid(field, formatQuantity(q), "must be an integer"));
  }
  return errs;
}

/** A quota's resource list: quota resource names and valid quantities, each error at `path[name]`. */
export function validateQuotaResourceList(list: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, value] of Object.entries(obj(list) ?? {})) {
    const p = key(path, name);
    errs.push(...validateQuotaResourceName(name, p));
    errs.push(...validateResourceQuantityValue(name, value, p));
  }
  return errs;
}
