/**
 * The override engine's public surface: apply the override policies to a template for one
 * cluster, and record what was applied on the Work.
 */

export { appliedOverridesAnnotation } from "./applied-annotation.ts";
export {
  type AppliedOverride,
  applyOverriders,
  applyOverrides,
  type MatchingOverriders,
  matchingOverriders,
  OverrideError,
  type OverridePolicyObject,
  type OverrideResult,
} from "./apply.ts";
