/**
 * Which objects a list or watch returns: label and field selectors, parsed once per
 * request, applied per object.
 */
import type { StoredObject } from "../api/meta.ts";
import { badRequest } from "../machinery/errors.ts";
import {
  type FieldRequirement,
  FieldSelectorParseError,
  fieldsMatch,
  parseFieldSelector,
} from "../machinery/fields.ts";
import { matches, parseSelector, type Selector, SelectorParseError } from "../machinery/labels.ts";
import type { ResourceType } from "./resource-type.ts";

export interface Selection {
  labels: Selector;
  fields: FieldRequirement[];
  /** True when nothing is filtered. */
  everything: boolean;
  test(obj: StoredObject): boolean;
}

export function parseSelection(
  rt: ResourceType,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): Selection {
  let labels: Selector;
  let fields: FieldRequirement[];
  try {
    labels = parseSelector(labelSelector ?? "");
  } catch (e) {
    if (e instanceof SelectorParseError) throw badRequest(`unable to parse requirement: ${e.message}`);
    throw e;
  }
  try {
    fields = parseFieldSelector(fieldSelector ?? "");
  } catch (e) {
    if (e instanceof FieldSelectorParseError) throw badRequest(e.message);
    throw e;
  }
  for (const f of fields) {
    if (f.field === "metadata.name" || (f.field === "metadata.namespace" && rt.namespaced)) continue;
    if (rt.fieldSelectors[f.field]) continue;
    const known = Object.keys(rt.fieldSelectors);
    if (known.length === 0) {
      const base = rt.namespaced ? `only "metadata.name", "metadata.namespace"` : `only "metadata.name"`;
      throw badRequest(`"${f.field}" is not a known field selector: ${base}`);
    }
    throw badRequest(`field label not supported: ${f.field}`);
  }
  const everything = labels.length === 0 && fields.length === 0;
  return {
    labels,
    fields,
    everything,
    test: everything
      ? () => true
      : (obj) =>
          matches(labels, obj.metadata.labels) &&
          (fields.length === 0 || fieldsMatch(fields, fieldValues(rt, obj, fields))),
  };
}

function fieldValues(
  rt: ResourceType,
  obj: StoredObject,
  wanted: FieldRequirement[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of wanted) {
    if (f.field === "metadata.name") out[f.field] = obj.metadata.name ?? "";
    else if (f.field === "metadata.namespace") out[f.field] = obj.metadata.namespace ?? "";
    else out[f.field] = rt.fieldSelectors[f.field]?.(obj) ?? "";
  }
  return out;
}

/** When the whole selection is `metadata.name=<n>`, that name: lets a watch or list read one key. */
export function singleName(sel: Selection): string | undefined {
  if (sel.labels.length > 0) return undefined;
  const byName = sel.fields.filter((f) => f.field === "metadata.name" && f.operator === "=");
  return byName.length === 1 && sel.fields.length === 1 ? byName[0]!.value : undefined;
}
