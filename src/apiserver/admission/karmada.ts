/**
 * The registry of Karmada's admission rules: one in-process plugin per upstream webhook
 * (named as upstream registers it), plus the Cluster strategy of karmada-aggregated-apiserver.
 * Field problems come back as field errors; rules upstream states as a plain sentence throw
 * the webhook's 403 refusal. The rules themselves are pure functions in
 * `api/karmada/admission/`; this file binds them to the API server's admission chain.
 */

import type { Operation } from "../../api/admission.ts";
import {
  mutateClusterResourceBinding,
  mutateResourceBinding,
  validateResourceBinding,
} from "../../api/karmada/admission/binding.ts";
import { mutateCluster, validateCluster } from "../../api/karmada/admission/cluster.ts";
import { validateClusterTaintPolicy } from "../../api/karmada/admission/cluster-taint-policy.ts";
import {
  type AdmissionFeatures,
  DEFAULT_FEATURES,
  type MutationContext,
} from "../../api/karmada/admission/context.ts";
import { checkDeletionProtection } from "../../api/karmada/admission/deletion-protection.ts";
import { WEBHOOK, webhookDenied } from "../../api/karmada/admission/denial.ts";
import {
  mutateFederatedHPA,
  validateCronFederatedHPA,
  validateFederatedHPA,
} from "../../api/karmada/admission/hpa.ts";
import {
  resourceInterpreterCustomizationDenial,
  validateResourceInterpreterWebhookConfiguration,
} from "../../api/karmada/admission/interpreter.ts";
import {
  mutateMultiClusterService,
  validateMultiClusterIngress,
  validateMultiClusterService,
} from "../../api/karmada/admission/networking.ts";
import {
  mutateOverridePolicy,
  validateClusterOverridePolicy,
  validateOverridePolicy,
} from "../../api/karmada/admission/override-policy.ts";
import {
  clusterPropagationPolicyDenial,
  mutateClusterPropagationPolicy,
  mutatePropagationPolicy,
  propagationPolicyDenial,
  validateClusterPropagationPolicy,
  validatePropagationPolicy,
} from "../../api/karmada/admission/propagation-policy.ts";
import { validateFederatedResourceQuota } from "../../api/karmada/admission/quota.ts";
import { mutateWork } from "../../api/karmada/admission/work.ts";
import type { StoredObject } from "../../api/meta.ts";
import type { FieldError } from "../../machinery/errors.ts";
import type { AdmissionPlugin } from "../context.ts";
import type { ResourceType } from "../resource-type.ts";

export interface KarmadaAdmissionDeps extends MutationContext {
  /** Upstream feature gates; unset ones take upstream's defaults. */
  features?: Partial<AdmissionFeatures>;
  /** karmada-webhook's `--allow-no-execute-taint-policy` (default false). */
  allowNoExecuteTaintPolicy?: boolean;
  /** The stored ResourceInterpreterCustomizations, for the one-script-per-operation rule. */
  listResourceInterpreterCustomizations?(): Promise<StoredObject[]>;
  /** Compiles a Lua chunk without running it; returns the compiler's error, if any. */
  compileLua?(script: string): string | undefined;
  /**
   * Loads every script of a customization on the Lua engine: the first problem (a compile
   * error, a missing function), in upstream's words, or undefined.
   */
  checkLuaScripts?(ric: StoredObject): Promise<string | undefined>;
}

type Mutate = (obj: StoredObject, old: StoredObject | undefined, ctx: MutationContext) => void;
type Validate = (obj: StoredObject, old: StoredObject | undefined) => FieldError[];

interface PluginSpec {
  name: string;
  group: string;
  kind: string;
  /** Operations the mutating webhook is registered for; default CREATE and UPDATE. */
  mutateOn?: Operation[];
  mutate?: Mutate;
  /** A plain-sentence refusal, checked before the field rules. */
  deny?: (
    obj: StoredObject,
    old: StoredObject | undefined,
  ) => string | undefined | Promise<string | undefined>;
  validate?: Validate;
}

const POLICY = "policy.karmada.io";
const WORK = "work.karmada.io";
const CONFIG = "config.karmada.io";
const AUTOSCALING = "autoscaling.karmada.io";
const NETWORKING = "networking.karmada.io";
const CLUSTER = "cluster.karmada.io";

function plugin(spec: PluginSpec, ctx: MutationContext): AdmissionPlugin {
  const handles = (rt: ResourceType) => rt.group === spec.group && rt.kind === spec.kind;
  const mutateOn = spec.mutateOn ?? ["CREATE", "UPDATE"];
  const { mutate, deny, validate } = spec;
  const out: AdmissionPlugin = { name: spec.name, handles };
  if (mutate) {
    out.mutate = (obj, old, op) => {
      if (mutateOn.includes(op)) mutate(obj, old, ctx);
    };
  }
  if (deny || validate) {
    out.validate = async (obj, old, op) => {
      if (op === "DELETE") return [];
      const why = deny ? await deny(obj, old) : undefined;
      if (why !== undefined) throw webhookDenied(spec.name, why);
      return validate ? validate(obj, old) : [];
    };
  }
  return out;
}

