/**
 * The value of the `policy.karmada.io/applied-overrides` and
 * `policy.karmada.io/applied-cluster-overrides` Work annotations: a JSON array of
 * `{"policyName", "overriders"}` sorted by policy name, byte for byte as upstream's
 * AppliedOverrides.MarshalJSON writes it (Go struct field order, empty lists left out,
 * `value` of plaintext and field operations always present, `null` when unset).
 */
import type { Overriders } from "../karmada/types.ts";
import type { AppliedOverride } from "./apply.ts";
import { marshalGoJson, quoteGoJsonString as q } from "./go-json.ts";

/** Members in order; `undefined` members are left out. */
function object(members: Array<[string, string | undefined]>): string {
  return `{${members
    .filter((m): m is [string, string] => m[1] !== undefined)
    .map(([k, v]) => `${q(k)}:${v}`)
    .join(",")}}`;
}

/** A list field with `omitempty`: left out when empty. */
function list<T>(items: readonly T[] | undefined, item: (i: T) => string): string | undefined {
  return items?.length ? `[${items.map(item).join(",")}]` : undefined;
}

type PatchItem = { subPath: string; operator: string; value?: unknown };

function patchItem(o: PatchItem): string {
  return object([
    ["subPath", q(o.subPath)],
    ["operator", q(o.operator)],
    ["value", marshalGoJson(o.value ?? null)],
  ]);
}

/** Overriders as Go marshals the struct. */
export function overridersJson(o: Overriders): string {
  return object([
    [
      "plaintext",
      list(o.plaintext, (p) =>
        object([
          ["path", q(p.path)],
          ["operator", q(p.operator)],
          ["value", marshalGoJson(p.value ?? null)],
        ]),
      ),
    ],
    [
      "imageOverrider",
      list(o.imageOverrider, (i) =>
        object([
          ["predicate", i.predicate ? object([["path", q(i.predicate.path)]]) : undefined],
          ["component", q(i.component)],
          ["operator", q(i.operator)],
          ["value", i.value ? q(i.value) : undefined],
        ]),
      ),
    ],
    ...(["commandOverrider", "argsOverrider"] as const).map((field): [string, string | undefined] => [
      field,
      list(o[field], (c) =>
        object([
          ["containerName", q(c.containerName)],
          ["operator", q(c.operator)],
          ["value", c.value?.length ? marshalGoJson(c.value) : undefined],
        ]),
      ),
    ]),
    ...(["labelsOverrider", "annotationsOverrider"] as const).map((field): [string, string | undefined] => [
      field,
      list(o[field], (l) =>
        object([
          ["operator", q(l.operator)],
          ["value", marshalGoJson(l.value ?? null)],
        ]),
      ),
    ]),
    [
      "fieldOverrider",
      list(o.fieldOverrider, (f) =>
        object([
          ["fieldPath", q(f.fieldPath)],
          ["json", list(f.json, patchItem)],
          ["yaml", list(f.yaml, patchItem)],
        ]),
      ),
    ],
  ]);
}

/**
 * The annotation value for the applied overrides of one kind of policy, or undefined when
 * there are none (upstream then leaves the annotation out). Items of the same policy keep
 * their order.
 */
export function appliedOverridesAnnotation(applied: readonly AppliedOverride[]): string | undefined {
  if (applied.length === 0) return undefined;
  const sorted = [...applied].sort((a, b) =>
    a.policyName < b.policyName ? -1 : a.policyName > b.policyName ? 1 : 0,
  );
  return `[${sorted
    .map((a) =>
      object([
        ["policyName", q(a.policyName)],
        ["overriders", overridersJson(a.overriders)],
      ]),
    )
    .join(",")}]`;
}
