/**
 * One node-selector requirement (core/v1 NodeSelectorRequirement) against one value, as
 * Kubernetes' node affinity evaluates it: `In`, `NotIn`, `Exists`, `DoesNotExist`, and the
 * integer comparisons `Gt`/`Lt`. An absent value is `undefined`.
 */
export interface SelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export function requirementMatches(r: SelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      if (value === undefined || !/^-?\d+$/.test(value) || values.length !== 1) return false;
      const n = Number(value);
      const bound = Number(values[0]);
      return r.operator === "Gt" ? n > bound : n < bound;
    }
    default:
      return false;
  }
}
