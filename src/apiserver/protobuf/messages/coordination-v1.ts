import type { PackageTable } from "../schema.ts";

/** coordination.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const coordinationV1: PackageTable = {
  package: "coordination.v1",
  apiVersion: "coordination.k8s.io/v1",
  kinds: ["Lease"],
  messages: `
Lease
  metadata 1 meta.v1.ObjectMeta
  spec 2 LeaseSpec
LeaseSpec
  holderIdentity 1 *string
  leaseDurationSeconds 2 *int32
  acquireTime 3 *microtime
  renewTime 4 *microtime
  leaseTransitions 5 *int32
  strategy 6 *string
  preferredHolder 7 *string
`,
};
