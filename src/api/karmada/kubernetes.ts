/**
 * Kubernetes structs that Karmada's kinds embed (meta/v1, core/v1, autoscaling/v2, networking/v1,
 * admissionregistration/v1), in the shape controller-gen gives them inside a CRD: list and map
 * types from their `+listType`/`+mapType` markers, no descriptions.
 */

import { type Schema, s } from "../schema.ts";

/** A qualified name (`[prefix/]name`), as metav1.Condition `type` and core/v1 PortStatus `error` use it. */
const QUALIFIED_NAME_PATTERN =
  "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$";

/** A CamelCase reason, as metav1.Condition and Karmada's eviction tasks use it. */
export const REASON_PATTERN = "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$";

const atomic = { "x-kubernetes-list-type": "atomic" } as const;

// ---- meta/v1 -------------------------------------------------------------------------------

/** metav1.LabelSelectorRequirement */
export function labelSelectorRequirement(): Schema {
  return s.object(
    {
      key: s.string(),
      operator: s.string(),
      values: s.array(s.string(), atomic),
    },
    { required: ["key", "operator"] },
  );
}

/** metav1.LabelSelector */
export function labelSelector(): Schema {
  return s.object(
    {
      matchExpressions: s.array(labelSelectorRequirement(), atomic),
      matchLabels: s.map(s.string()),
    },
    { "x-kubernetes-map-type": "atomic" },
  );
}

/** metav1.Condition */
export function condition(): Schema {
  return s.object(
    {
      type: s.string({ maxLength: 316, pattern: QUALIFIED_NAME_PATTERN }),
      status: s.enum(["True", "False", "Unknown"]),
      observedGeneration: s.int64({ minimum: 0 }),
      lastTransitionTime: s.time(),
      reason: s.string({ maxLength: 1024, minLength: 1, pattern: REASON_PATTERN }),
      message: s.string({ maxLength: 32768 }),
    },
    { required: ["lastTransitionTime", "message", "reason", "status", "type"] },
  );
}

/** `[]metav1.Condition` with `+listType=map`, `+listMapKey=type`. */
export function conditionMap(): Schema {
  return s.array(condition(), {
    "x-kubernetes-list-map-keys": ["type"],
    "x-kubernetes-list-type": "map",
  });
}

// ---- core/v1 -------------------------------------------------------------------------------

/** core/v1 ResourceList: resource name to quantity. */
export function resourceList(): Schema {
  return s.map(s.quantity());
}

/** core/v1 ResourceQuotaStatus, inlined by Karmada's quota status. */
export function resourceQuotaStatusProperties(): Record<string, Schema> {
  return { hard: resourceList(), used: resourceList() };
}

/** core/v1 Toleration */
export function toleration(): Schema {
  return s.object({
    key: s.string(),
    operator: s.string(),
    value: s.string(),
    effect: s.string(),
    tolerationSeconds: s.int64(),
  });
}

/** core/v1 Taint */
export function taint(): Schema {
  return s.object(
    {
      key: s.string(),
      value: s.string(),
      effect: s.string(),
      timeAdded: s.time(),
    },
    { required: ["effect", "key"] },
  );
}

/** core/v1 NodeSelectorRequirement */
export function nodeSelectorRequirement(): Schema {
  return s.object(
    {
      key: s.string(),
      operator: s.string(),
      values: s.array(s.string(), atomic),
    },
    { required: ["key", "operator"] },
  );
}

/** core/v1 NodeSelectorTerm */
export function nodeSelectorTerm(): Schema {
  return s.object(
    {
      matchExpressions: s.array(nodeSelectorRequirement(), atomic),
      matchFields: s.array(nodeSelectorRequirement(), atomic),
    },
    { "x-kubernetes-map-type": "atomic" },
  );
}

/** core/v1 NodeSelector */
export function nodeSelector(): Schema {
  return s.object(
    { nodeSelectorTerms: s.array(nodeSelectorTerm(), atomic) },
    { required: ["nodeSelectorTerms"], "x-kubernetes-map-type": "atomic" },
  );
}

/** core/v1 PortStatus */
export function portStatus(): Schema {
  return s.object(
    {
      port: s.int32(),
      protocol: s.string(),
      error: s.string({ maxLength: 316, pattern: QUALIFIED_NAME_PATTERN }),
    },
    { required: ["error", "port", "protocol"] },
  );
}

/** core/v1 LoadBalancerIngress */
export function loadBalancerIngress(): Schema {
  return s.object({
    ip: s.string(),
    hostname: s.string(),
    ipMode: s.string(),
    ports: s.array(portStatus(), atomic),
  });
}

/** core/v1 LoadBalancerStatus */
export function loadBalancerStatus(): Schema {
  return s.object({ ingress: s.array(loadBalancerIngress(), atomic) });
}

/** core/v1 ServiceStatus */
export function serviceStatus(): Schema {
  return s.object({
    loadBalancer: loadBalancerStatus(),
    conditions: conditionMap(),
  });
}

