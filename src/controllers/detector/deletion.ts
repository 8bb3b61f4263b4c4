/**
 * A policy being deleted: its claims leave the bindings, then the templates, and only then does
 * its finalizer go, so that no template is left claimed by a policy that no longer exists (the
 * templates are matched afresh as their claims go).
 */
import type { Client } from "../../client/client.ts";
import { FINALIZER, LABEL } from "../../karmada/names.ts";
import { KARMADA } from "../../karmada/resources.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { commit, hasFinalizer, removeFinalizer } from "../../runtime/commit.ts";
import type { BindingInformers } from "./binding.ts";
import { CLAIM_INDEX, patchIfNeeded, unclaimPatch } from "./claim.ts";
import type { PolicyLookup } from "./match.ts";
import type { Kind } from "./watches.ts";

export interface DeletionDeps {
  client: Client;
  policies: PolicyLookup;
  bindings: BindingInformers;
  /** The template kinds watched so far. */
  kinds: () => Iterable<Kind>;
}

/** Releases what the policy `ns/name` claims once it is being deleted, then drops its finalizer. */
export async function releaseDeletedPolicy(
  deps: DeletionDeps,
  clusterScoped: boolean,
  ns: string | undefined,
  name: string,
): Promise<void> {
  const { client, policies, bindings } = deps;
  const policy = clusterScoped
    ? policies.clusterPropagationPolicy(name)
    : policies.propagationPolicy(ns, name);
  const finalizer = clusterScoped ? FINALIZER.clusterPropagationPolicy : FINALIZER.propagationPolicy;
  if (!policy?.metadata.deletionTimestamp || !hasFinalizer(policy, finalizer)) return;
  const id = policy.metadata.labels?.[clusterScoped ? LABEL.cppPermanentId : LABEL.ppPermanentId];
  if (id) {
    for (const b of [...bindings.rbs.byIndex(CLAIM_INDEX, id), ...bindings.crbs.byIndex(CLAIM_INDEX, id)]) {
      await patchIfNeeded(
        client,
        b.metadata.namespace ? KARMADA.resourceBindings : KARMADA.clusterResourceBindings,
        b,
        unclaimPatch(b),
      );
    }
    for (const k of deps.kinds())
      for (const t of k.informer.byIndex(CLAIM_INDEX, id))
        await patchIfNeeded(client, k.ref, t, unclaimPatch(t));
  }
  const next = cloneJson(policy);
  removeFinalizer(next, finalizer);
  await commit(
    client,
    clusterScoped ? KARMADA.clusterPropagationPolicies : KARMADA.propagationPolicies,
    policy,
    next,
  );
}
