/**
 * What brings templates and policies to the queue. Templates are watched only for the kinds
 * some policy selects: a policy created later starts the informer of its kinds, whose initial
 * list brings every waiting template in, which is what upstream's watch-everything-plus-
 * waiting-list achieves. Each template is queued as the user's change (a new template, an edit
 * of the user's) or not (a policy change, Karmada's own write), which Lazy activation tells apart.
 */
import type { StoredObject } from "../../api/meta.ts";
import type { ResourceRef } from "../../client/client.ts";
import type { Interpreter } from "../../interpreter/index.ts";
import { isReservedNamespace, LABEL } from "../../karmada/names.ts";
import type { PropagationSpec, ResourceSelector } from "../../karmada/types.ts";
import type { Logger } from "../../log.ts";
import type { Informer } from "../../runtime/informer.ts";
import { tupleKey } from "../../runtime/keys.ts";
import type { ControllerContext } from "../context.ts";
import { changedByKarmada, specChanged } from "./changes.ts";
import { CLAIM_INDEX, claimIndexValues } from "./claim.ts";
import { lazy, type Policy } from "./match.ts";

/** `--skipped-propagating-namespaces` default. */
const SKIPPED_NAMESPACES = /^kube-.*$/;

/** A template kind being watched. */
export interface Kind {
  apiVersion: string;
  kind: string;
  ref: ResourceRef;
  informer: Informer;
}

export const kindKey = (apiVersion: string, kind: string): string => `${apiVersion}|${kind}`;
/** The detector's queue keys: a template (by kind and name), or a deleted (Cluster)PropagationPolicy. */
export const detectorKeys = tupleKey(["what", "apiVersion", "kind", "namespace", "name"]);
export const templateKey = (
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
): string => detectorKeys.encode({ what: "template", apiVersion, kind, namespace, name });
export const policyKey = (clusterScoped: boolean, namespace: string | undefined, name: string): string =>
  detectorKeys.encode({
    what: clusterScoped ? "clusterpropagationpolicy" : "propagationpolicy",
    apiVersion: undefined,
    kind: undefined,
    namespace,
    name,
  });

export interface WatchDeps {
  ctx: Pick<ControllerContext, "client" | "informers" | "log">;
  interpreter: Pick<Interpreter, "onChange">;
  informers: { pps: Informer; cpps: Informer; crds: Informer; ops: Informer; cops: Informer };
  enqueue(key: string): void;
  /**
   * `byKarmada`: not the template's own change (a policy's, or Karmada's write). `edited`: the
   * template itself was added or changed (beyond status) since the informer's list, by anyone;
   * a template queued only by that list, a policy or a customization was not.
   */
  enqueueTemplate(key: string, byKarmada: boolean, edited?: boolean): void;
  /**
   * Whether the template at this resourceVersion is what the detector itself wrote (its claim)
   * and went on from: its update event then brings nothing to look at again. True also while
   * a claim write is under way: the detector then calls `add` itself should the event turn out
   * not to be that write's.
   */
  ownWrite?(key: string, resourceVersion: string | undefined, add: () => void): boolean;
}

export interface DetectorWatches {
  /**
   * The informer of a kind, started on first use. Unknown kinds resolve to undefined (said at
   * debug on `log`, a reconcile's when one asks).
   */
  ensureKind(apiVersion: string, kind: string, log?: Logger): Promise<Kind | undefined>;
  /** The kinds watched so far. */
  kinds(): Iterable<Kind>;
  /** Registers the handlers on policies, CRDs, override policies and interpreter customizations. */
  start(): void;
}

