/**
 * Applies OverridePolicies and ClusterOverridePolicies to a resource template for one member
 * cluster, in upstream's order (pkg/util/overridemanager):
 * 1. all ClusterOverridePolicies, then, for namespaced templates only, the OverridePolicies of
 *    the template's namespace;
 * 2. within each set, the policies whose resourceSelectors match (none = all resources),
 *    sorted by implicit priority ascending (match-all < label selector < name), then by name,
 *    so that the more specific policy is applied later and wins;
 * 3. within a policy, every overrideRule whose targetCluster matches the cluster (none = all),
 *    in list order, or the deprecated targetCluster + overriders pair when there are no rules;
 * 4. within a rule: image, command, args, labels, annotations, field, then plaintext.
 * The first failure aborts with an {@link OverrideError}.
 */
import type { KubeObject } from "../api/meta.ts";
import type { ClusterObject, Overriders, OverrideSpec } from "../karmada/types.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { clusterMatches } from "../policy/cluster-affinity.ts";
import { implicitPriority, PRIORITY_MATCH_ALL, PRIORITY_MISMATCH } from "../policy/resource-selector.ts";
import { applyCommandArgsOverriders } from "./command-args.ts";
import { applyFieldOverriders } from "./field.ts";
import { applyImageOverriders } from "./image.ts";
import { applyLabelAnnotationOverriders } from "./labels-annotations.ts";
import { applyPlaintextOverriders } from "./plaintext.ts";

export interface OverridePolicyObject {
  metadata: { name: string; namespace?: string };
  spec: OverrideSpec;
}

/** One rule's overriders that were applied, recorded on the Work (see applied-annotation.ts). */
export interface AppliedOverride {
  policyName: string;
  overriders: Overriders;
}

export interface OverrideResult {
  object: KubeObject;
  /** Present when at least one ClusterOverridePolicy rule applied, in application order. */
  appliedClusterOverrides?: AppliedOverride[];
  /** Present when at least one OverridePolicy rule applied, in application order. */
  appliedOverrides?: AppliedOverride[];
}

/** Applying a policy failed; the Work for this cluster cannot be made. */
export class OverrideError extends Error {
  readonly policy: { name: string; namespace?: string };
  readonly cluster: string;
  /** Whether the policy is a ClusterOverridePolicy. */
  readonly clusterPolicy: boolean;

  constructor(
    policy: { name: string; namespace?: string },
    cluster: string,
    clusterPolicy: boolean,
    cause: unknown,
  ) {
    const what = clusterPolicy
      ? `cluster override policy(${policy.name})`
      : `override policy(${policy.namespace ?? ""}/${policy.name})`;
    super(
      `Apply ${what} for cluster(${cluster}) failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    );
    this.name = "OverrideError";
    this.policy = policy;
    this.cluster = cluster;
    this.clusterPolicy = clusterPolicy;
  }
}

/** One rule of one policy that applies to the template and the cluster. */
export interface MatchingOverriders {
  policy: OverridePolicyObject;
  overriders: Overriders;
}

function priorityOf(template: KubeObject, policy: OverridePolicyObject): number {
  const selectors = policy.spec.resourceSelectors ?? [];
  return selectors.length === 0 ? PRIORITY_MATCH_ALL : implicitPriority(template, selectors);
}

/**
 * The rules of `policies` that apply to `template` in `cluster`, in the order they are
 * applied (upstream's getOverridersFromOverridePolicies).
 */
export function matchingOverriders(
  template: KubeObject,
  cluster: ClusterObject,
  policies: readonly OverridePolicyObject[],
): MatchingOverriders[] {
  const ranked = policies
    .map((policy) => ({ policy, priority: priorityOf(template, policy) }))
    .filter((p) => p.priority !== PRIORITY_MISMATCH)
    .sort(
      (a, b) =>
        a.priority - b.priority ||
        (a.policy.metadata.name < b.policy.metadata.name
          ? -1
          : a.policy.metadata.name > b.policy.metadata.name
            ? 1
            : 0),
    );
  const result: MatchingOverriders[] = [];
  for (const { policy } of ranked) {
    const spec = policy.spec;
    const rules = spec.overrideRules?.length
      ? spec.overrideRules
      : [{ targetCluster: spec.targetCluster, overriders: spec.overriders ?? {} }];
    for (const rule of rules) {
      if (!rule.targetCluster || clusterMatches(cluster, rule.targetCluster)) {
        result.push({ policy, overriders: rule.overriders ?? {} });
      }
    }
  }
  return result;
}

/** Applies one rule's overriders in upstream's fixed order; throws the first failure. */
export function applyOverriders(object: KubeObject, overriders: Overriders): KubeObject {
  object = applyImageOverriders(object, overriders.imageOverrider ?? []);
  object = applyCommandArgsOverriders("command", object, overriders.commandOverrider ?? []);
  object = applyCommandArgsOverriders("args", object, overriders.argsOverrider ?? []);
  object = applyLabelAnnotationOverriders("labels", object, overriders.labelsOverrider ?? []);
  object = applyLabelAnnotationOverriders("annotations", object, overriders.annotationsOverrider ?? []);
  object = applyFieldOverriders(object, overriders.fieldOverrider ?? []);
  if (overriders.plaintext?.length) object = applyPlaintextOverriders(object, overriders.plaintext);
  return object;
}

function applySet(
  object: KubeObject,
  cluster: ClusterObject,
  policies: readonly OverridePolicyObject[],
  clusterPolicy: boolean,
): { object: KubeObject; applied?: AppliedOverride[] } {
  const matching = matchingOverriders(object, cluster, policies);
  if (matching.length === 0) return { object };
  const applied: AppliedOverride[] = [];
  for (const { policy, overriders } of matching) {
    try {
      object = applyOverriders(object, overriders);
    } catch (err) {
      throw new OverrideError(policy.metadata, cluster.metadata.name ?? "", clusterPolicy, err);
    }
    applied.push({ policyName: policy.metadata.name, overriders: cloneJson(overriders) });
  }
  return { object, applied };
}

/**
 * The template as `cluster` should get it, and what was applied. The template is not
 * modified. OverridePolicies from another namespace than the template's are ignored.
 */
export function applyOverrides(
  template: KubeObject,
  cluster: ClusterObject,
  policies: { cluster: readonly OverridePolicyObject[]; namespaced: readonly OverridePolicyObject[] },
): OverrideResult {
  const result: OverrideResult = { object: cloneJson(template) };
  const fromCluster = applySet(result.object, cluster, policies.cluster, true);
  result.object = fromCluster.object;
  if (fromCluster.applied) result.appliedClusterOverrides = fromCluster.applied;

  // Upstream reads the namespace after the cluster policies, as it matches OverridePolicies.
  const namespace = result.object.metadata?.namespace;
  if (namespace) {
    const own = policies.namespaced.filter((p) => (p.metadata.namespace ?? namespace) === namespace);
    const fromNamespace = applySet(result.object, cluster, own, false);
    result.object = fromNamespace.object;
    if (fromNamespace.applied) result.appliedOverrides = fromNamespace.applied;
  }
  return result;
}
