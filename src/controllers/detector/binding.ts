/**
 * Step 4, the binding: a claimed template gets a ResourceBinding (a ClusterResourceBinding
 * when cluster-scoped) named after it, owned by it, carrying the claim, the policy's
 * propagation fields and the replicas the interpreter reads. An existing binding keeps what
 * others wrote (`spec.clusters` is the scheduler's): only the detector's fields change, and a
 * binding still owned by an older template of the same name is left for the garbage collector.
 * What the binding should be is pure; reading replicas and writing are `ensureBinding`'s.
 */
import { isObject, type KubeObject, type StoredObject } from "../../api/meta.ts";
import type { Client, ResourceRef } from "../../client/client.ts";
import type { Interpreter } from "../../interpreter/index.ts";
import { bindingName, FINALIZER } from "../../karmada/names.ts";
import { KARMADA } from "../../karmada/resources.ts";
import { deepEqual } from "../../machinery/equality.ts";
import type { EventRecorder } from "../../runtime/events.ts";
import type { Informer } from "../../runtime/informer.ts";
import { CLAIM_ANNOTATIONS, CLAIM_LABELS, type Claim } from "./claim.ts";
import type { Policy } from "./match.ts";

/** The caches of ResourceBindings and ClusterResourceBindings. */
export interface BindingInformers {
  rbs: Informer;
  crbs: Informer;
}

/** Where the binding of a template of `kind` lives, and its name. */
export function bindingOf(
  template: StoredObject,
  kind: string,
  bindings: BindingInformers,
): { ref: ResourceRef; informer: Informer; name: string } {
  const namespaced = !!template.metadata.namespace;
  return {
    ref: namespaced ? KARMADA.resourceBindings : KARMADA.clusterResourceBindings,
    informer: namespaced ? bindings.rbs : bindings.crbs,
    name: bindingName(kind, template.metadata.name),
  };
}

type Replicas = Awaited<ReturnType<Interpreter["getReplicas"]>>;

/** The spec fields the detector owns, from the template, its policy and its replicas (undefined: left out). */
export function desiredBindingSpec(
  template: StoredObject,
  policy: Policy,
  replicas: Replicas,
): Record<string, unknown> {
  const spec = policy.spec;
  return {
    resource: {
      apiVersion: template.apiVersion,
      kind: template.kind,
      ...(template.metadata.namespace ? { namespace: template.metadata.namespace } : {}),
      name: template.metadata.name,
      uid: template.metadata.uid,
      resourceVersion: template.metadata.resourceVersion,
    },
    propagateDeps: spec.propagateDeps,
    schedulerName: spec.schedulerName ?? "default-scheduler",
    placement: spec.placement,
    failover: spec.failover,
    conflictResolution: spec.conflictResolution,
    preserveResourcesOnDeletion: spec.preserveResourcesOnDeletion,
    suspension: spec.suspension,
    replicas: replicas?.replicas,
    replicaRequirements: replicas?.requirements,
  };
}

function ownerOf(template: StoredObject) {
  return {
    apiVersion: template.apiVersion,
    kind: template.kind,
    name: template.metadata.name,
    uid: template.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

const finalizerOf = (template: StoredObject): string =>
  template.metadata.namespace ? FINALIZER.binding : FINALIZER.clusterBinding;

/** The binding to create for `template`. */
export function newBinding(
  template: StoredObject,
  name: string,
  claim: Claim,
  desiredSpec: Record<string, unknown>,
): KubeObject {
  const namespaced = !!template.metadata.namespace;
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: namespaced ? "ResourceBinding" : "ClusterResourceBinding",
    metadata: {
      name,
      ...(namespaced ? { namespace: template.metadata.namespace } : {}),
      labels: claim.labels,
      annotations: claim.annotations,
      ownerReferences: [ownerOf(template)],
      finalizers: [finalizerOf(template)],
    },
    spec: dropUndefined(desiredSpec),
  };
}

/** What `existing` becomes with the detector's fields and the claim set, or undefined when it is so already. */
export function updatedBinding(
  existing: StoredObject,
  template: StoredObject,
  claim: Claim,
  desiredSpec: Record<string, unknown>,
): KubeObject | undefined {
  const existingSpec = isObject(existing.spec) ? existing.spec : {};
  // Only the detector's fields are overwritten; spec.clusters and the rest stay.
  const nextSpec: Record<string, unknown> = { ...existingSpec };
  for (const [key, v] of Object.entries(desiredSpec)) {
    if (v === undefined) delete nextSpec[key];
    else nextSpec[key] = v;
  }
  // A CPP claim replaced by a PP claim (or back) drops the other policy's keys.
  const otherKeys = [...CLAIM_LABELS, ...CLAIM_ANNOTATIONS];
  const keep = (m: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(m ?? {}).filter(([key]) => !otherKeys.includes(key as never)));
  const next: KubeObject = {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...keep(existing.metadata.labels), ...claim.labels },
      annotations: { ...keep(existing.metadata.annotations), ...claim.annotations },
      finalizers: [...new Set([...(existing.metadata.finalizers ?? []), finalizerOf(template)])],
      ownerReferences: [ownerOf(template)],
    },
    spec: dropUndefined(nextSpec),
  };
  if (deepEqual(next.metadata, existing.metadata) && deepEqual(next.spec, existing.spec)) return undefined;
  return next;
}

export interface BindingDeps {
  client: Pick<Client, "create" | "update">;
  interpreter: Pick<Interpreter, "getReplicas">;
  events: EventRecorder;
  bindings: BindingInformers;
}

/**
 * Creates or updates the binding of `template` (of `kind`), claimed for `policy`. Unless
 * `followVersion`, a binding that differs only by the template's resourceVersion is left as it
 * is: the caller knows nothing but the template's status can have moved since.
 */
export async function ensureBinding(
  deps: BindingDeps,
  kind: string,
  template: StoredObject,
  policy: Policy,
  claim: Claim,
  followVersion = true,
): Promise<void> {
  const b = bindingOf(template, kind, deps.bindings);
  const replicas = await deps.interpreter.getReplicas(template);
  const desiredSpec = desiredBindingSpec(template, policy, replicas);
  const existing = b.informer.get(template.metadata.namespace, b.name);
  if (!existing) {
    await deps.client.create(b.ref, newBinding(template, b.name, claim, desiredSpec));
    deps.events.event(template, "Normal", "ApplyPolicySucceed", "Apply policy succeed.");
    return;
  }
  const ownerRef = existing.metadata.ownerReferences?.find((o) => o.controller);
  if (ownerRef && ownerRef.uid !== template.metadata.uid) {
    throw new Error(
      `binding ${b.name} belongs to an older ${template.kind} (uid ${ownerRef.uid}); waiting for it to be garbage collected`,
    );
  }
  const next = updatedBinding(existing, template, claim, desiredSpec);
  if (!next) return;
  if (!followVersion && !updatedBinding(existing, template, claim, withVersionOf(existing, desiredSpec)))
    return;
  await deps.client.update(b.ref, next);
}

/** `desiredSpec` with the resourceVersion `existing` records for the same template. */
function withVersionOf(
  existing: StoredObject,
  desiredSpec: Record<string, unknown>,
): Record<string, unknown> {
  const had = (existing.spec as { resource?: { uid?: string; resourceVersion?: string } } | undefined)
    ?.resource;
  const resource = desiredSpec.resource as { uid?: string; resourceVersion?: string };
  if (!had || had.uid !== resource.uid) return desiredSpec;
  return { ...desiredSpec, resource: { ...resource, resourceVersion: had.resourceVersion } };
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
