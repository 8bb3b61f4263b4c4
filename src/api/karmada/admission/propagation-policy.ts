/**
 * PropagationPolicy and ClusterPropagationPolicy: the defaults karmada-webhook fills in, the
 * identity it stamps on create, and the spec rules it enforces.
 */

import { purgeModeOf } from "../../../karmada/failover.ts";
import type { FieldError } from "../../../machinery/errors.ts";
import type { StoredObject } from "../../meta.ts";
import { child, index, invalid } from "../../validation/field.ts";
import { arr, ensureObj, type Obj, obj, objs, str, strs } from "../../validation/json.ts";
import { DEFAULT_TOLERATION_SECONDS, type MutationContext } from "./context.ts";
import { validateLabelName } from "./formats.ts";
import { defaultSelectorNamespaces, validatePlacement, validateSelectorNamespaces } from "./placement.ts";

export const PROPAGATION_POLICY_PERMANENT_ID = "propagationpolicy.karmada.io/permanent-id";
export const CLUSTER_PROPAGATION_POLICY_PERMANENT_ID = "clusterpropagationpolicy.karmada.io/permanent-id";
export const PROPAGATION_POLICY_FINALIZER = "karmada.io/propagation-policy-controller";
export const CLUSTER_PROPAGATION_POLICY_FINALIZER = "karmada.io/cluster-propagation-policy-controller";
const TAINT_NOT_READY = "cluster.karmada.io/not-ready";
const TAINT_UNREACHABLE = "cluster.karmada.io/unreachable";

/** What the grace period of a Gracefully purged application failover defaults to. */
export const DEFAULT_GRACE_PERIOD_SECONDS = 600;

interface PolicyKind {
  permanentIdLabel: string;
  finalizer: string;
  namespaced: boolean;
}

const PP: PolicyKind = {
  permanentIdLabel: PROPAGATION_POLICY_PERMANENT_ID,
  finalizer: PROPAGATION_POLICY_FINALIZER,
  namespaced: true,
};
const CPP: PolicyKind = {
  permanentIdLabel: CLUSTER_PROPAGATION_POLICY_PERMANENT_ID,
  finalizer: CLUSTER_PROPAGATION_POLICY_FINALIZER,
  namespaced: false,
};

function specOf(policy: StoredObject): Obj {
  return obj(policy.spec) ?? {};
}

/** Empty spread constraints spread by cluster; minGroups 0 means 1. */
function defaultSpreadConstraints(placement: Obj): void {
  for (const c of objs(placement.spreadConstraints)) {
    if (!str(c.spreadByLabel) && !str(c.spreadByField)) c.spreadByField = "cluster";
    if (!c.minGroups) c.minGroups = 1;
  }
}

function selectsServiceImport(selectors: unknown): boolean {
  return objs(selectors).some(
    (s) => s.kind === "ServiceImport" && s.apiVersion === "multicluster.x-k8s.io/v1alpha1",
  );
}

/** Upstream's Toleration.MatchToleration: same key, operator, value and effect (seconds aside). */
function sameToleration(a: Obj, b: Obj): boolean {
  return (["key", "operator", "value", "effect"] as const).every(
    (f) => (str(a[f]) ?? "") === (str(b[f]) ?? ""),
  );
}

/**
 * Upstream v1.12's AddTolerations: NoExecute tolerations of the not-ready and unreachable
 * cluster taints for the configured seconds, unless the policy has such a toleration already
 * (its own seconds, or none, win). They decide how long a workload stays on a failed cluster
 * before the taint manager moves it (gate Failover). Upstream dropped them in v1.15, together
 * with the automatic NoExecute taints.
 */
function defaultClusterTolerations(spec: Obj, ctx: MutationContext): void {
  const existing = arr(obj(spec.placement)?.clusterTolerations) ?? [];
  const missing = (
    [
      [TAINT_NOT_READY, ctx.defaultNotReadyTolerationSeconds],
      [TAINT_UNREACHABLE, ctx.defaultUnreachableTolerationSeconds],
    ] as const
  )
    .map(
      ([key, seconds]): Obj => ({
        key,
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: seconds ?? DEFAULT_TOLERATION_SECONDS,
      }),
    )
    .filter((d) => !objs(existing).some((t) => sameToleration(t, d)));
  if (missing.length === 0) return;
  ensureObj(spec, "placement").clusterTolerations = [...existing, ...missing];
}

/** Divided replicas without a preference are split by weight. */
function defaultDivisionPreference(placement: Obj): void {
  const rs = obj(placement.replicaScheduling);
  if (rs?.replicaSchedulingType === "Divided" && !str(rs.replicaDivisionPreference)) {
    rs.replicaDivisionPreference = "Weighted";
  }
}

function mutatePolicy(
  kind: PolicyKind,
  policy: StoredObject,
  old: StoredObject | undefined,
  ctx: MutationContext,
): void {
  const spec = specOf(policy);
  if (kind.namespaced) defaultSelectorNamespaces(spec.resourceSelectors, policy.metadata.namespace ?? "");
  const placement = obj(spec.placement);
  if (placement) {
    defaultSpreadConstraints(placement);
    defaultDivisionPreference(placement);
  }
  defaultClusterTolerations(spec, ctx);
  if (selectsServiceImport(spec.resourceSelectors)) spec.propagateDeps = true;
  const application = obj(obj(spec.failover)?.application);
  if (
    application &&
    purgeModeOf(application.purgeMode) === "Gracefully" &&
    application.gracePeriodSeconds == null
  ) {
    application.gracePeriodSeconds = DEFAULT_GRACE_PERIOD_SECONDS;
  }
  if (old === undefined) {
    const meta = policy.metadata;
    meta.labels = { ...meta.labels, [kind.permanentIdLabel]: ctx.newUid() };
    const finalizers = meta.finalizers ?? [];
    if (ctx.policyFinalizers !== false && !finalizers.includes(kind.finalizer)) {
      meta.finalizers = [...finalizers, kind.finalizer];
    }
  }
}

