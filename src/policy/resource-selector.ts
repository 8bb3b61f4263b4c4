/**
 * Matching resource templates to policies' `resourceSelectors`, with upstream's implicit
 * priorities (name match 3 > label selector 2 > kind only 1 > no match 0), and choosing the
 * policy that claims a template: highest explicit `priority`, then implicit priority, then the
 * smallest name.
 */
import type { KubeObject } from "../api/meta.ts";
import type { ResourceSelector } from "../karmada/types.ts";
import { fromLabelSelector, matches } from "../machinery/labels.ts";

export const PRIORITY_MISMATCH = 0;
export const PRIORITY_MATCH_ALL = 1;
export const PRIORITY_MATCH_LABEL_SELECTOR = 2;
export const PRIORITY_MATCH_NAME = 3;

/** How well one selector matches a template (0: not at all). */
export function selectorPriority(template: KubeObject, selector: ResourceSelector): number {
  const meta = template.metadata ?? {};
  if (template.apiVersion !== selector.apiVersion || template.kind !== selector.kind)
    return PRIORITY_MISMATCH;
  if (selector.namespace && selector.namespace !== (meta.namespace ?? "")) return PRIORITY_MISMATCH;
  if (selector.name) return selector.name === meta.name ? PRIORITY_MATCH_NAME : PRIORITY_MISMATCH;
  if (selector.labelSelector) {
    return matches(fromLabelSelector(selector.labelSelector), meta.labels)
      ? PRIORITY_MATCH_LABEL_SELECTOR
      : PRIORITY_MISMATCH;
  }
  return PRIORITY_MATCH_ALL;
}

/** The best priority over several selectors (0 when none matches). */
export function implicitPriority(
  template: KubeObject,
  selectors: readonly ResourceSelector[] | undefined,
): number {
  let best = PRIORITY_MISMATCH;
  for (const s of selectors ?? []) best = Math.max(best, selectorPriority(template, s));
  return best;
}

export interface PolicyLike {
  metadata: { name?: string; deletionTimestamp?: string };
  spec?: { resourceSelectors?: ResourceSelector[]; priority?: number };
}

/** The policy that claims `template` among `policies`, or undefined. */
export function bestPolicy<P extends PolicyLike>(
  template: KubeObject,
  policies: readonly P[],
): P | undefined {
  let best: { policy: P; explicit: number; implicit: number } | undefined;
  for (const policy of policies) {
    if (policy.metadata.deletionTimestamp) continue;
    const implicit = implicitPriority(template, policy.spec?.resourceSelectors);
    if (implicit === PRIORITY_MISMATCH) continue;
    const explicit = policy.spec?.priority ?? 0;
    const better =
      !best ||
      explicit > best.explicit ||
      (explicit === best.explicit &&
        (implicit > best.implicit ||
          (implicit === best.implicit && (policy.metadata.name ?? "") < (best.policy.metadata.name ?? ""))));
    if (better) best = { policy, explicit, implicit };
  }
  return best?.policy;
}
