import type { PackageTable } from "../schema.ts";

/** authorization.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const authorizationV1: PackageTable = {
  package: "authorization.v1",
  apiVersion: "authorization.k8s.io/v1",
  kinds: [
    "SelfSubjectAccessReview",
    "SubjectAccessReview",
    "LocalSubjectAccessReview",
    "SelfSubjectRulesReview",
  ],
  messages: `
ExtraValue @array
  items 1 []string
FieldSelectorAttributes
  rawSelector 1 string omitempty
  requirements 2 []meta.v1.FieldSelectorRequirement
LabelSelectorAttributes
  rawSelector 1 string omitempty
  requirements 2 []meta.v1.LabelSelectorRequirement
LocalSubjectAccessReview
  metadata 1 meta.v1.ObjectMeta
  spec 2 SubjectAccessReviewSpec
  status 3 SubjectAccessReviewStatus
NonResourceAttributes
  path 1 string omitempty
  verb 2 string omitempty
NonResourceRule
  verbs 1 []string
  nonResourceURLs 2 []string
ResourceAttributes
  namespace 1 string omitempty
  verb 2 string omitempty
  group 3 string omitempty
  version 4 string omitempty
  resource 5 string omitempty
  subresource 6 string omitempty
  name 7 string omitempty
  fieldSelector 8 *FieldSelectorAttributes
  labelSelector 9 *LabelSelectorAttributes
ResourceRule
  verbs 1 []string
  apiGroups 2 []string
  resources 3 []string
  resourceNames 4 []string
SelfSubjectAccessReview
  metadata 1 meta.v1.ObjectMeta
  spec 2 SelfSubjectAccessReviewSpec
  status 3 SubjectAccessReviewStatus
SelfSubjectAccessReviewSpec
  resourceAttributes 1 *ResourceAttributes
  nonResourceAttributes 2 *NonResourceAttributes
SelfSubjectRulesReview
  metadata 1 meta.v1.ObjectMeta
  spec 2 SelfSubjectRulesReviewSpec
  status 3 SubjectRulesReviewStatus
SelfSubjectRulesReviewSpec
  namespace 1 string omitempty
SubjectAccessReview
  metadata 1 meta.v1.ObjectMeta
  spec 2 SubjectAccessReviewSpec
  status 3 SubjectAccessReviewStatus
SubjectAccessReviewSpec
  resourceAttributes 1 *ResourceAttributes
  nonResourceAttributes 2 *NonResourceAttributes
  user 3 string omitempty
  groups 4 []string
  extra 5 map[string]ExtraValue
  uid 6 string omitempty
SubjectAccessReviewStatus
  allowed 1 bool
  denied 4 bool omitempty
  reason 2 string omitempty
  evaluationError 3 string omitempty
SubjectRulesReviewStatus
  resourceRules 1 []ResourceRule
  nonResourceRules 2 []NonResourceRule
  incomplete 3 bool
  evaluationError 4 string omitempty
`,
};
