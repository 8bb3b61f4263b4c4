/**
 * Step 1, which policy a template belongs to (pure). A claim the template carries holds while
 * its policy exists under the same permanent id and still selects the template; otherwise it
 * is stale and goes. An unclaimed template takes the best PropagationPolicy of its namespace
 * (explicit priority, then how precisely a selector names it), else the best
 * ClusterPropagationPolicy. A policy applies only once the override policies it lists in
 * `dependentOverrides` exist.
 */
import type { StoredObject } from "../../api/meta.ts";
import { ANNOTATION, LABEL } from "../../karmada/names.ts";
import type { PropagationSpec } from "../../karmada/types.ts";
import { bestPolicy, implicitPriority } from "../../policy/resource-selector.ts";

export type Policy = StoredObject & { spec: PropagationSpec };

/** A policy with its scope: a ClusterPropagationPolicy when `clusterScoped`. */
export interface Candidate {
  policy: Policy;
  clusterScoped: boolean;
}

/** The policies a decision may look at: the controller's caches, or arrays in a test. */
export interface PolicyLookup {
  propagationPolicy(namespace: string | undefined, name: string): Policy | undefined;
  clusterPropagationPolicy(name: string): Policy | undefined;
  propagationPolicies(namespace: string): Policy[];
  clusterPropagationPolicies(): Policy[];
  overridePolicyExists(namespace: string | undefined, name: string): boolean;
  clusterOverridePolicyExists(name: string): boolean;
}

/** What the claim a template carries amounts to now. */
export type HeldClaim =
  | { state: "unclaimed" }
  /** Its policy still claims it (it may yet be preempted). */
  | { state: "held"; claimer: Candidate }
  /** Its policy is gone, was recreated, or no longer selects it: unclaim, then match afresh. */
  | { state: "stale" }
  /** Its policy is being deleted: wait until that policy has released its templates. */
  | { state: "deleting"; reason: string };

/** Whether `policy` (by its permanent id in `idLabel`) is still the one the template's claim names and still selects it. */
function stillClaims(template: StoredObject, policy: Policy, idLabel: string): boolean {
  return (
    policy.metadata.labels?.[idLabel] === template.metadata.labels?.[idLabel] &&
    implicitPriority(template, policy.spec.resourceSelectors) > 0
  );
}

/** The claim on `template`: a PropagationPolicy's claim is looked at first, a ClusterPropagationPolicy's otherwise. */
export function heldClaim(template: StoredObject, policies: PolicyLookup): HeldClaim {
  const labels = template.metadata.labels ?? {};
  const annotations = template.metadata.annotations ?? {};
  const ppName = annotations[ANNOTATION.ppName];
  const ppNamespace = annotations[ANNOTATION.ppNamespace];
  if (template.metadata.namespace && labels[LABEL.ppPermanentId] && ppName && ppNamespace) {
    const pp = policies.propagationPolicy(ppNamespace, ppName);
    if (pp?.metadata.deletionTimestamp)
      return { state: "deleting", reason: `propagation policy ${pp.metadata.name} is being deleted` };
    return pp && stillClaims(template, pp, LABEL.ppPermanentId)
      ? { state: "held", claimer: { policy: pp, clusterScoped: false } }
      : { state: "stale" };
  }
  const cppName = annotations[ANNOTATION.cppName];
  if (labels[LABEL.cppPermanentId] && cppName) {
    const cpp = policies.clusterPropagationPolicy(cppName);
    if (cpp?.metadata.deletionTimestamp)
      return {
        state: "deleting",
        reason: `cluster propagation policy ${cpp.metadata.name} is being deleted`,
      };
    // A PP created later takes over only by preemption, as upstream.
    return cpp && stillClaims(template, cpp, LABEL.cppPermanentId)
      ? { state: "held", claimer: { policy: cpp, clusterScoped: true } }
      : { state: "stale" };
  }
  return { state: "unclaimed" };
}

/** The policy an unclaimed template goes to: the best PP of its namespace, else the best CPP. */
export function bestMatch(template: StoredObject, policies: PolicyLookup): Candidate | undefined {
  const ns = template.metadata.namespace;
  const pp = ns ? bestPolicy(template, policies.propagationPolicies(ns)) : undefined;
  if (pp) return { policy: pp, clusterScoped: false };
  const cpp = bestPolicy(template, policies.clusterPropagationPolicies());
  return cpp ? { policy: cpp, clusterScoped: true } : undefined;
}

/** `dependentOverrides` not there yet: OverridePolicies of the PP's namespace, ClusterOverridePolicies for a CPP. */
export function missingOverrides({ policy, clusterScoped }: Candidate, policies: PolicyLookup): string[] {
  return (policy.spec.dependentOverrides ?? []).filter((name) =>
    clusterScoped
      ? !policies.clusterOverridePolicyExists(name)
      : !policies.overridePolicyExists(policy.metadata.namespace, name),
  );
}

/** Lazy activation: the policy's changes wait for each template's own next change. */
export const lazy = (p: StoredObject): boolean =>
  (p.spec as PropagationSpec | undefined)?.activationPreference === "Lazy";