/** core/v1 ClientIPConfig */
export function clientIPConfig(): Schema {
  return s.object({ timeoutSeconds: s.int32() });
}

/** core/v1 SessionAffinityConfig */
export function sessionAffinityConfig(): Schema {
  return s.object({ clientIP: clientIPConfig() });
}

// ---- admissionregistration/v1 --------------------------------------------------------------

/** admissionregistration/v1 ServiceReference */
export function webhookServiceReference(): Schema {
  return s.object(
    {
      namespace: s.string(),
      name: s.string(),
      path: s.string(),
      port: s.int32(),
    },
    { required: ["name", "namespace"] },
  );
}

/** admissionregistration/v1 WebhookClientConfig */
export function webhookClientConfig(): Schema {
  return s.object({
    url: s.string(),
    service: webhookServiceReference(),
    caBundle: s.string({ format: "byte" }),
  });
}

// ---- autoscaling/v2 ------------------------------------------------------------------------

/** autoscaling/v2 CrossVersionObjectReference */
export function crossVersionObjectReference(): Schema {
  return s.object(
    {
      kind: s.string(),
      name: s.string(),
      apiVersion: s.string(),
    },
    { required: ["kind", "name"] },
  );
}

/** autoscaling/v2 MetricIdentifier */
export function metricIdentifier(): Schema {
  return s.object({ name: s.string(), selector: labelSelector() }, { required: ["name"] });
}

/** autoscaling/v2 MetricTarget */
export function metricTarget(): Schema {
  return s.object(
    {
      type: s.string(),
      value: s.quantity(),
      averageValue: s.quantity(),
      averageUtilization: s.int32(),
    },
    { required: ["type"] },
  );
}

/** autoscaling/v2 MetricValueStatus */
export function metricValueStatus(): Schema {
  return s.object({
    value: s.quantity(),
    averageValue: s.quantity(),
    averageUtilization: s.int32(),
  });
}

/** autoscaling/v2 ObjectMetricSource */
export function objectMetricSource(): Schema {
  return s.object(
    {
      describedObject: crossVersionObjectReference(),
      target: metricTarget(),
      metric: metricIdentifier(),
    },
    { required: ["describedObject", "metric", "target"] },
  );
}

/** autoscaling/v2 PodsMetricSource */
export function podsMetricSource(): Schema {
  return s.object({ metric: metricIdentifier(), target: metricTarget() }, { required: ["metric", "target"] });
}

/** autoscaling/v2 ResourceMetricSource */
export function resourceMetricSource(): Schema {
  return s.object({ name: s.string(), target: metricTarget() }, { required: ["name", "target"] });
}

/** autoscaling/v2 ContainerResourceMetricSource */
export function containerResourceMetricSource(): Schema {
  return s.object(
    { name: s.string(), target: metricTarget(), container: s.string() },
    { required: ["container", "name", "target"] },
  );
}

/** autoscaling/v2 ExternalMetricSource */
export function externalMetricSource(): Schema {
  return s.object({ metric: metricIdentifier(), target: metricTarget() }, { required: ["metric", "target"] });
}

/** autoscaling/v2 MetricSpec */
export function metricSpec(): Schema {
  return s.object(
    {
      type: s.string(),
      object: objectMetricSource(),
      pods: podsMetricSource(),
      resource: resourceMetricSource(),
      containerResource: containerResourceMetricSource(),
      external: externalMetricSource(),
    },
    { required: ["type"] },
  );
}

/** autoscaling/v2 ObjectMetricStatus */
export function objectMetricStatus(): Schema {
  return s.object(
    {
      metric: metricIdentifier(),
      current: metricValueStatus(),
      describedObject: crossVersionObjectReference(),
    },
    { required: ["current", "describedObject", "metric"] },
  );
}

/** autoscaling/v2 PodsMetricStatus */
export function podsMetricStatus(): Schema {
  return s.object(
    { metric: metricIdentifier(), current: metricValueStatus() },
    { required: ["current", "metric"] },
  );
}

/** autoscaling/v2 ResourceMetricStatus */
export function resourceMetricStatus(): Schema {
  return s.object({ name: s.string(), current: metricValueStatus() }, { required: ["current", "name"] });
}

/** autoscaling/v2 ContainerResourceMetricStatus */
export function containerResourceMetricStatus(): Schema {
  return s.object(
    { name: s.string(), current: metricValueStatus(), container: s.string() },
    { required: ["container", "current", "name"] },
  );
}

/** autoscaling/v2 ExternalMetricStatus */
export function externalMetricStatus(): Schema {
  return s.object(
    { metric: metricIdentifier(), current: metricValueStatus() },
    { required: ["current", "metric"] },
  );
}

/** autoscaling/v2 MetricStatus */
export function metricStatus(): Schema {
  return s.object(
    {
      type: s.string(),
      object: objectMetricStatus(),
      pods: podsMetricStatus(),
      resource: resourceMetricStatus(),
      containerResource: containerResourceMetricStatus(),
      external: externalMetricStatus(),
    },
    { required: ["type"] },
  );
}

