import type { PackageTable } from "../schema.ts";

/** rbac.authorization.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const rbacV1: PackageTable = {
  package: "rbac.v1",
  apiVersion: "rbac.authorization.k8s.io/v1",
  kinds: ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"],
  messages: `
AggregationRule
  clusterRoleSelectors 1 []meta.v1.LabelSelector
ClusterRole
  metadata 1 meta.v1.ObjectMeta
  rules 2 []PolicyRule
  aggregationRule 3 *AggregationRule
ClusterRoleBinding
  metadata 1 meta.v1.ObjectMeta
  subjects 2 []Subject
  roleRef 3 RoleRef
PolicyRule
  verbs 1 []string
  apiGroups 2 []string
  resources 3 []string
  resourceNames 4 []string
  nonResourceURLs 5 []string
Role
  metadata 1 meta.v1.ObjectMeta
  rules 2 []PolicyRule
RoleBinding
  metadata 1 meta.v1.ObjectMeta
  subjects 2 []Subject
  roleRef 3 RoleRef
RoleRef
  apiGroup 1 string
  kind 2 string
  name 3 string
Subject
  kind 1 string
  apiGroup 2 string omitempty
  name 3 string
  namespace 4 string omitempty
`,
};
