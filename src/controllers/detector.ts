/**
 * The resource detector (upstream's pkg/detector): matches resource templates to
 * PropagationPolicies (then ClusterPropagationPolicies), claims each template for its policy
 * (labels and annotations), and keeps a ResourceBinding (ClusterResourceBinding for
 * cluster-scoped templates) in step with template and policy. It never touches
 * `spec.clusters`: that is the scheduler's.
 *
 * Templates are watched only for the kinds some policy selects: a policy created later starts
 * the informer of its kinds, whose initial list brings every waiting template in, which is
 * what upstream's watch-everything-plus-waiting-list achieves.
 */
import { isObject, type KubeObject, type StoredObject } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import type { Interpreter } from "../interpreter/index.ts";
import { ANNOTATION, bindingName, FINALIZER, isReservedNamespace, LABEL } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { PropagationSpec, ResourceSelector } from "../karmada/types.ts";
import { isNotFound } from "../machinery/errors.ts";
import { jsonEqual } from "../machinery/merge-patch.ts";
import {
  bestPolicy,
  implicitPriority,
  PRIORITY_MATCH_NAME,
  selectorPriority,
} from "../policy/resource-selector.ts";
import type { Controller, ReconcileResult } from "../runtime/controller.ts";
import type { Informer } from "../runtime/informer.ts";
import type { ControllerContext } from "./context.ts";

export const DETECTOR = "resource-detector";
/** `--skipped-propagating-namespaces` default. */
const SKIPPED_NAMESPACES = /^kube-.*$/;
const CLAIM_INDEX = "claim";

type Policy = StoredObject & { spec: PropagationSpec };

interface Kind {
  apiVersion: string;
  kind: string;
  ref: ResourceRef;
  informer: Informer;
}

const kindKey = (apiVersion: string, kind: string): string => `${apiVersion}|${kind}`;
const templateKey = (apiVersion: string, kind: string, ns: string | undefined, name: string): string =>
  `t|${apiVersion}|${kind}|${ns ?? ""}|${name}`;

/** What a claim looks like on a template and on its binding. */
function claimOf(policy: Policy, clusterScoped: boolean) {
  const id = policy.metadata.labels?.[clusterScoped ? LABEL.cppPermanentId : LABEL.ppPermanentId] ?? "";
  return clusterScoped
    ? { labels: { [LABEL.cppPermanentId]: id }, annotations: { [ANNOTATION.cppName]: policy.metadata.name! } }
    : {
        labels: { [LABEL.ppPermanentId]: id },
        annotations: {
          [ANNOTATION.ppNamespace]: policy.metadata.namespace!,
          [ANNOTATION.ppName]: policy.metadata.name!,
        },
      };
}

const CLAIM_LABELS = [LABEL.ppPermanentId, LABEL.cppPermanentId];
const CLAIM_ANNOTATIONS = [ANNOTATION.ppNamespace, ANNOTATION.ppName, ANNOTATION.cppName];

/** A merge patch removing every claim label and annotation present on `obj`, or undefined. */
function unclaimPatch(obj: StoredObject): Record<string, unknown> | undefined {
  const labels = Object.fromEntries(
    CLAIM_LABELS.filter((k) => obj.metadata.labels?.[k] !== undefined).map((k) => [k, null]),
  );
  const annotations = Object.fromEntries(
    CLAIM_ANNOTATIONS.filter((k) => obj.metadata.annotations?.[k] !== undefined).map((k) => [k, null]),
  );
  if (Object.keys(labels).length === 0 && Object.keys(annotations).length === 0) return undefined;
  return { metadata: { labels, annotations } };
}

/** Whether an update changed more than status and bookkeeping (upstream's "specification changed"). */
function specChanged(old: StoredObject, obj: StoredObject): boolean {
  const strip = (o: StoredObject) => {
    const { status: _s, ...rest } = o;
    const { managedFields: _m, resourceVersion: _r, ...meta } = o.metadata;
    return { ...rest, metadata: meta };
  };
  return !jsonEqual(strip(old), strip(obj));
}

/** Label keys with Karmada's suffix that are the user's to set, not Karmada's. */
const USER_LABELS_WITH_KARMADA_KEYS = new Set<string>([LABEL.skipAutoPropagation]);

/**
 * Whether an update only touched what Karmada itself writes on templates (labels and
 * annotations whose key contains `.karmada.io`, and the generation that follows), upstream's
 * `ResourceChangeByKarmada`: such a change does not refresh a Lazy policy's binding.
 */
