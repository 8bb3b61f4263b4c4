/**
 * The resource detector (upstream's pkg/detector): matches resource templates to
 * PropagationPolicies (then ClusterPropagationPolicies), claims each template for its policy
 * (labels and annotations), and keeps a ResourceBinding (ClusterResourceBinding for
 * cluster-scoped templates) in step with template and policy. It never touches
 * `spec.clusters`: that is the scheduler's.
 *
 * A template's reconcile runs the steps in order: match.ts (whose claim holds, or which policy
 * wins), preemption.ts (whether another policy takes a held template), claim.ts (labels and
 * annotations on the template), binding.ts (the binding written). A policy's reconcile is
 * deletion.ts; watches.ts and changes.ts say what brings keys to the queue.
 */
import type { StoredObject } from "../../api/meta.ts";
import { RESOURCES } from "../../client/client.ts";
import type { Interpreter } from "../../interpreter/index.ts";
import { LABEL } from "../../karmada/names.ts";
import { KARMADA } from "../../karmada/resources.ts";
import type { Logger } from "../../log.ts";
import { measured } from "../../metrics/registry.ts";
import {
  type Controller,
  done,
  type ReconcileContext,
  type ReconcileResult,
} from "../../runtime/controller.ts";
import type { ControllerContext } from "../context.ts";
import { karmadaMetrics } from "../metrics.ts";
import { type BindingDeps, ensureBinding } from "./binding.ts";
import { CLAIM_INDEX, claimIndexValues, claimOf, claimTemplate, unclaim } from "./claim.ts";
import { releaseDeletedPolicy } from "./deletion.ts";
import {
  bestMatch,
  type Candidate,
  heldClaim,
  lazy,
  missingOverrides,
  type Policy,
  type PolicyLookup,
} from "./match.ts";
import { preempt, preemptor } from "./preemption.ts";
import { detectorKeys, detectorWatches, type Kind, templateKey } from "./watches.ts";

export { changedByKarmada } from "./changes.ts";

export const DETECTOR = "resource-detector";

/** Why a template is reconciled: see `userChanges` and `edits`. */
interface Cause {
  /** Not the template's own change by its user (a policy's, a listing's, or Karmada's write). */
  byKarmada: boolean;
  /** The template itself was added or changed beyond status. */
  edited: boolean;
}

/** How many of its own claim writes the detector remembers until their events come. */
const CLAIMS_REMEMBERED = 65_536;

