import type { PackageTable } from "../schema.ts";

/** scheduling.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const schedulingV1: PackageTable = {
  package: "scheduling.v1",
  apiVersion: "scheduling.k8s.io/v1",
  kinds: ["PriorityClass"],
  messages: `
PriorityClass
  metadata 1 meta.v1.ObjectMeta
  value 2 int32
  globalDefault 3 bool omitempty
  description 4 string omitempty
  preemptionPolicy 5 *string
`,
};
