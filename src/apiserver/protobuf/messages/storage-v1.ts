import type { PackageTable } from "../schema.ts";

/** storage.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const storageV1: PackageTable = {
  package: "storage.v1",
  apiVersion: "storage.k8s.io/v1",
  kinds: ["StorageClass"],
  messages: `
StorageClass
  metadata 1 meta.v1.ObjectMeta
  provisioner 2 string
  parameters 3 map[string]string
  reclaimPolicy 4 *string
  mountOptions 5 []string
  allowVolumeExpansion 6 *bool
  volumeBindingMode 7 *string
  allowedTopologies 8 []core.v1.TopologySelectorTerm
`,
};
