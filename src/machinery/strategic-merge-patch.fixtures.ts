/**
 * Hand-written schemas shaped like the built-in kinds the patch and apply tests touch, with
 * the same patch metadata and list types as the upstream v1.32 OpenAPI for those fields.
 * Test data only: the served schemas live in `src/api/`.
 */

import { type Schema, s } from "../api/schema.ts";

const mergeBy = (key: string, items: Schema, mapKeys: string[] = [key]): Schema =>
  s.array(items, {
    "x-kubernetes-patch-strategy": "merge",
    "x-kubernetes-patch-merge-key": key,
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": mapKeys,
  });

const labels = s.map(s.string());

export const objectMeta: Schema = s.object({
  name: s.string(),
  namespace: s.string(),
  uid: s.string(),
  resourceVersion: s.string(),
  generation: s.int64(),
  creationTimestamp: s.time(),
  labels,
  annotations: s.map(s.string()),
  finalizers: s.array(s.string(), {
    "x-kubernetes-patch-strategy": "merge",
    "x-kubernetes-list-type": "set",
  }),
  ownerReferences: mergeBy(
    "uid",
    s.object({ apiVersion: s.string(), kind: s.string(), name: s.string(), uid: s.string() }),
  ),
  managedFields: s.array(s.object({ manager: s.string() }), { "x-kubernetes-list-type": "atomic" }),
});

const envVar = s.object({
  name: s.string(),
  value: s.string(),
  valueFrom: s.object({
    fieldRef: s.object({ fieldPath: s.string() }, { "x-kubernetes-map-type": "atomic" }),
  }),
});

const containerPort = s.object({
  name: s.string(),
  containerPort: s.int32(),
  protocol: s.string({ default: "TCP" }),
});

export const container: Schema = s.object({
  name: s.string(),
  image: s.string(),
  command: s.array(s.string(), { "x-kubernetes-list-type": "atomic" }),
  args: s.array(s.string(), { "x-kubernetes-list-type": "atomic" }),
  env: mergeBy("name", envVar),
  ports: mergeBy("containerPort", containerPort, ["containerPort", "protocol"]),
  volumeMounts: mergeBy("mountPath", s.object({ name: s.string(), mountPath: s.string() })),
  resources: s.object({
    limits: s.map(s.quantity()),
    requests: s.map(s.quantity()),
  }),
});

const volume = s.object({
  name: s.string(),
  emptyDir: s.object({ medium: s.string(), sizeLimit: s.quantity() }),
  configMap: s.object({ name: s.string(), defaultMode: s.int32() }),
  hostPath: s.object({ path: s.string(), type: s.string() }),
});

export const podSpec: Schema = s.object({
  containers: mergeBy("name", container),
  initContainers: mergeBy("name", container),
  volumes: s.array(volume, {
    "x-kubernetes-patch-strategy": "merge,retainKeys",
    "x-kubernetes-patch-merge-key": "name",
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
  }),
  tolerations: s.array(
    s.object({ key: s.string(), operator: s.string(), value: s.string(), effect: s.string() }),
    { "x-kubernetes-list-type": "atomic" },
  ),
  nodeSelector: s.map(s.string(), { "x-kubernetes-map-type": "atomic" }),
  securityContext: s.object({ runAsUser: s.int64(), runAsGroup: s.int64(), fsGroup: s.int64() }),
  imagePullSecrets: mergeBy("name", s.object({ name: s.string() })),
  restartPolicy: s.string(),
  serviceAccountName: s.string(),
});

export const deploymentSchema: Schema = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  metadata: objectMeta,
  spec: s.object({
    replicas: s.int32(),
    paused: s.boolean(),
    minReadySeconds: s.int32(),
    selector: s.object(
      { matchLabels: s.map(s.string()) },
      {
        "x-kubernetes-map-type": "atomic",
      },
    ),
    strategy: s.object(
      {
        type: s.string(),
        rollingUpdate: s.object({ maxSurge: s.intOrString(), maxUnavailable: s.intOrString() }),
      },
      { "x-kubernetes-patch-strategy": "retainKeys" },
    ),
    template: s.object({
      metadata: objectMeta,
      spec: podSpec,
    }),
  }),
  status: s.object({
    replicas: s.int32(),
    conditions: mergeBy("type", s.object({ type: s.string(), status: s.string(), reason: s.string() })),
  }),
});

export const podSchema: Schema = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  metadata: objectMeta,
  spec: podSpec,
});

export const serviceSchema: Schema = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  metadata: objectMeta,
  spec: s.object({
    type: s.string(),
    selector: s.map(s.string(), { "x-kubernetes-map-type": "atomic" }),
    ports: mergeBy(
      "port",
      s.object({
        name: s.string(),
        port: s.int32(),
        protocol: s.string({ default: "TCP" }),
        targetPort: s.intOrString(),
      }),
      ["port", "protocol"],
    ),
    clusterIP: s.string(),
  }),
});
