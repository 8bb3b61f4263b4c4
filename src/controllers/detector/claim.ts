/**
 * Step 3, the claim: the labels and annotations saying which policy a template belongs to
 * (the policy's permanent id, its name and namespace), written on the template and, by the
 * binding step, on its binding. Claiming drops the other kind's claim (a template moving
 * between a CPP and a PP); unclaiming removes every claim key present, binding first. The
 * patches are pure; writing them is here too: on the template being reconciled through the
 * committer, on other objects (bindings, a deleted policy's templates) as plain patches.
 */
import type { KubeObject, StoredObject } from "../../api/meta.ts";
import type { Client, ResourceRef } from "../../client/client.ts";
import { ANNOTATION, LABEL } from "../../karmada/names.ts";
import { isNotFound } from "../../machinery/errors.ts";
import { applyMergePatch } from "../../machinery/merge-patch.ts";
import { commit } from "../../runtime/commit.ts";
import { type BindingInformers, bindingOf } from "./binding.ts";
import type { Candidate } from "./match.ts";
import type { Kind } from "./watches.ts";

export const CLAIM_LABELS = [LABEL.ppPermanentId, LABEL.cppPermanentId];
export const CLAIM_ANNOTATIONS = [ANNOTATION.ppNamespace, ANNOTATION.ppName, ANNOTATION.cppName];

/** Templates and bindings by the permanent ids of the policies claiming them. */
export const CLAIM_INDEX = "claim";
export const claimIndexValues = (o: StoredObject): string[] =>
  CLAIM_LABELS.map((k) => o.metadata.labels?.[k]).filter((v): v is string => !!v);

export interface Claim {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** What a claim looks like on a template and on its binding. */
export function claimOf({ policy, clusterScoped }: Candidate): Claim {
  const id = policy.metadata.labels?.[clusterScoped ? LABEL.cppPermanentId : LABEL.ppPermanentId] ?? "";
  return clusterScoped
    ? { labels: { [LABEL.cppPermanentId]: id }, annotations: { [ANNOTATION.cppName]: policy.metadata.name } }
    : {
        labels: { [LABEL.ppPermanentId]: id },
        annotations: {
          [ANNOTATION.ppNamespace]: policy.metadata.namespace!,
          [ANNOTATION.ppName]: policy.metadata.name,
        },
      };
}

type ClaimPatch = {
  metadata: { labels: Record<string, string | null>; annotations: Record<string, string | null> };
};

/** A merge patch removing every claim label and annotation present on `obj`, or undefined. */
export function unclaimPatch(obj: StoredObject): ClaimPatch | undefined {
  const labels = Object.fromEntries(
    CLAIM_LABELS.filter((k) => obj.metadata.labels?.[k] !== undefined).map((k) => [k, null]),
  );
  const annotations = Object.fromEntries(
    CLAIM_ANNOTATIONS.filter((k) => obj.metadata.annotations?.[k] !== undefined).map((k) => [k, null]),
  );
  if (Object.keys(labels).length === 0 && Object.keys(annotations).length === 0) return undefined;
  return { metadata: { labels, annotations } };
}

/** The merge patch claiming `template`, or undefined when it carries the claim already. */
export function claimPatch(template: StoredObject, claim: Claim): ClaimPatch | undefined {
  const labels = template.metadata.labels ?? {};
  const annotations = template.metadata.annotations ?? {};
  const claimed =
    Object.entries(claim.labels).every(([key, v]) => labels[key] === v) &&
    Object.entries(claim.annotations).every(([key, v]) => annotations[key] === v);
  if (claimed) return undefined;
  // A template moving from a CPP to a PP (or back) loses the other claim.
  const drop = unclaimPatch(template);
  return {
    metadata: {
      labels: { ...drop?.metadata.labels, ...claim.labels },
      annotations: { ...drop?.metadata.annotations, ...claim.annotations },
    },
  };
}

/**
 * Commits a claim change of the template being reconciled (its cached resourceVersion the
 * precondition); returns the template as it now stands, undefined when it is gone.
 */
async function commitClaim(
  client: Client,
  k: Pick<Kind, "ref">,
  template: StoredObject,
  patch: ClaimPatch | undefined,
): Promise<StoredObject | undefined> {
  if (!patch) return template;
  return commit(client, k.ref, template, applyMergePatch(template, patch) as KubeObject);
}

/** Claims `template`; returns it as it now stands (undefined: gone). */
export function claimTemplate(
  client: Client,
  k: Pick<Kind, "ref">,
  template: StoredObject,
  claim: Claim,
): Promise<StoredObject | undefined> {
  return commitClaim(client, k, template, claimPatch(template, claim));
}

/** Applies a merge patch, if any; an object gone meanwhile needs none. */
export async function patchIfNeeded(
  client: Pick<Client, "patch">,
  ref: ResourceRef,
  obj: StoredObject,
  patch: ClaimPatch | undefined,
): Promise<void> {
  if (!patch) return;
  try {
    await client.patch(ref, obj.metadata.namespace, obj.metadata.name, "merge", patch);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Removes the claim from the template's binding, then from the template (the one being
 * reconciled); returns the template as it now stands (undefined: gone).
 */
export async function unclaim(
  client: Client,
  bindings: BindingInformers,
  k: Pick<Kind, "ref" | "kind">,
  template: StoredObject,
): Promise<StoredObject | undefined> {
  const b = bindingOf(template, k.kind, bindings);
  const binding = b.informer.get(template.metadata.namespace, b.name);
  if (binding) await patchIfNeeded(client, b.ref, binding, unclaimPatch(binding));
  return commitClaim(client, k, template, unclaimPatch(template));
}
