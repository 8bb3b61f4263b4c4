/**
 * The dependencies annotation (pure): `resourcebinding.karmada.io/dependencies` on an
 * independent binding records what the interpreter found, in the form upstream's
 * `json.Marshal` writes, so that a change of a dependency object can be traced back to the
 * bindings depending on it; and the list as upstream's GetDependenciesSucceed event prints it.
 */
import type { StoredObject } from "../../api/meta.ts";
import type { DependentObjectReference } from "../../interpreter/types.ts";
import { ANNOTATION } from "../../karmada/names.ts";
import type { LabelSelector } from "../../machinery/labels.ts";

/** A label selector in the field order Go's `metav1.LabelSelector` marshals, empty parts left out. */
function selectorJson(sel: DependentObjectReference["labelSelector"]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (sel?.matchLabels && Object.keys(sel.matchLabels).length > 0) {
    out.matchLabels = Object.fromEntries(
      Object.entries(sel.matchLabels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }
  if (sel?.matchExpressions && sel.matchExpressions.length > 0) {
    out.matchExpressions = (sel.matchExpressions as LabelSelector["matchExpressions"] & object).map((e) => ({
      key: e.key,
      operator: e.operator,
      ...(e.values?.length ? { values: e.values } : {}),
    }));
  }
  return out;
}

/**
 * The annotation value: the dependencies as upstream's `json.Marshal` writes them (field
 * order apiVersion, kind, namespace, name, labelSelector; empty fields omitted; no
 * dependencies is `null`, as a nil slice marshals).
 */
export function dependenciesAnnotation(deps: readonly DependentObjectReference[]): string {
  if (deps.length === 0) return "null";
  return JSON.stringify(
    deps.map((d) => ({
      apiVersion: d.apiVersion,
      kind: d.kind,
      ...(d.namespace ? { namespace: d.namespace } : {}),
      ...(d.name ? { name: d.name } : {}),
      ...(d.labelSelector ? { labelSelector: selectorJson(d.labelSelector) } : {}),
    })),
  );
}

/** The dependencies an independent binding recorded; throws when the annotation is not valid JSON. */
export function recordedDependencies(binding: StoredObject): DependentObjectReference[] {
  const text = binding.metadata.annotations?.[ANNOTATION.dependencies];
  if (text === undefined) return [];
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed)
    ? (parsed.filter((d) => d && typeof d === "object") as DependentObjectReference[])
    : [];
}

/** Go's `%+v` of the dependency list, as upstream's GetDependenciesSucceed message prints it. */
export function formatDependencies(deps: readonly DependentObjectReference[]): string {
  const selector = (sel: DependentObjectReference["labelSelector"]): string => {
    if (!sel) return "nil";
    const labels = Object.entries(sel.matchLabels ?? {})
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}: ${v},`)
      .join("");
    const exprs = ((sel.matchExpressions ?? []) as NonNullable<LabelSelector["matchExpressions"]>)
      .map(
        (e) =>
          `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(" ")}],}`,
      )
      .join(",");
    return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
  };
  return `[${deps
    .map(
      (d) =>
        `{APIVersion:${d.apiVersion} Kind:${d.kind} Namespace:${d.namespace ?? ""} Name:${d.name ?? ""} LabelSelector:${selector(d.labelSelector)}}`,
    )
    .join(" ")}]`;
}
