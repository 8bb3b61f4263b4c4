/**
 * How our bundled third-party interpreters are written: one ResourceInterpreterCustomization
 * per kind, its Lua scripts given per customization rule (upstream's function names and
 * signatures). Scripts may start with shared Lua helpers from `lib.ts`; each script stays
 * self-contained, as the engine runs every rule on its own.
 */
import type { NewObject } from "../../api/meta.ts";

export type Rule =
  | "retention"
  | "replicaResource"
  | "replicaRevision"
  | "statusReflection"
  | "statusAggregation"
  | "healthInterpretation"
  | "dependencyInterpretation"
  | "componentResource";

export function customization(
  apiVersion: string,
  kind: string,
  scripts: Partial<Record<Rule, string>>,
): NewObject {
  const group = apiVersion.split("/")[0]!;
  return {
    apiVersion: "config.karmada.io/v1alpha1",
    kind: "ResourceInterpreterCustomization",
    metadata: { name: `karmada-ts-${kind.toLowerCase()}.${group}` },
    spec: {
      target: { apiVersion, kind },
      customizations: Object.fromEntries(
        Object.entries(scripts).map(([rule, luaScript]) => [rule, { luaScript }]),
      ),
    },
  };
}
