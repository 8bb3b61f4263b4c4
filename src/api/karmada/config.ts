/**
 * config.karmada.io/v1alpha1: ResourceInterpreterCustomization (Lua scripts per interpreter
 * operation) and ResourceInterpreterWebhookConfiguration (interpreter webhooks).
 */

import { type CustomResourceDefinition, crd, described, type Schema, s, topLevel } from "../schema.ts";
import { webhookClientConfig } from "./kubernetes.ts";

export const CONFIG_GROUP = "config.karmada.io";

// ---- ResourceInterpreterCustomization ------------------------------------------------------

/** CustomizationTarget */
export function customizationTarget(): Schema {
  return s.object(
    {
      apiVersion: s.string({ description: "apiVersion of the kind to interpret." }),
      kind: s.string({ description: "The kind to interpret." }),
    },
    { required: ["apiVersion", "kind"] },
  );
}

/**
 * The one-field `{ luaScript }` struct that every customization rule is (LocalValueRetention,
 * ReplicaResourceRequirement, ComponentResourceRequirement, ReplicaRevision, StatusReflection,
 * StatusAggregation, HealthInterpretation, DependencyInterpretation).
 */
function luaScriptRule(description: string): Schema {
  return s.object(
    { luaScript: s.string({ description: "The Lua script that implements this operation." }) },
    { required: ["luaScript"], description },
  );
}

/** CustomizationRules */
export function customizationRules(): Schema {
  return s.object({
    retention: luaScriptRule("Keeps fields the member cluster changed when Karmada updates the object."),
    replicaResource: luaScriptRule("Reads the replica count and per-replica requirements."),
    componentResource: luaScriptRule("Reads the components of a multi-component workload."),
    replicaRevision: luaScriptRule("Writes the replica count for one cluster."),
    statusReflection: luaScriptRule("Picks the status to collect from a member cluster."),
    statusAggregation: luaScriptRule("Merges the collected statuses into the template."),
    healthInterpretation: luaScriptRule("Judges whether the object is healthy."),
    dependencyInterpretation: luaScriptRule("Lists the objects this one depends on."),
  });
}

/** ResourceInterpreterCustomizationSpec */
export function resourceInterpreterCustomizationSpec(): Schema {
  return s.object(
    {
      target: described(customizationTarget(), "The kind these scripts interpret."),
      customizations: described(customizationRules(), "One Lua script per interpreter operation."),
    },
    { required: ["customizations", "target"] },
  );
}

export const resourceInterpreterCustomizationCrd: CustomResourceDefinition = crd({
  group: CONFIG_GROUP,
  names: {
    kind: "ResourceInterpreterCustomization",
    listKind: "ResourceInterpreterCustomizationList",
    plural: "resourceinterpretercustomizations",
    singular: "resourceinterpretercustomization",
    shortNames: ["ric"],
    categories: ["karmada-io"],
  },
  scope: "Cluster",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          { spec: described(resourceInterpreterCustomizationSpec(), "The target kind and its scripts.") },
          { description: "Teaches Karmada how to interpret one kind, with Lua scripts.", required: ["spec"] },
        ),
      },
      subresources: {},
      additionalPrinterColumns: [
        { name: "TARGET-API-VERSION", type: "string", jsonPath: ".spec.target.apiVersion" },
        { name: "TARGET-KIND", type: "string", jsonPath: ".spec.target.kind" },
        { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
    },
  ],
});

// ---- ResourceInterpreterWebhookConfiguration -----------------------------------------------

/** The fields of Rule, for RuleWithOperations that embeds it. */
export function ruleProperties(): Record<string, Schema> {
  return {
    apiGroups: s.array(s.string(), { description: "API groups to match; * matches all." }),
    apiVersions: s.array(s.string(), { description: "API versions to match; * matches all." }),
    kinds: s.array(s.string(), { description: "Kinds to match; * matches all." }),
  };
}

/** RuleWithOperations */
export function ruleWithOperations(): Schema {
  return s.object(
    {
      operations: s.array(s.string(), { description: "Interpreter operations to send; * sends all." }),
      ...ruleProperties(),
    },
    { required: ["apiGroups", "apiVersions", "kinds", "operations"] },
  );
}

/** ResourceInterpreterWebhook */
export function resourceInterpreterWebhook(): Schema {
  return s.object(
    {
      name: s.string({ description: "Unique name of the webhook." }),
      clientConfig: described(webhookClientConfig(), "How to reach the webhook."),
      rules: s.array(ruleWithOperations(), { description: "Which kinds and operations go to the webhook." }),
      timeoutSeconds: s.int32(),
      interpreterContextVersions: s.array(s.string(), {
        description: "ResourceInterpreterContext versions the webhook understands.",
      }),
    },
    { required: ["clientConfig", "interpreterContextVersions", "name"] },
  );
}

export const resourceInterpreterWebhookConfigurationCrd: CustomResourceDefinition = crd({
  group: CONFIG_GROUP,
  names: {
    kind: "ResourceInterpreterWebhookConfiguration",
    listKind: "ResourceInterpreterWebhookConfigurationList",
    plural: "resourceinterpreterwebhookconfigurations",
    singular: "resourceinterpreterwebhookconfiguration",
    categories: ["karmada-io"],
  },
  scope: "Cluster",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          {
            webhooks: s.array(resourceInterpreterWebhook(), {
              description: "The webhooks and what each one interprets.",
            }),
          },
          { description: "Registers webhooks that interpret resources for Karmada.", required: ["webhooks"] },
        ),
      },
    },
  ],
});