export function detectorController(ctx: ControllerContext, interpreter: Interpreter): Controller {
  const events = ctx.recorder(DETECTOR);
  const claimIndex = { indexers: { [CLAIM_INDEX]: claimIndexValues } };
  const pps = ctx.informers.informer(KARMADA.propagationPolicies);
  const cpps = ctx.informers.informer(KARMADA.clusterPropagationPolicies);
  const bindings = {
    rbs: ctx.informers.informer(KARMADA.resourceBindings, claimIndex),
    crbs: ctx.informers.informer(KARMADA.clusterResourceBindings, claimIndex),
  };
  const crds = ctx.informers.informer(RESOURCES.customresourcedefinitions);
  const ops = ctx.informers.informer(KARMADA.overridePolicies);
  const cops = ctx.informers.informer(KARMADA.clusterOverridePolicies);
  const policies: PolicyLookup = {
    propagationPolicy: (ns, name) => pps.get(ns, name) as Policy | undefined,
    clusterPropagationPolicy: (name) => cpps.get(undefined, name) as Policy | undefined,
    propagationPolicies: (ns) => pps.list(ns) as Policy[],
    clusterPropagationPolicies: () => cpps.list() as Policy[],
    overridePolicyExists: (ns, name) => !!ops.get(ns, name),
    clusterOverridePolicyExists: (name) => !!cops.get(undefined, name),
  };
  const bindingDeps: BindingDeps = { client: ctx.client, interpreter, events, bindings };

  let enqueue: (key: string) => void = () => {};
  /**
   * Templates queued since their last reconcile for a change of their own (created, or updated by
   * someone other than Karmada). The others were queued by a policy change or by Karmada's own
   * writes: a Lazy policy claims those but leaves their binding alone (upstream's
   * ResourceChangeByKarmada).
   */
  const userChanges = new Set<string>();
  /**
   * Templates queued since their last reconcile because they themselves were added or changed
   * (beyond status). Only for those does a binding follow a template's new resourceVersion when
   * nothing else of it moved: otherwise the template's status is all that can have changed since
   * the binding was written (what the binding controller renders is read from the template
   * itself, which it re-reads on every reconcile and on its start). Without this a restarted
   * controller manager rewrote every binding whose template's status had been aggregated (a
   * new generation each: rescheduled, Works rendered again, events), 80% of a restart's writes.
   */
  const edits = new Set<string>();
  /**
   * Templates whose claim the detector has just written, with that write's resourceVersion:
   * their binding was made from that very object, so its update event is not queued again.
   * Without this, under load the event's turn came after the template's status had been
   * aggregated, and the binding was rewritten for a resourceVersion that differed only by
   * status: a new generation, scheduled and synced again, with events, for nothing.
   * Consumed by the event; bounded for events that never come (a relist).
   */
  const claimedAt = new Map<string, string>();
  /**
   * Claim writes under way, with the template's update events that came meanwhile (the event
   * of the write itself may come before the write's answer): decided once the answer says
   * which resourceVersion was ours; the others are looked at again.
   */
  const claiming = new Map<string, Array<{ rv: string | undefined; add: () => void }>>();
  const watches = detectorWatches({
    ctx,
    interpreter,
    informers: { pps, cpps, crds, ops, cops },
    enqueue: (key) => enqueue(key),
    enqueueTemplate: (key, byKarmada, edited) => {
      if (!byKarmada) userChanges.add(key);
      if (edited) edits.add(key);
      enqueue(key);
    },
    ownWrite: (key, rv, add) => {
      const waiting = claiming.get(key);
      if (waiting) {
        waiting.push({ rv, add });
        return true;
      }
      const at = claimedAt.get(key);
      if (at === undefined) return false;
      claimedAt.delete(key);
      return at === rv;
    },
  });

  const metrics = karmadaMetrics(ctx.metrics);

  /** Steps 3 and 4, timed as upstream's ApplyPolicy (resource_apply_policy_duration_seconds). */
  function apply(k: Kind, template: StoredObject, winner: Candidate, why: Cause): Promise<void> {
    return measured(() => claimAndBind(k, template, winner, why), metrics.appliedPolicy);
  }

  /** Steps 3 and 4 for the policy that won: claim the template, then write its binding. */
  async function claimAndBind(k: Kind, template: StoredObject, winner: Candidate, why: Cause) {
    const missing = missingOverrides(winner, policies);
    // Retried with backoff, and at once when an override policy appears.
    if (missing.length > 0) throw new Error(`waiting for dependent overrides: ${missing.join(", ")}`);
    const claim = claimOf(winner);
    const key = templateKey(k.apiVersion, k.kind, template.metadata.namespace, template.metadata.name);
    const waiting: Array<{ rv: string | undefined; add: () => void }> = [];
    claiming.set(key, waiting);
    let current: StoredObject | undefined;
    try {
      current = await claimTemplate(ctx.client, k, template, claim);
    } finally {
      claiming.delete(key);
      const ours = current !== template ? current?.metadata.resourceVersion : undefined;
      for (const e of waiting) if (e.rv === undefined || e.rv !== ours) e.add();
      if (ours && !waiting.some((e) => e.rv === ours)) {
        // Said before the binding is written: the event may come while that write is under way.
        // Should the binding fail, the error requeues the template anyway.
        claimedAt.delete(key);
        claimedAt.set(key, ours);
        if (claimedAt.size > CLAIMS_REMEMBERED) claimedAt.delete(claimedAt.keys().next().value!);
      }
    }
    if (!current) return;
    // Lazy activation: a policy change (or Karmada's own write) waits for the template's next change.
    if (why.byKarmada && lazy(winner.policy)) return;
    // A claim just written is a change of the template's own, the binding's to follow.
    const followVersion = why.edited || current !== template;
    await ensureBinding(bindingDeps, k.kind, current, winner.policy, claim, followVersion);
  }

  /** Applies the claiming policy, unless a preempting one takes the template over. */
  function keepOrPreempt(k: Kind, template: StoredObject, claimer: Candidate, why: Cause) {
    const winner = ctx.options.features.enabled("PropagationPolicyPreemption")
      ? preemptor(template, claimer, policies)
      : undefined;
    if (!winner) return apply(k, template, claimer, why);
    return measured(
      () => preempt(events, template, claimer, winner, () => apply(k, template, winner, why)),
      metrics.preempted,
    );
  }

  async function reconcileTemplate(
    log: Logger,
    apiVersion: string,
    kind: string,
    ns: string,
    name: string,
    why: Cause,
  ) {
    const k = await watches.ensureKind(apiVersion, kind, log);
    if (!k) return;
    const template = k.informer.get(ns || undefined, name);
    if (!template || template.metadata.deletionTimestamp) return;
    if (template.metadata.labels?.[LABEL.claimedBy]) return;
    const held = heldClaim(template, policies);
    if (held.state === "deleting") throw new Error(held.reason);
    if (held.state === "held") return keepOrPreempt(k, template, held.claimer, why);
    // A stale claim goes first; the template is then matched as that write left it.
    const fresh = held.state === "stale" ? await unclaim(ctx.client, bindings, k, template) : template;
    if (!fresh) return;
    const matching = performance.now();
    const winner = bestMatch(fresh, policies);
    metrics.matchedPolicy((performance.now() - matching) / 1000);
    if (winner) return apply(k, fresh, winner, why);
  }

  const deletionDeps = { client: ctx.client, policies, bindings, kinds: watches.kinds };

  async function reconcile(rctx: ReconcileContext, key: string): Promise<ReconcileResult> {
    const { what, apiVersion, kind, namespace, name = "" } = detectorKeys.parse(key);
    if (what === "template") {
      const user = userChanges.delete(key);
      const edited = edits.delete(key);
      try {
        await reconcileTemplate(rctx.log, apiVersion ?? "", kind ?? "", namespace ?? "", name, {
          byKarmada: !user,
          edited,
        });
      } catch (err) {
        // The retry still answers the user's change.
        if (user) userChanges.add(key);
        if (edited) edits.add(key);
        throw err;
      }
    } else if (what === "propagationpolicy") await releaseDeletedPolicy(deletionDeps, false, namespace, name);
    else if (what === "clusterpropagationpolicy")
      await releaseDeletedPolicy(deletionDeps, true, undefined, name);
    return done;
  }

  return {
    name: "resource-detector",
    workers: 4,
    start(add) {
      enqueue = add;
      watches.start();
    },
    reconcile,
  };
}
