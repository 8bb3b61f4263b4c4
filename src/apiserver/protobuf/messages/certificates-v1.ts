import type { PackageTable } from "../schema.ts";

/** certificates.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const certificatesV1: PackageTable = {
  package: "certificates.v1",
  apiVersion: "certificates.k8s.io/v1",
  kinds: ["CertificateSigningRequest"],
  messages: `
CertificateSigningRequest
  metadata 1 meta.v1.ObjectMeta
  spec 2 CertificateSigningRequestSpec
  status 3 CertificateSigningRequestStatus
CertificateSigningRequestCondition
  type 1 string
  status 6 string
  reason 2 string omitempty
  message 3 string omitempty
  lastUpdateTime 4 time
  lastTransitionTime 5 time
CertificateSigningRequestSpec
  request 1 bytes
  signerName 7 string
  expirationSeconds 8 *int32
  usages 5 []string
  username 2 string omitempty
  uid 3 string omitempty
  groups 4 []string
  extra 6 map[string]ExtraValue
CertificateSigningRequestStatus
  conditions 1 []CertificateSigningRequestCondition
  certificate 2 bytes omitempty
ExtraValue @array
  items 1 []string
`,
};
