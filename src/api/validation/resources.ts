/**
 * Resource names and quantities (`ResourceList` keys and values) with the rules of kubernetes
 * `pkg/apis/core/helper` and core validation: standard names, extended resources, overcommit.
 */

import type { FieldError } from "../../machinery/errors.ts";
import {
  formatQuantity,
  isIntegerQuantity,
  parseQuantity,
  QUANTITY_PARSE_ERROR,
  quantitySign,
} from "../../machinery/quantity.ts";
import { invalid, key } from "./field.ts";
import { obj } from "./json.ts";
import { isQualifiedName } from "./names.ts";

const STANDARD_CONTAINER_RESOURCES = new Set(["cpu", "memory", "ephemeral-storage"]);
const STANDARD_QUOTA_RESOURCES = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.storage",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
  "services",
  "replicationcontrollers",
  "resourcequotas",
  "secrets",
  "persistentvolumeclaims",
  "configmaps",
  "services.nodeports",
  "services.loadbalancers",
]);
const STANDARD_RESOURCES = new Set([...STANDARD_QUOTA_RESOURCES, "storage"]);
const INTEGER_RESOURCES = new Set([
  "pods",
  "services",
  "replicationcontrollers",
  "resourcequotas",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "services.nodeports",
  "services.loadbalancers",
]);

export function isNativeResource(name: string): boolean {
  return !name.includes("/") || name.includes("kubernetes.io/");
}

export function isHugePages(name: string): boolean {
  return name.startsWith("hugepages-");
}

function isQuotaHugePages(name: string): boolean {
  return name.startsWith("hugepages-") || name.startsWith("requests.hugepages-");
}

export function isExtendedResource(name: string): boolean {
  if (isNativeResource(name) || name.startsWith("requests.")) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

export function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePages(name);
}

/** `validateResourceName`: qualified, and standard unless prefixed. */
export function validateResourceName(name: string, field: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(field, name, m));
  if (errs.length > 0) return errs;
  if (!name.includes("/") && !STANDARD_RESOURCES.has(name) && !isQuotaHugePages(name)) {
    return [invalid(field, name, "must be a standard resource type or fully qualified")];
  }
  return [];
}

export function validateContainerResourceName(name: string, field: string): FieldError[] {
  const errs = validateResourceName(name, field);
  if (!name.includes("/")) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePages(name)) {
      errs.push(invalid(field, name, "must be a standard resource for containers"));
    }
  } else if (!isNativeResource(name) && !isExtendedResource(name)) {
    errs.push(invalid(field, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

export function validateQuotaResourceName(name: string, field: string): FieldError[] {
  const errs = validateResourceName(name, field);
  if (!name.includes("/") && !STANDARD_QUOTA_RESOURCES.has(name) && !isQuotaHugePages(name)) {
    errs.push(invalid(field, name, "must be a standard resource for quota"));
  }
  return errs;
}

/** `ValidateResourceQuantityValue`: parseable, non-negative, whole for countable resources. */
export function validateQuantityValue(resource: string, value: unknown, field: string): FieldError[] {
  const q = parseQuantity(value);
  if (!q) return [invalid(field, value, QUANTITY_PARSE_ERROR)];
  const errs: FieldError[] = [];
  if (quantitySign(q) < 0) errs.push(invalid(field, formatQuantity(q), "must be greater than or equal to 0"));
  const integer = INTEGER_RESOURCES.has(resource) || isExtendedResource(resource);
  if (integer && !isIntegerQuantity(q)) errs.push(invalid(field, formatQuantity(q), "must be an integer"));
  return errs;
}

/** Every entry of a container ResourceList: a container resource name and a valid quantity. */
export function validateContainerResourceList(list: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, value] of Object.entries(obj(list) ?? {})) {
    const p = key(field, name);
    errs.push(...validateContainerResourceName(name, p));
    errs.push(...validateQuantityValue(name, value, p));
  }
  return errs;
}
