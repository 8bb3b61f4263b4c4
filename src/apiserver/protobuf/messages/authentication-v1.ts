import type { PackageTable } from "../schema.ts";

/** authentication.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const authenticationV1: PackageTable = {
  package: "authentication.v1",
  apiVersion: "authentication.k8s.io/v1",
  kinds: ["TokenReview", "SelfSubjectReview", "TokenRequest"],
  messages: `
BoundObjectReference
  kind 1 string omitempty
  apiVersion 2 string omitempty
  name 3 string omitempty
  uid 4 string omitempty
ExtraValue @array
  items 1 []string
SelfSubjectReview
  metadata 1 meta.v1.ObjectMeta
  status 2 SelfSubjectReviewStatus
SelfSubjectReviewStatus
  userInfo 1 UserInfo
TokenRequest
  metadata 1 meta.v1.ObjectMeta
  spec 2 TokenRequestSpec
  status 3 TokenRequestStatus
TokenRequestSpec
  audiences 1 []string
  expirationSeconds 4 *int64
  boundObjectRef 3 *BoundObjectReference
TokenRequestStatus
  token 1 string
  expirationTimestamp 2 time
TokenReview
  metadata 1 meta.v1.ObjectMeta
  spec 2 TokenReviewSpec
  status 3 TokenReviewStatus
TokenReviewSpec
  token 1 string omitempty
  audiences 2 []string
TokenReviewStatus
  authenticated 1 bool omitempty
  user 2 UserInfo
  audiences 4 []string
  error 3 string omitempty
UserInfo
  username 1 string omitempty
  uid 2 string omitempty
  groups 3 []string
  extra 4 map[string]ExtraValue
`,
};
