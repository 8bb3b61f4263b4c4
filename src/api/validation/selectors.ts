/**
 * Labels and typed label selectors (`metav1.LabelSelector`): validation with apimachinery's
 * messages, and matching with the semantics of `LabelSelectorAsSelector`.
 */

import type { FieldError } from "../../machinery/errors.ts";
import { child, forbidden, index, invalid, required } from "./field.ts";
import { arr, type Obj, obj, objs, str, strMap, strs } from "./json.ts";
import { isQualifiedName, isValidLabelValue } from "./names.ts";

export function validateLabelName(name: string, field: string): FieldError[] {
  return isQualifiedName(name).map((m) => invalid(field, name, m));
}

/** Label maps: keys are qualified names, values label values; errors name the map, not the key. */
export function validateLabels(labels: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(strMap(labels) ?? {})) {
    errs.push(...validateLabelName(k, field));
    for (const m of isValidLabelValue(v)) errs.push(invalid(field, v, m));
  }
  return errs;
}

const OPERATORS = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);

export function validateLabelSelector(selector: unknown, field: string): FieldError[] {
  const sel = obj(selector);
  if (!sel) return [];
  const errs = validateLabels(sel.matchLabels, child(field, "matchLabels"));
  objs(sel.matchExpressions).forEach((expr, i) => {
    const p = index(child(field, "matchExpressions"), i);
    const op = str(expr.operator) ?? "";
    const values = strs(expr.values);
    if (op === "In" || op === "NotIn") {
      if (values.length === 0)
        errs.push(required(child(p, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === "Exists" || op === "DoesNotExist") {
      if (values.length > 0)
        errs.push(
          forbidden(child(p, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
    } else {
      errs.push(invalid(child(p, "operator"), op, "not a valid selector operator"));
    }
    errs.push(...validateLabelName(str(expr.key) ?? "", child(p, "key")));
    values.forEach((v, j) => {
      for (const m of isValidLabelValue(v)) errs.push(invalid(index(child(p, "values"), j), v, m));
    });
  });
  return errs;
}

/**
 * A selector in the form apimachinery converts it to: `nothing` for a missing selector,
 * `everything` for one without requirements, `invalid` when conversion fails.
 */
export type CompiledSelector =
  | { kind: "nothing" }
  | { kind: "everything" }
  | { kind: "invalid" }
  | { kind: "requirements"; match: (labels: Record<string, string>) => boolean };

export function compileSelector(selector: unknown): CompiledSelector {
  const sel = obj(selector);
  if (!sel) return { kind: "nothing" };
  const checks: Array<(l: Record<string, string>) => boolean> = [];
  for (const [k, v] of Object.entries(strMap(sel.matchLabels) ?? {})) {
    if (isQualifiedName(k).length > 0 || isValidLabelValue(v).length > 0) return { kind: "invalid" };
    checks.push((l) => l[k] === v);
  }
  for (const expr of objs(sel.matchExpressions)) {
    const c = compileRequirement(expr);
    if (!c) return { kind: "invalid" };
    checks.push(c);
  }
  if (checks.length === 0) return { kind: "everything" };
  return { kind: "requirements", match: (l) => checks.every((c) => c(l)) };
}

function compileRequirement(expr: Obj): ((l: Record<string, string>) => boolean) | undefined {
  const k = str(expr.key) ?? "";
  const op = str(expr.operator) ?? "";
  const values = strs(expr.values);
  if (!OPERATORS.has(op) || isQualifiedName(k).length > 0) return undefined;
  if (values.some((v) => isValidLabelValue(v).length > 0)) return undefined;
  switch (op) {
    case "In":
      if (values.length === 0) return undefined;
      return (l) => k in l && values.includes(l[k]!);
    case "NotIn":
      if (values.length === 0) return undefined;
      return (l) => !(k in l) || !values.includes(l[k]!);
    case "Exists":
      if (values.length > 0) return undefined;
      return (l) => k in l;
    default:
      if (values.length > 0) return undefined;
      return (l) => !(k in l);
  }
}

export function selectorMatches(sel: CompiledSelector, labels: unknown): boolean {
  const l = strMap(labels) ?? {};
  switch (sel.kind) {
    case "nothing":
    case "invalid":
      return false;
    case "everything":
      return true;
    case "requirements":
      return sel.match(l);
  }
}

/** True for `{}` selectors: no matchLabels and no matchExpressions. */
export function selectorHasNoRequirements(selector: unknown): boolean {
  const sel = obj(selector);
  if (!sel) return false;
  return Object.keys(strMap(sel.matchLabels) ?? {}).length + (arr(sel.matchExpressions)?.length ?? 0) === 0;
}
