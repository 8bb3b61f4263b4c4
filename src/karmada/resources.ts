/** The Karmada resources the propagation controllers read and write. */
import type { ResourceRef } from "../client/client.ts";

const ref = (
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
): ResourceRef => ({
  group,
  version,
  resource,
  kind,
  namespaced,
});

export const KARMADA = {
  propagationPolicies: ref("policy.karmada.io", "v1alpha1", "propagationpolicies", "PropagationPolicy", true),
  clusterPropagationPolicies: ref(
    "policy.karmada.io",
    "v1alpha1",
    "clusterpropagationpolicies",
    "ClusterPropagationPolicy",
    false,
  ),
  overridePolicies: ref("policy.karmada.io", "v1alpha1", "overridepolicies", "OverridePolicy", true),
  clusterOverridePolicies: ref(
    "policy.karmada.io",
    "v1alpha1",
    "clusteroverridepolicies",
    "ClusterOverridePolicy",
    false,
  ),
  resourceBindings: ref("work.karmada.io", "v1alpha2", "resourcebindings", "ResourceBinding", true),
  clusterResourceBindings: ref(
    "work.karmada.io",
    "v1alpha2",
    "clusterresourcebindings",
    "ClusterResourceBinding",
    false,
  ),
  works: ref("work.karmada.io", "v1alpha1", "works", "Work", true),
  resourceInterpreterCustomizations: ref(
    "config.karmada.io",
    "v1alpha1",
    "resourceinterpretercustomizations",
    "ResourceInterpreterCustomization",
    false,
  ),
  resourceInterpreterWebhookConfigurations: ref(
    "config.karmada.io",
    "v1alpha1",
    "resourceinterpreterwebhookconfigurations",
    "ResourceInterpreterWebhookConfiguration",
    false,
  ),
} as const;
