import type { PackageTable } from "../schema.ts";

/** discovery.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const discoveryV1: PackageTable = {
  package: "discovery.v1",
  apiVersion: "discovery.k8s.io/v1",
  kinds: ["EndpointSlice"],
  messages: `
Endpoint
  addresses 1 []string
  conditions 2 EndpointConditions
  hostname 3 *string
  targetRef 4 *core.v1.ObjectReference
  deprecatedTopology 5 map[string]string
  nodeName 6 *string
  zone 7 *string
  hints 8 *EndpointHints
EndpointConditions
  ready 1 *bool
  serving 2 *bool
  terminating 3 *bool
EndpointHints
  forZones 1 []ForZone
  forNodes 2 []ForNode
EndpointPort
  name 1 *string
  protocol 2 *string
  port 3 *int32
  appProtocol 4 *string
EndpointSlice
  metadata 1 meta.v1.ObjectMeta
  addressType 4 string
  endpoints 2 []Endpoint
  ports 3 []EndpointPort
ForNode
  name 1 string
ForZone
  name 1 string
`,
};