export function detectorWatches(deps: WatchDeps): DetectorWatches {
  const { ctx, enqueue, enqueueTemplate } = deps;
  const { pps, cpps, crds, ops, cops } = deps.informers;
  const kinds = new Map<string, Kind>();
  const pending = new Map<string, Promise<Kind | undefined>>();

  const skipped = (ns: string | undefined) =>
    ns !== undefined && (isReservedNamespace(ns) || SKIPPED_NAMESPACES.test(ns));

  function ensureKind(apiVersion: string, kind: string, log: Logger = ctx.log): Promise<Kind | undefined> {
    const key = kindKey(apiVersion, kind);
    const known = kinds.get(key);
    if (known) return Promise.resolve(known);
    let p = pending.get(key);
    if (!p) {
      p = ctx.client.resourceFor(apiVersion, kind).then(
        (ref) => {
          const informer = ctx.informers.informer(ref, { indexers: { [CLAIM_INDEX]: claimIndexValues } });
          const k: Kind = { apiVersion, kind, ref, informer };
          kinds.set(key, k);
          const add = (o: StoredObject, byKarmada: boolean, edited: boolean) => {
            if (!skipped(o.metadata.namespace))
              enqueueTemplate(
                templateKey(apiVersion, kind, o.metadata.namespace, o.metadata.name),
                byKarmada,
                edited,
              );
          };
          // Templates listed when the kind starts being watched (a policy selected it) were
          // there before: that is the policy's change, not theirs. Later adds are new templates.
          let initial = true;
          informer.addHandler({
            onAdd: (o) => {
              const listed = initial || !informer.hasSynced();
              add(o, listed, !listed);
            },
            onUpdate: (old, obj) => {
              if (!specChanged(old, obj)) return;
              const key = templateKey(apiVersion, kind, obj.metadata.namespace, obj.metadata.name);
              const enqueueIt = () => add(obj, changedByKarmada(old, obj), true);
              if (deps.ownWrite?.(key, obj.metadata.resourceVersion, enqueueIt)) return;
              enqueueIt();
            },
            onDelete: (o) => add(o, false, true),
          });
          initial = false;
          return k;
        },
        (err) => {
          pending.delete(key);
          log.debug("detector: kind not served", { apiVersion, kind, err: (err as Error).message });
          return undefined;
        },
      );
      pending.set(key, p);
    }
    return p;
  }

  /** A policy changed: every template of its kinds, and every template it claims, is looked at again. */
  async function policyChanged(policy: StoredObject, clusterScoped: boolean): Promise<void> {
    enqueue(policyKey(clusterScoped, policy.metadata.namespace, policy.metadata.name));
    const selectors = ((policy.spec as PropagationSpec | undefined)?.resourceSelectors ??
      []) as ResourceSelector[];
    const ns = clusterScoped ? undefined : policy.metadata.namespace;
    for (const s of selectors) {
      const k = await ensureKind(s.apiVersion, s.kind);
      for (const o of k?.informer.list(ns) ?? []) {
        if (!skipped(o.metadata.namespace))
          enqueueTemplate(
            templateKey(s.apiVersion, s.kind, o.metadata.namespace, o.metadata.name),
            lazy(policy),
          );
      }
    }
    const id = policy.metadata.labels?.[clusterScoped ? LABEL.cppPermanentId : LABEL.ppPermanentId];
    if (id) {
      for (const k of kinds.values())
        for (const o of k.informer.byIndex(CLAIM_INDEX, id))
          enqueueTemplate(
            templateKey(k.apiVersion, k.kind, o.metadata.namespace, o.metadata.name),
            lazy(policy),
          );
    }
  }

  const onPolicy = (clusterScoped: boolean) => (p: StoredObject) => {
    policyChanged(p, clusterScoped).catch((err) =>
      ctx.log.warn("detector: policy change not handled", {
        policy: p.metadata.name,
        err: (err as Error).message,
      }),
    );
  };

  function start(): void {
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
        if (p.spec.dependentOverrides?.includes(op.metadata.name)) onPolicy(clusterScoped)(p);
    };
    ops.addHandler({ onAdd: overrideAppeared(false) });
    cops.addHandler({ onAdd: overrideAppeared(true) });
    // A kind's replicas and requirements may read differently under a new or edited
    // customization; one applied just before its templates may even be seen after them.
    deps.interpreter.onChange((changed) => {
      for (const k of kinds.values()) {
        if (changed !== "all" && !changed.has(kindKey(k.apiVersion, k.kind))) continue;
        for (const o of k.informer.list())
          if (!skipped(o.metadata.namespace))
            enqueueTemplate(templateKey(k.apiVersion, k.kind, o.metadata.namespace, o.metadata.name), false);
      }
    });
  }

  return { ensureKind, kinds: () => kinds.values(), start };
}