export function mutatePropagationPolicy(
  policy: StoredObject,
  old: StoredObject | undefined,
  ctx: MutationContext,
): void {
  mutatePolicy(PP, policy, old, ctx);
}

export function mutateClusterPropagationPolicy(
  policy: StoredObject,
  old: StoredObject | undefined,
  ctx: MutationContext,
): void {
  mutatePolicy(CPP, policy, old, ctx);
}

/** The sentence upstream refuses a write with before looking at the spec, if any. */
function policyDenial(
  kind: PolicyKind,
  policy: StoredObject,
  old: StoredObject | undefined,
): string | undefined {
  const label = kind.permanentIdLabel;
  if (old) {
    if ((str(specOf(policy).schedulerName) ?? "") !== (str(specOf(old).schedulerName) ?? "")) {
      return "the schedulerName should not be updated";
    }
    if ((policy.metadata.labels?.[label] ?? "") !== (old.metadata.labels?.[label] ?? "")) {
      return `label ${label} is immutable, it can only be set by the system during creation`;
    }
  }
  if (policy.metadata.labels?.[label] === undefined) {
    return `label ${label} is required, it should be set by the mutating admission webhook during creation`;
  }
  return undefined;
}

export function propagationPolicyDenial(
  policy: StoredObject,
  old: StoredObject | undefined,
): string | undefined {
  return policyDenial(PP, policy, old);
}

export function clusterPropagationPolicyDenial(
  policy: StoredObject,
  old: StoredObject | undefined,
): string | undefined {
  return policyDenial(CPP, policy, old);
}

function validateApplicationFailover(app: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const toleration = obj(app.decisionConditions)?.tolerationSeconds;
  if (typeof toleration === "number" && toleration < 0) {
    errs.push(
      invalid(
        child(path, "decisionConditions", "tolerationSeconds"),
        toleration,
        "must be greater than or equal to 0",
      ),
    );
  }
  const grace = app.gracePeriodSeconds;
  const gracePath = child(path, "gracePeriodSeconds");
  const gracefully = purgeModeOf(app.purgeMode) === "Gracefully";
  if (!gracefully && grace != null)
    errs.push(invalid(gracePath, grace, "only takes effect when purgeMode is gracefully"));
  if (gracefully && grace == null)
    errs.push(invalid(gracePath, null, "should not be empty when purgeMode is gracefully"));
  if (typeof grace === "number" && grace <= 0) errs.push(invalid(gracePath, grace, "must be greater than 0"));
  errs.push(...validateStatePreservation(obj(app.statePreservation), child(path, "statePreservation")));
  return errs;
}

function validateStatePreservation(preservation: Obj | undefined, path: string): FieldError[] {
  if (!preservation) return [];
  return objs(preservation.rules).flatMap((rule, i) =>
    validateLabelName(
      str(rule.aliasLabelName) ?? "",
      child(index(child(path, "rules"), i), "aliasLabelName"),
    ),
  );
}

/** The spec rules shared by both kinds; `policyNamespace` is empty for a ClusterPropagationPolicy. */
export function validatePropagationSpec(spec: Obj, policyNamespace: string): FieldError[] {
  const errs = validatePlacement(obj(spec.placement) ?? {}, "spec.placement");
  const failover = obj(spec.failover);
  const application = obj(failover?.application);
  if (application && spec.propagateDeps !== true) {
    errs.push(
      invalid(
        "spec.propagateDeps",
        spec.propagateDeps ?? false,
        "application failover is set, propagateDeps must be true",
      ),
    );
  }
  if (application) errs.push(...validateApplicationFailover(application, "spec.failover.application"));
  const cluster = obj(failover?.cluster);
  if (cluster) {
    errs.push(
      ...validateStatePreservation(obj(cluster.statePreservation), "spec.failover.cluster.statePreservation"),
    );
  }
  errs.push(...validateSelectorNamespaces(spec.resourceSelectors, policyNamespace, "spec.resourceSelectors"));
  if (spec.preemption === "Always") {
    objs(spec.resourceSelectors).forEach((sel, i) => {
      if (!str(sel.name)) {
        errs.push(
          invalid(
            child(index("spec.resourceSelectors", i), "name"),
            str(sel.name) ?? "",
            "name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption",
          ),
        );
      }
    });
  }
  const suspension = obj(spec.suspension);
  if (
    suspension?.dispatching === true &&
    strs(obj(suspension.dispatchingOnClusters)?.clusterNames).length > 0
  ) {
    // The doubled segment is upstream's path, kept so clients see the same field.
    errs.push(
      invalid(
        "spec.suspension.suspension",
        suspension,
        "suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames",
      ),
    );
  }
  return errs;
}

export function validatePropagationPolicy(policy: StoredObject, _old?: StoredObject): FieldError[] {
  return validatePropagationSpec(specOf(policy), policy.metadata.namespace ?? "");
}

export function validateClusterPropagationPolicy(policy: StoredObject, _old?: StoredObject): FieldError[] {
  return validatePropagationSpec(specOf(policy), "");
}
