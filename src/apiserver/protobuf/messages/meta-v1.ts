import type { PackageTable } from "../schema.ts";

/** meta.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const metaV1: PackageTable = {
  package: "meta.v1",
  apiVersion: "meta.k8s.io/v1",
  kinds: [],
  sharedKinds: ["DeleteOptions"],
  messages: `
Condition
  type 1 string
  status 2 string
  observedGeneration 3 int64 omitempty
  lastTransitionTime 4 time
  reason 5 string
  message 6 string
DeleteOptions
  gracePeriodSeconds 1 *int64
  preconditions 2 *Preconditions
  orphanDependents 3 *bool
  propagationPolicy 4 *string
  dryRun 5 []string
  ignoreStoreReadErrorWithClusterBreakingPotential 6 *bool
FieldSelectorRequirement
  key 1 string
  operator 2 string
  values 3 []string
LabelSelector
  matchLabels 1 map[string]string
  matchExpressions 2 []LabelSelectorRequirement
LabelSelectorRequirement
  key 1 string
  operator 2 string
  values 3 []string
ListMeta
  selfLink 1 string omitempty
  resourceVersion 2 string omitempty
  continue 3 string omitempty
  remainingItemCount 4 *int64
  shardInfo 5 *ShardInfo
ManagedFieldsEntry
  manager 1 string omitempty
  operation 2 string omitempty
  apiVersion 3 string omitempty
  time 4 *time
  fieldsType 6 string omitempty
  fieldsV1 7 *json
  subresource 8 string omitempty
ObjectMeta
  name 1 string omitempty
  generateName 2 string omitempty
  namespace 3 string omitempty
  selfLink 4 string omitempty
  uid 5 string omitempty
  resourceVersion 6 string omitempty
  generation 7 int64 omitempty
  creationTimestamp 8 time
  deletionTimestamp 9 *time
  deletionGracePeriodSeconds 10 *int64
  labels 11 map[string]string
  annotations 12 map[string]string
  ownerReferences 13 []OwnerReference
  finalizers 14 []string
  managedFields 17 []ManagedFieldsEntry
OwnerReference
  apiVersion 5 string
  kind 1 string
  name 3 string
  uid 4 string
  controller 6 *bool
  blockOwnerDeletion 7 *bool
Preconditions
  uid 1 *string
  resourceVersion 2 *string
ShardInfo
  selector 1 string
`,
};