/** autoscaling/v2 HPAScalingPolicy */
export function hpaScalingPolicy(): Schema {
  return s.object(
    { type: s.string(), value: s.int32(), periodSeconds: s.int32() },
    { required: ["periodSeconds", "type", "value"] },
  );
}

/** autoscaling/v2 HPAScalingRules */
export function hpaScalingRules(): Schema {
  return s.object({
    stabilizationWindowSeconds: s.int32(),
    selectPolicy: s.string(),
    policies: s.array(hpaScalingPolicy(), atomic),
    tolerance: s.quantity(),
  });
}

/** autoscaling/v2 HorizontalPodAutoscalerBehavior */
export function horizontalPodAutoscalerBehavior(): Schema {
  return s.object({ scaleUp: hpaScalingRules(), scaleDown: hpaScalingRules() });
}

/** autoscaling/v2 HorizontalPodAutoscalerCondition */
export function horizontalPodAutoscalerCondition(): Schema {
  return s.object(
    {
      type: s.string(),
      status: s.string(),
      lastTransitionTime: s.time(),
      reason: s.string(),
      message: s.string(),
    },
    { required: ["status", "type"] },
  );
}

/** autoscaling/v2 HorizontalPodAutoscalerStatus */
export function horizontalPodAutoscalerStatus(): Schema {
  return s.object(
    {
      observedGeneration: s.int64(),
      lastScaleTime: s.time(),
      currentReplicas: s.int32(),
      desiredReplicas: s.int32(),
      currentMetrics: s.array(metricStatus(), atomic),
      conditions: s.array(horizontalPodAutoscalerCondition(), {
        "x-kubernetes-list-map-keys": ["type"],
        "x-kubernetes-list-type": "map",
      }),
    },
    { required: ["desiredReplicas"] },
  );
}

// ---- networking/v1 -------------------------------------------------------------------------

/** core/v1 TypedLocalObjectReference */
export function typedLocalObjectReference(): Schema {
  return s.object(
    { apiGroup: s.string(), kind: s.string(), name: s.string() },
    { required: ["kind", "name"], "x-kubernetes-map-type": "atomic" },
  );
}

/** networking/v1 ServiceBackendPort */
export function serviceBackendPort(): Schema {
  return s.object({ name: s.string(), number: s.int32() }, { "x-kubernetes-map-type": "atomic" });
}

/** networking/v1 IngressServiceBackend */
export function ingressServiceBackend(): Schema {
  return s.object({ name: s.string(), port: serviceBackendPort() }, { required: ["name"] });
}

/** networking/v1 IngressBackend */
export function ingressBackend(): Schema {
  return s.object({ service: ingressServiceBackend(), resource: typedLocalObjectReference() });
}

/** networking/v1 IngressTLS */
export function ingressTLS(): Schema {
  return s.object({ hosts: s.array(s.string(), atomic), secretName: s.string() });
}

/** networking/v1 HTTPIngressPath */
export function httpIngressPath(): Schema {
  return s.object(
    { path: s.string(), pathType: s.string(), backend: ingressBackend() },
    { required: ["backend", "pathType"] },
  );
}

/** networking/v1 HTTPIngressRuleValue */
export function httpIngressRuleValue(): Schema {
  return s.object({ paths: s.array(httpIngressPath(), atomic) }, { required: ["paths"] });
}

/** networking/v1 IngressRule (IngressRuleValue inlined) */
export function ingressRule(): Schema {
  return s.object({ host: s.string(), http: httpIngressRuleValue() });
}

/** networking/v1 IngressSpec */
export function ingressSpec(): Schema {
  return s.object({
    ingressClassName: s.string(),
    defaultBackend: ingressBackend(),
    tls: s.array(ingressTLS(), atomic),
    rules: s.array(ingressRule(), atomic),
  });
}

/** networking/v1 IngressPortStatus */
export function ingressPortStatus(): Schema {
  return s.object(
    {
      port: s.int32(),
      protocol: s.string(),
      error: s.string({ maxLength: 316, pattern: QUALIFIED_NAME_PATTERN }),
    },
    { required: ["error", "port", "protocol"] },
  );
}

/** networking/v1 IngressLoadBalancerIngress */
export function ingressLoadBalancerIngress(): Schema {
  return s.object({
    ip: s.string(),
    hostname: s.string(),
    ports: s.array(ingressPortStatus(), atomic),
  });
}

/** networking/v1 IngressLoadBalancerStatus */
export function ingressLoadBalancerStatus(): Schema {
  return s.object({ ingress: s.array(ingressLoadBalancerIngress(), atomic) });
}

/** networking/v1 IngressStatus, inlined by MultiClusterIngressStatus. */
export function ingressStatusProperties(): Record<string, Schema> {
  return { loadBalancer: ingressLoadBalancerStatus() };
}