export function karmadaAdmission(deps: KarmadaAdmissionDeps): AdmissionPlugin[] {
  const features: AdmissionFeatures = { ...DEFAULT_FEATURES, ...deps.features };
  const ctx: MutationContext = { newUid: () => deps.newUid(), now: () => deps.now() };
  if (deps.policyFinalizers !== undefined) ctx.policyFinalizers = deps.policyFinalizers;
  if (deps.defaultNotReadyTolerationSeconds !== undefined)
    ctx.defaultNotReadyTolerationSeconds = deps.defaultNotReadyTolerationSeconds;
  if (deps.defaultUnreachableTolerationSeconds !== undefined)
    ctx.defaultUnreachableTolerationSeconds = deps.defaultUnreachableTolerationSeconds;
  const specs: PluginSpec[] = [
    {
      name: WEBHOOK.propagationPolicy,
      group: POLICY,
      kind: "PropagationPolicy",
      mutate: mutatePropagationPolicy,
      deny: propagationPolicyDenial,
      validate: validatePropagationPolicy,
    },
    {
      name: WEBHOOK.clusterPropagationPolicy,
      group: POLICY,
      kind: "ClusterPropagationPolicy",
      mutate: mutateClusterPropagationPolicy,
      deny: clusterPropagationPolicyDenial,
      validate: validateClusterPropagationPolicy,
    },
    {
      name: "overridepolicy.karmada.io",
      group: POLICY,
      kind: "OverridePolicy",
      mutate: mutateOverridePolicy,
      validate: validateOverridePolicy,
    },
    {
      name: "clusteroverridepolicy.karmada.io",
      group: POLICY,
      kind: "ClusterOverridePolicy",
      validate: validateClusterOverridePolicy,
    },
    {
      name: WEBHOOK.resourceBinding,
      group: WORK,
      kind: "ResourceBinding",
      mutateOn: ["CREATE"],
      mutate: mutateResourceBinding,
      validate: (obj, old) => validateResourceBinding(obj, old, features),
    },
    {
      name: "clusterresourcebinding.karmada.io",
      group: WORK,
      kind: "ClusterResourceBinding",
      mutateOn: ["CREATE"],
      mutate: mutateClusterResourceBinding,
    },
    { name: "work.karmada.io", group: WORK, kind: "Work", mutate: mutateWork },
    {
      name: "config.karmada.io",
      group: CONFIG,
      kind: "ResourceInterpreterWebhookConfiguration",
      validate: validateResourceInterpreterWebhookConfiguration,
    },
    {
      name: WEBHOOK.resourceInterpreterCustomization,
      group: CONFIG,
      kind: "ResourceInterpreterCustomization",
      deny: async (obj) => {
        const existing = (await deps.listResourceInterpreterCustomizations?.()) ?? [];
        return (
          resourceInterpreterCustomizationDenial(obj, existing, deps.compileLua) ??
          (await deps.checkLuaScripts?.(obj))
        );
      },
    },
    {
      name: "federatedresourcequota.karmada.io",
      group: POLICY,
      kind: "FederatedResourceQuota",
      validate: validateFederatedResourceQuota,
    },
    {
      name: "federatedhpa.karmada.io",
      group: AUTOSCALING,
      kind: "FederatedHPA",
      mutate: mutateFederatedHPA,
      validate: validateFederatedHPA,
    },
    {
      name: "cronfederatedhpa.karmada.io",
      group: AUTOSCALING,
      kind: "CronFederatedHPA",
      validate: validateCronFederatedHPA,
    },
    {
      name: "multiclusteringress.karmada.io",
      group: NETWORKING,
      kind: "MultiClusterIngress",
      validate: validateMultiClusterIngress,
    },
    {
      name: "multiclusterservice.karmada.io",
      group: NETWORKING,
      kind: "MultiClusterService",
      mutate: mutateMultiClusterService,
      validate: validateMultiClusterService,
    },
    {
      name: "clustertaintpolicy.karmada.io",
      group: POLICY,
      kind: "ClusterTaintPolicy",
      validate: (obj, old) =>
        validateClusterTaintPolicy(obj, old, {
          allowNoExecuteTaintPolicy: deps.allowNoExecuteTaintPolicy ?? false,
        }),
    },
    {
      name: "cluster.karmada.io",
      group: CLUSTER,
      kind: "Cluster",
      mutate: (obj, old, c) => mutateCluster(obj, old, c, features),
      validate: validateCluster,
    },
  ];
  const deletionProtection: AdmissionPlugin = {
    name: WEBHOOK.resourceDeletionProtection,
    handles: () => true,
    validateDelete(obj) {
      const why = checkDeletionProtection(obj);
      if (why !== undefined) throw webhookDenied(WEBHOOK.resourceDeletionProtection, why);
    },
  };
  return [...specs.map((s) => plugin(s, ctx)), deletionProtection];
}