export function changedByKarmada(old: StoredObject, obj: StoredObject): boolean {
  const strip = (o: StoredObject) => {
    const { status: _s, ...rest } = o;
    const {
      managedFields: _m,
      resourceVersion: _r,
      generation: _g,
      labels,
      annotations,
      ...meta
    } = o.metadata;
    const ours = (k: string) => k.includes(".karmada.io") && !USER_LABELS_WITH_KARMADA_KEYS.has(k);
    const keepLabels = Object.entries(labels ?? {}).filter(([k]) => !ours(k));
    const keepAnnotations = Object.entries(annotations ?? {}).filter(
      ([k]) => k.includes(".karmada.io") === false,
    );
    return {
      ...rest,
      metadata: {
        ...meta,
        ...(keepLabels.length ? { labels: Object.fromEntries(keepLabels) } : {}),
        ...(keepAnnotations.length ? { annotations: Object.fromEntries(keepAnnotations) } : {}),
      },
    };
  };
  return jsonEqual(strip(old), strip(obj));
}

const lazy = (p: StoredObject): boolean =>
  (p.spec as PropagationSpec | undefined)?.activationPreference === "Lazy";

export function detectorController(ctx: ControllerContext, interpreter: Interpreter): Controller {
  const events = ctx.recorder(DETECTOR);
  const byPolicy = (o: StoredObject) =>
    CLAIM_LABELS.map((k) => o.metadata.labels?.[k]).filter((v): v is string => !!v);
  const pps = ctx.informers.informer(KARMADA.propagationPolicies);
  const cpps = ctx.informers.informer(KARMADA.clusterPropagationPolicies);
  const rbs = ctx.informers.informer(KARMADA.resourceBindings, { indexers: { [CLAIM_INDEX]: byPolicy } });
  const crbs = ctx.informers.informer(KARMADA.clusterResourceBindings, {
    indexers: { [CLAIM_INDEX]: byPolicy },
  });
  const crds = ctx.informers.informer(RESOURCES.customresourcedefinitions);
  const ops = ctx.informers.informer(KARMADA.overridePolicies);
  const cops = ctx.informers.informer(KARMADA.clusterOverridePolicies);
  const kinds = new Map<string, Kind>();
  const pending = new Map<string, Promise<Kind | undefined>>();
  let enqueue: (key: string) => void = () => {};
  /**
   * Templates queued since their last reconcile for a change of their own (created, or updated by
   * someone other than Karmada). The others were queued by a policy change or by Karmada's own
   * writes: a Lazy policy claims those but leaves their binding alone (upstream's
   * ResourceChangeByKarmada).
   */
  const userChanges = new Set<string>();
  const enqueueTemplate = (key: string, byKarmada: boolean): void => {
    if (!byKarmada) userChanges.add(key);
    enqueue(key);
  };

  const skipped = (ns: string | undefined) =>
    ns !== undefined && (isReservedNamespace(ns) || SKIPPED_NAMESPACES.test(ns));

  /** The informer of a kind, started on first use. Unknown kinds resolve to undefined. */
  function ensureKind(apiVersion: string, kind: string): Promise<Kind | undefined> {
    const key = kindKey(apiVersion, kind);
    const known = kinds.get(key);
    if (known) return Promise.resolve(known);
    let p = pending.get(key);
    if (!p) {
      p = ctx.client.resourceFor(apiVersion, kind).then(
        (ref) => {
          const informer = ctx.informers.informer(ref, { indexers: { [CLAIM_INDEX]: byPolicy } });
          const k: Kind = { apiVersion, kind, ref, informer };
          kinds.set(key, k);
          const add = (o: StoredObject, byKarmada: boolean) => {
            if (!skipped(o.metadata.namespace))
              enqueueTemplate(
                templateKey(apiVersion, kind, o.metadata.namespace, o.metadata.name!),
                byKarmada,
              );
          };
          // Templates listed when the kind starts being watched (a policy selected it) were
          // there before: that is the policy's change, not theirs. Later adds are new templates.
          let initial = true;
          informer.addHandler({
            onAdd: (o) => add(o, initial || !informer.hasSynced()),
            onUpdate: (old, obj) => {
              if (specChanged(old, obj)) add(obj, changedByKarmada(old, obj));
            },
            onDelete: (o) => add(o, false),
          });
          initial = false;
          return k;
        },
        (err) => {
          pending.delete(key);
          ctx.log.debug("detector: kind not served", { apiVersion, kind, err: (err as Error).message });
          return undefined;
        },
      );
      pending.set(key, p);
    }
    return p;
  }

  /** A policy changed: every template of its kinds, and every template it claims, is looked at again. */
  async function policyChanged(policy: StoredObject, clusterScoped: boolean): Promise<void> {
    enqueue(
      clusterScoped
        ? `cpp|${policy.metadata.name}`
        : `pp|${policy.metadata.namespace}|${policy.metadata.name}`,
    );
    const selectors = ((policy.spec as PropagationSpec | undefined)?.resourceSelectors ??
      []) as ResourceSelector[];
    const ns = clusterScoped ? undefined : policy.metadata.namespace;
    for (const s of selectors) {
      const k = await ensureKind(s.apiVersion, s.kind);
      for (const o of k?.informer.list(ns) ?? []) {
        if (!skipped(o.metadata.namespace))
          enqueueTemplate(
            templateKey(s.apiVersion, s.kind, o.metadata.namespace, o.metadata.name!),
            lazy(policy),
          );
      }
    }
    const id = policy.metadata.labels?.[clusterScoped ? LABEL.cppPermanentId : LABEL.ppPermanentId];
    if (id) {
      for (const k of kinds.values())
        for (const o of k.informer.byIndex(CLAIM_INDEX, id))
          enqueueTemplate(
            templateKey(k.apiVersion, k.kind, o.metadata.namespace, o.metadata.name!),
            lazy(policy),
          );
    }
  }

  async function patchIfNeeded(
    ref: ResourceRef,
    obj: StoredObject,
    patch: Record<string, unknown> | undefined,
  ) {
    if (!patch) return;
    try {
      await ctx.client.patch(ref, obj.metadata.namespace, obj.metadata.name!, "merge", patch);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  function bindingOf(
    template: StoredObject,
    kind: string,
  ): { ref: ResourceRef; informer: Informer; name: string } {
    const namespaced = !!template.metadata.namespace;
    return {
      ref: namespaced ? KARMADA.resourceBindings : KARMADA.clusterResourceBindings,
      informer: namespaced ? rbs : crbs,
      name: bindingName(kind, template.metadata.name!),
    };
  }

  /** Removes the claim from the template's binding, then from the template. */
  async function unclaim(k: Kind, template: StoredObject): Promise<void> {
    const b = bindingOf(template, k.kind);
    const binding = b.informer.get(template.metadata.namespace, b.name);
    if (binding) await patchIfNeeded(b.ref, binding, unclaimPatch(binding));
    await patchIfNeeded(k.ref, template, unclaimPatch(template));
  }

  /** `dependentOverrides`: the OverridePolicies (ClusterOverridePolicies for a CPP) that must exist first. */
  function missingOverrides(policy: Policy, clusterScoped: boolean): string[] {
    return (policy.spec.dependentOverrides ?? []).filter((name) =>
      clusterScoped ? !cops.get(undefined, name) : !ops.get(policy.metadata.namespace, name),
    );
  }

  async function applyPolicy(
    k: Kind,
    template: StoredObject,
    policy: Policy,
    clusterScoped: boolean,
    byKarmada: boolean,
  ) {
    const missing = missingOverrides(policy, clusterScoped);
    if (missing.length > 0) {
      // Retried with backoff, and at once when an override policy appears.
      throw new Error(`waiting for dependent overrides: ${missing.join(", ")}`);
    }
    const claim = claimOf(policy, clusterScoped);
    const labels = template.metadata.labels ?? {};
    const annotations = template.metadata.annotations ?? {};
    const claimed =
      Object.entries(claim.labels).every(([key, v]) => labels[key] === v) &&
      Object.entries(claim.annotations).every(([key, v]) => annotations[key] === v);
    let current = template;
    if (!claimed) {
      // A template moving from a CPP to a PP (or back) loses the other claim.
      const drop = unclaimPatch(template) as
        | { metadata: { labels: object; annotations: object } }
        | undefined;
      current = await ctx.client.patch(k.ref, template.metadata.namespace, template.metadata.name!, "merge", {
        metadata: {
          labels: { ...drop?.metadata.labels, ...claim.labels },
          annotations: { ...drop?.metadata.annotations, ...claim.annotations },
        },
      });
    }
    // Lazy activation: a policy change (or Karmada's own write) waits for the template's next change.
    if (byKarmada && lazy(policy)) return;
    await ensureBinding(k, current, policy, claim);
  }

  async function ensureBinding(
    k: Kind,
    template: StoredObject,
    policy: Policy,
    claim: ReturnType<typeof claimOf>,
  ): Promise<void> {
    const b = bindingOf(template, k.kind);
    const namespaced = !!template.metadata.namespace;
    const spec = policy.spec;
    const replicas = await interpreter.getReplicas(template);
    const owner = {
      apiVersion: template.apiVersion,
      kind: template.kind,
      name: template.metadata.name!,
      uid: template.metadata.uid!,
      controller: true,
      blockOwnerDeletion: true,
    };
    const desiredSpec: Record<string, unknown> = {
      resource: {
        apiVersion: template.apiVersion,
        kind: template.kind,
        ...(namespaced ? { namespace: template.metadata.namespace } : {}),
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
    const finalizer = namespaced ? FINALIZER.binding : FINALIZER.clusterBinding;
    const existing = b.informer.get(template.metadata.namespace, b.name);
    if (!existing) {
      await ctx.client.create(b.ref, {
        apiVersion: "work.karmada.io/v1alpha2",
        kind: namespaced ? "ResourceBinding" : "ClusterResourceBinding",
        metadata: {
          name: b.name,
          ...(namespaced ? { namespace: template.metadata.namespace } : {}),
          labels: claim.labels,
          annotations: claim.annotations,
          ownerReferences: [owner],
          finalizers: [finalizer],
        },
        spec: dropUndefined(desiredSpec),
      });
      events.event(template, "Normal", "ApplyPolicySucceed", "Apply policy succeed.");
      return;
    }
    const ownerRef = existing.metadata.ownerReferences?.find((o) => o.controller);
    if (ownerRef && ownerRef.uid !== template.metadata.uid) {
      throw new Error(
        `binding ${b.name} belongs to an older ${template.kind} (uid ${ownerRef.uid}); waiting for it to be garbage collected`,
      );
    }
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
        finalizers: [...new Set([...(existing.metadata.finalizers ?? []), finalizer])],
        ownerReferences: [owner],
      },
      spec: dropUndefined(nextSpec),
    };
    if (jsonEqual(next.metadata, existing.metadata) && jsonEqual(next.spec, existing.spec)) return;
    await ctx.client.update(b.ref, next);
  }

  /**
   * With the PropagationPolicyPreemption gate on: the policy with `preemption: Always` that
   * takes `template` from the policy that claims it, by upstream's rule (high-priority PP >
   * low-priority PP > CPP): a PP preempts a PP of strictly lower priority and any CPP; a CPP
   * preempts only a CPP of strictly lower priority. Only templates a preempting policy names
   * are taken, as upstream fetches them by their selectors' names.
   */
  function preemptor(
    template: StoredObject,
    claimer: Policy,
    claimerIsCpp: boolean,
  ): { policy: Policy; clusterScoped: boolean } | undefined {
    if (!ctx.options.features.enabled("PropagationPolicyPreemption")) return undefined;
    const priority = (p: Policy) => p.spec.priority ?? 0;
    const candidates = (list: Policy[], beats: (p: Policy) => boolean) =>
      list.filter(
        (p) =>
          p.metadata.uid !== claimer.metadata.uid &&
          p.spec.preemption === "Always" &&
          (p.spec.resourceSelectors ?? []).some(
            (s) => selectorPriority(template, s) === PRIORITY_MATCH_NAME,
          ) &&
          beats(p),
      );
    const ns = template.metadata.namespace;
    if (ns) {
      const pp = bestPolicy(
        template,
        candidates(pps.list(ns) as Policy[], (p) => claimerIsCpp || priority(p) > priority(claimer)),
      );
      if (pp) return { policy: pp, clusterScoped: false };
    }
    if (!claimerIsCpp) return undefined;
    const cpp = bestPolicy(
      template,
      candidates(cpps.list() as Policy[], (p) => priority(p) > priority(claimer)),
    );
    return cpp ? { policy: cpp, clusterScoped: true } : undefined;
  }

  const policyText = (p: Policy, clusterScoped: boolean) =>
    clusterScoped
      ? `cluster propagation policy(${p.metadata.name})`
      : `propagation policy(${p.metadata.namespace}/${p.metadata.name})`;

  /** Applies the claiming policy, unless a preempting one takes the template over (upstream's events). */
  async function keepOrPreempt(
    k: Kind,
    template: StoredObject,
    claimer: Policy,
    claimerIsCpp: boolean,
    byKarmada: boolean,
  ): Promise<void> {
    const winner = preemptor(template, claimer, claimerIsCpp);
    if (!winner) return applyPolicy(k, template, claimer, claimerIsCpp, byKarmada);
    const text = policyText(winner.policy, winner.clusterScoped);
    const what = text[0]!.toUpperCase() + text.slice(1);
    try {
      await applyPolicy(k, template, winner.policy, winner.clusterScoped, byKarmada);
    } catch (err) {
      events.event(
        template,
        "Warning",
        "PreemptPolicyFailed",
        `${what} failed to preempt ${policyText(claimer, claimerIsCpp)}: ${(err as Error).message}`,
      );
      throw err;
    }
    events.event(
      template,
      "Normal",
      "PreemptPolicySucceed",
      `${what} preempted ${policyText(claimer, claimerIsCpp)} successfully`,
    );
  }

  async function reconcileTemplate(
    apiVersion: string,
    kind: string,
    ns: string,
    name: string,
    byKarmada: boolean,
  ): Promise<void> {
    const k = await ensureKind(apiVersion, kind);
    if (!k) return;
    const template = k.informer.get(ns || undefined, name);
    if (!template || template.metadata.deletionTimestamp) return;
    if (template.metadata.labels?.[LABEL.claimedBy]) return;
    const labels = template.metadata.labels ?? {};
    const annotations = template.metadata.annotations ?? {};

    // Claimed already: keep the claim while its policy exists and still selects the template.
    if (
      ns &&
      labels[LABEL.ppPermanentId] &&
      annotations[ANNOTATION.ppName] &&
      annotations[ANNOTATION.ppNamespace]
    ) {
      const pp = pps.get(annotations[ANNOTATION.ppNamespace], annotations[ANNOTATION.ppName]!) as
        | Policy
        | undefined;
      if (pp?.metadata.deletionTimestamp)
        throw new Error(`propagation policy ${pp.metadata.name} is being deleted`);
      if (
        pp &&
        pp.metadata.labels?.[LABEL.ppPermanentId] === labels[LABEL.ppPermanentId] &&
        implicitPriority(template, pp.spec.resourceSelectors) > 0
      ) {
        return keepOrPreempt(k, template, pp, false, byKarmada);
      }
      await unclaim(k, template);
    } else if (labels[LABEL.cppPermanentId] && annotations[ANNOTATION.cppName]) {
      const cpp = cpps.get(undefined, annotations[ANNOTATION.cppName]!) as Policy | undefined;
      if (cpp?.metadata.deletionTimestamp)
        throw new Error(`cluster propagation policy ${cpp.metadata.name} is being deleted`);
      if (
        cpp &&
        cpp.metadata.labels?.[LABEL.cppPermanentId] === labels[LABEL.cppPermanentId] &&
        implicitPriority(template, cpp.spec.resourceSelectors) > 0
      ) {
        // A PP created later takes over only by preemption, as upstream.
        return keepOrPreempt(k, template, cpp, true, byKarmada);
      }
      await unclaim(k, template);
    }

    const fresh = k.informer.get(ns || undefined, name) ?? template;
    const pp = ns ? bestPolicy(fresh, pps.list(ns) as Policy[]) : undefined;
    if (pp) return applyPolicy(k, fresh, pp, false, byKarmada);
    const cpp = bestPolicy(fresh, cpps.list() as Policy[]);
    if (cpp) return applyPolicy(k, fresh, cpp, true, byKarmada);
  }

  /** A policy being deleted: its claims are removed from bindings, then templates; then its finalizer goes. */
  async function reconcilePolicy(
    clusterScoped: boolean,
    ns: string | undefined,
    name: string,
  ): Promise<void> {
    const policy = (clusterScoped ? cpps.get(undefined, name) : pps.get(ns, name)) as Policy | undefined;
    const finalizer = clusterScoped ? FINALIZER.clusterPropagationPolicy : FINALIZER.propagationPolicy;
    if (!policy?.metadata.deletionTimestamp || !policy.metadata.finalizers?.includes(finalizer)) return;
    const id = policy.metadata.labels?.[clusterScoped ? LABEL.cppPermanentId : LABEL.ppPermanentId];
    if (id) {
      for (const b of [...rbs.byIndex(CLAIM_INDEX, id), ...crbs.byIndex(CLAIM_INDEX, id)]) {
        await patchIfNeeded(
          b.metadata.namespace ? KARMADA.resourceBindings : KARMADA.clusterResourceBindings,
          b,
          unclaimPatch(b),
        );
      }
      for (const k of kinds.values())
        for (const t of k.informer.byIndex(CLAIM_INDEX, id)) await patchIfNeeded(k.ref, t, unclaimPatch(t));
    }
    const ref = clusterScoped ? KARMADA.clusterPropagationPolicies : KARMADA.propagationPolicies;
    await ctx.client.patch(ref, ns, name, "json", [
      { op: "test", path: "/metadata/resourceVersion", value: policy.metadata.resourceVersion },
      {
        op: "replace",
        path: "/metadata/finalizers",
        value: policy.metadata.finalizers.filter((f) => f !== finalizer),
      },
    ]);
  }

  async function reconcile(key: string): Promise<ReconcileResult> {
    const parts = key.split("|");
    if (parts[0] === "t") {
      const user = userChanges.delete(key);
      try {
        await reconcileTemplate(parts[1]!, parts[2]!, parts[3]!, parts.slice(4).join("|"), !user);
      } catch (err) {
        // The retry still answers the user's change.
        if (user) userChanges.add(key);
        throw err;
      }
    } else if (parts[0] === "pp") await reconcilePolicy(false, parts[1], parts[2]!);
    else if (parts[0] === "cpp") await reconcilePolicy(true, undefined, parts[1]!);
    return undefined;
  }

  const onPolicy = (clusterScoped: boolean) => (p: StoredObject) => {
    policyChanged(p, clusterScoped).catch((err) =>
      ctx.log.warn("detector: policy change not handled", {
        policy: p.metadata.name,
        err: (err as Error).message,
      }),
    );
  };

  return {
    name: "resource-detector",
    workers: 4,
    start(add) {
      enqueue = add;
      for (const [informer, clusterScoped] of [
        [pps, false],
        [cpps, true],
      ] as const) {
        const handle = onPolicy(clusterScoped);
        informer.addHandler({
          onAdd: handle,
          onUpdate: (old, obj) => {
            // Selectors may have changed: the old ones' templates are looked at too.
            handle(old);
            handle(obj);
          },
          onDelete: handle,
        });
      }
      // A kind a policy names may only be served later (its CRD applied after the policy).
      // Coalesced: a burst of CRD events (a start-up list) re-evaluates the policies once.
      let pendingKinds: NodeJS.Timeout | undefined;
      const kindsAppeared = (): void => {
        if (pendingKinds) return;
        pendingKinds = setTimeout(() => {
          pendingKinds = undefined;
          for (const p of pps.list()) onPolicy(false)(p);
          for (const p of cpps.list()) onPolicy(true)(p);
        }, 100);
        pendingKinds.unref?.();
      };
      crds.addHandler({ onAdd: kindsAppeared, onUpdate: kindsAppeared });
      // An override policy some policy depends on has appeared: its templates go ahead.
      const overrideAppeared = (clusterScoped: boolean) => (op: StoredObject) => {
        const waiting = (clusterScoped ? cpps.list() : pps.list(op.metadata.namespace)) as Policy[];
        for (const p of waiting)
          if (p.spec.dependentOverrides?.includes(op.metadata.name!)) onPolicy(clusterScoped)(p);
      };
      ops.addHandler({ onAdd: overrideAppeared(false) });
      cops.addHandler({ onAdd: overrideAppeared(true) });
      // A kind's replicas and requirements may read differently under a new or edited
      // customization; one applied just before its templates may even be seen after them.
      interpreter.onChange((changed) => {
        for (const k of kinds.values()) {
          if (changed !== "all" && !changed.has(kindKey(k.apiVersion, k.kind))) continue;
          for (const o of k.informer.list())
            if (!skipped(o.metadata.namespace))
              enqueueTemplate(
                templateKey(k.apiVersion, k.kind, o.metadata.namespace, o.metadata.name!),
                false,
              );
        }
      });
    },
    reconcile: (_rctx, key) => reconcile(key),
  };
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
