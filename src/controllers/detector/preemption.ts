/**
 * Step 2, preemption (feature gate PropagationPolicyPreemption): whether a policy with
 * `preemption: Always` takes a claimed template from its claimer, by upstream's order
 * (high-priority PP > low-priority PP > CPP): a PP preempts a PP of strictly lower priority and
 * any CPP; a CPP preempts only a CPP of strictly lower priority. Only templates a preempting
 * policy names are taken, as upstream fetches them by their selectors' names. The decision is
 * pure; applying the winner records upstream's events.
 */
import type { StoredObject } from "../../api/meta.ts";
import { bestPolicy, PRIORITY_MATCH_NAME, selectorPriority } from "../../policy/resource-selector.ts";
import type { EventRecorder } from "../../runtime/events.ts";
import type { Candidate, Policy, PolicyLookup } from "./match.ts";

/** The policy that preempts `claimer` on `template`, or undefined (the gate is the caller's). */
export function preemptor(
  template: StoredObject,
  claimer: Candidate,
  policies: PolicyLookup,
): Candidate | undefined {
  const claimerIsCpp = claimer.clusterScoped;
  const priority = (p: Policy) => p.spec.priority ?? 0;
  const candidates = (list: Policy[], beats: (p: Policy) => boolean) =>
    list.filter(
      (p) =>
        p.metadata.uid !== claimer.policy.metadata.uid &&
        p.spec.preemption === "Always" &&
        (p.spec.resourceSelectors ?? []).some((s) => selectorPriority(template, s) === PRIORITY_MATCH_NAME) &&
        beats(p),
    );
  const ns = template.metadata.namespace;
  if (ns) {
    const pp = bestPolicy(
      template,
      candidates(
        policies.propagationPolicies(ns),
        (p) => claimerIsCpp || priority(p) > priority(claimer.policy),
      ),
    );
    if (pp) return { policy: pp, clusterScoped: false };
  }
  if (!claimerIsCpp) return undefined;
  const cpp = bestPolicy(
    template,
    candidates(policies.clusterPropagationPolicies(), (p) => priority(p) > priority(claimer.policy)),
  );
  return cpp ? { policy: cpp, clusterScoped: true } : undefined;
}

/** How upstream's preemption events name a policy. */
export function policyText({ policy, clusterScoped }: Candidate): string {
  return clusterScoped
    ? `cluster propagation policy(${policy.metadata.name})`
    : `propagation policy(${policy.metadata.namespace}/${policy.metadata.name})`;
}

/** Applies the preempting policy (`apply`), recording whether it took the template from `claimer`. */
export async function preempt(
  events: EventRecorder,
  template: StoredObject,
  claimer: Candidate,
  winner: Candidate,
  apply: () => Promise<void>,
): Promise<void> {
  const text = policyText(winner);
  const what = text[0]!.toUpperCase() + text.slice(1);
  try {
    await apply();
  } catch (err) {
    events.event(
      template,
      "Warning",
      "PreemptPolicyFailed",
      `${what} failed to preempt ${policyText(claimer)}: ${(err as Error).message}`,
    );
    throw err;
  }
  events.event(
    template,
    "Normal",
    "PreemptPolicySucceed",
    `${what} preempted ${policyText(claimer)} successfully`,
  );
}
