import type { PackageTable } from "../schema.ts";

/** networking.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const networkingV1: PackageTable = {
  package: "networking.v1",
  apiVersion: "networking.k8s.io/v1",
  kinds: ["Ingress", "IngressClass"],
  messages: `
HTTPIngressPath
  path 1 string omitempty
  pathType 3 *string
  backend 2 IngressBackend
HTTPIngressRuleValue
  paths 1 []HTTPIngressPath
Ingress
  metadata 1 meta.v1.ObjectMeta
  spec 2 IngressSpec
  status 3 IngressStatus
IngressBackend
  service 4 *IngressServiceBackend
  resource 3 *core.v1.TypedLocalObjectReference
IngressClass
  metadata 1 meta.v1.ObjectMeta
  spec 2 IngressClassSpec
IngressClassParametersReference
  apiGroup 1 *string
  kind 2 string
  name 3 string
  scope 4 *string
  namespace 5 *string
IngressClassSpec
  controller 1 string omitempty
  parameters 2 *IngressClassParametersReference
IngressLoadBalancerIngress
  ip 1 string omitempty
  hostname 2 string omitempty
  ports 4 []IngressPortStatus
IngressLoadBalancerStatus
  ingress 1 []IngressLoadBalancerIngress
IngressPortStatus
  port 1 int32
  protocol 2 string
  error 3 *string
IngressRule
  host 1 string omitempty
  ... 2 IngressRuleValue
IngressRuleValue
  http 1 *HTTPIngressRuleValue
IngressServiceBackend
  name 1 string
  port 2 ServiceBackendPort
IngressSpec
  ingressClassName 4 *string
  defaultBackend 1 *IngressBackend
  tls 2 []IngressTLS
  rules 3 []IngressRule
IngressStatus
  loadBalancer 1 IngressLoadBalancerStatus
IngressTLS
  hosts 1 []string
  secretName 2 string omitempty
ServiceBackendPort
  name 1 string omitempty
  number 2 int32 omitempty
`,
};
