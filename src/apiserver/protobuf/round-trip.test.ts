/**
 * JSON → protobuf → JSON for every kind we decode, with objects that touch the awkward parts of
 * each message graph (inlined structs, pointers set to zero, maps of quantities and bytes,
 * times, IntOrString, raw JSON, the recursive JSONSchemaProps and its unions).
 *
 * Normalization: decoding yields Go's JSON rendering, which adds what Go always writes for
 * non-pointer fields (`{}` for structs, `0`/`""`/`false` for scalars without omitempty). So the
 * decoded object must equal the input except for added zero values; decoding again must be
 * stable, and the input and the decoded object must encode to the same bytes.
 */

import { describe, expect, it } from "vitest";
import { decodeProtobufObject } from "./decode.ts";
import { encodeProtobufObject } from "./encode.ts";
import { builtinRegistry } from "./registry.ts";

type Json = Record<string, unknown>;

const T1 = "2024-05-01T10:00:00Z";
const T2 = "2024-05-01T10:05:30Z";
const MICRO = "2024-05-01T10:00:00.123456Z";
const UID = "0b6f0e1e-5c39-4d6a-9d55-0c1f1c7a0001";

const meta = (name: string, namespace?: string): Json => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: UID,
  resourceVersion: "42",
  generation: 3,
  creationTimestamp: T1,
  labels: { app: name, "app.kubernetes.io/part-of": "demo" },
  annotations: { "example.com/note": "hello" },
});

const richMeta: Json = {
  ...meta("rich", "demo"),
  generateName: "rich-",
  deletionTimestamp: T2,
  deletionGracePeriodSeconds: 0,
  ownerReferences: [
    {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      name: "web-1",
      uid: UID,
      controller: true,
      blockOwnerDeletion: false,
    },
  ],
  finalizers: ["example.com/cleanup"],
  managedFields: [
    {
      manager: "kubectl-client-side-apply",
      operation: "Update",
      apiVersion: "v1",
      time: T2,
      fieldsType: "FieldsV1",
      fieldsV1: { "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } },
      subresource: "status",
    },
  ],
};

const podSpec: Json = {
  volumes: [
    { name: "data", persistentVolumeClaim: { claimName: "data", readOnly: true } },
    { name: "cache", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } },
    {
      name: "cfg",
      configMap: { name: "cfg", items: [{ key: "a", path: "a.txt", mode: 420 }], defaultMode: 0o644 },
    },
    {
      name: "token",
      projected: {
        sources: [
          { serviceAccountToken: { audience: "vault", expirationSeconds: 3600, path: "token" } },
          {
            downwardAPI: {
              items: [{ path: "labels", fieldRef: { apiVersion: "v1", fieldPath: "metadata.labels" } }],
            },
          },
        ],
      },
    },
    {
      name: "scratch",
      ephemeral: {
        volumeClaimTemplate: {
          metadata: { labels: { kind: "scratch" } },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      },
    },
  ],
  initContainers: [
    { name: "init", image: "busybox", command: ["sh", "-c", "true"], restartPolicy: "Always" },
  ],
  containers: [
    {
      name: "app",
      image: "nginx:1.25",
      args: ["--port", "8080"],
      ports: [
        { name: "http", containerPort: 8080, protocol: "TCP" },
        { containerPort: 9090, hostPort: 0, hostIP: "" },
      ],
      env: [
        { name: "PLAIN", value: "1" },
        { name: "EMPTY" },
        { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        { name: "CPU", valueFrom: { resourceFieldRef: { resource: "limits.cpu", divisor: "1m" } } },
        { name: "S", valueFrom: { secretKeyRef: { name: "s", key: "k", optional: false } } },
      ],
      envFrom: [{ prefix: "CFG_", configMapRef: { name: "cfg" } }],
      resources: {
        limits: { cpu: "500m", memory: "128Mi" },
        requests: { cpu: "250m", "nvidia.com/gpu": "1" },
      },
      volumeMounts: [
        { name: "data", mountPath: "/data", readOnly: true, mountPropagation: "HostToContainer" },
      ],
      livenessProbe: {
        httpGet: { path: "/healthz", port: "http", scheme: "HTTP", httpHeaders: [{ name: "X", value: "y" }] },
        initialDelaySeconds: 5,
        periodSeconds: 10,
        failureThreshold: 3,
      },
      readinessProbe: { tcpSocket: { port: 8080 }, timeoutSeconds: 1 },
      startupProbe: { exec: { command: ["cat", "/ready"] }, terminationGracePeriodSeconds: 0 },
      lifecycle: { preStop: { sleep: { seconds: 5 } }, postStart: { exec: { command: ["true"] } } },
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      imagePullPolicy: "IfNotPresent",
      securityContext: {
        capabilities: { add: ["NET_BIND_SERVICE"], drop: ["ALL"] },
        privileged: false,
        runAsUser: 0,
        runAsNonRoot: false,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        seccompProfile: { type: "RuntimeDefault" },
      },
      stdin: true,
      tty: true,
    },
  ],
  ephemeralContainers: [{ name: "debug", image: "busybox", stdin: true, targetContainerName: "app" }],
  restartPolicy: "Always",
  terminationGracePeriodSeconds: 30,
  dnsPolicy: "ClusterFirst",
  nodeSelector: { "kubernetes.io/os": "linux" },
  serviceAccountName: "sa",
  serviceAccount: "sa",
  automountServiceAccountToken: false,
  hostNetwork: true,
  securityContext: {
    runAsUser: 1000,
    runAsGroup: 3000,
    fsGroup: 2000,
    supplementalGroups: [4000, 5000],
    sysctls: [{ name: "net.core.somaxconn", value: "1024" }],
    seLinuxOptions: { level: "s0:c123,c456" },
  },
  imagePullSecrets: [{ name: "reg" }],
  hostname: "web-0",
  subdomain: "web",
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a", "b"] }] }],
      },
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 10,
          preference: { matchFields: [{ key: "metadata.name", operator: "NotIn", values: ["n1"] }] },
        },
      ],
    },
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: {
            labelSelector: { matchLabels: { app: "web" } },
            topologyKey: "kubernetes.io/hostname",
            matchLabelKeys: ["pod-template-hash"],
          },
        },
      ],
    },
  },
  schedulerName: "default-scheduler",
  tolerations: [
    { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    { operator: "Exists" },
  ],
  hostAliases: [{ ip: "10.0.0.1", hostnames: ["db.local"] }],
  priorityClassName: "high",
  priority: 0,
  dnsConfig: {
    nameservers: ["1.1.1.1"],
    searches: ["svc.cluster.local"],
    options: [{ name: "ndots", value: "2" }],
  },
  readinessGates: [{ conditionType: "example.com/ready" }],
  runtimeClassName: "gvisor",
  enableServiceLinks: true,
  preemptionPolicy: "PreemptLowerPriority",
  overhead: { cpu: "100m" },
  topologySpreadConstraints: [
    {
      maxSkew: 1,
      topologyKey: "zone",
      whenUnsatisfiable: "DoNotSchedule",
      labelSelector: { matchExpressions: [{ key: "app", operator: "Exists" }] },
      minDomains: 2,
    },
  ],
  os: { name: "linux" },
  hostUsers: false,
  schedulingGates: [{ name: "example.com/wait" }],
};

const podTemplate: Json = {
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "app", image: "nginx", resources: {} }] },
};

const selector: Json = {
  matchLabels: { app: "web" },
  matchExpressions: [{ key: "tier", operator: "In", values: ["front"] }],
};

const schema: Json = {
  type: "object",
  description: "A widget",
  required: ["spec"],
  properties: {
    spec: {
      type: "object",
      properties: {
        replicas: { type: "integer", format: "int32", minimum: 0, maximum: 10.5, default: 1, multipleOf: 1 },
        mode: { type: "string", enum: ["a", "b", null], pattern: "^[ab]$", maxLength: 1, nullable: true },
        ports: {
          type: "array",
          items: { type: "object", properties: { port: { "x-kubernetes-int-or-string": true } } },
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["port"],
          maxItems: 5,
          minItems: 0,
        },
        tuple: { type: "array", items: [{ type: "string" }, { type: "integer" }] },
        labels: {
          type: "object",
          additionalProperties: { type: "string" },
          "x-kubernetes-map-type": "granular",
        },
        closed: { type: "object", additionalProperties: false },
        open: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        embedded: { type: "object", "x-kubernetes-embedded-resource": true },
        oneOfIt: { oneOf: [{ required: ["a"] }, { required: ["b"] }], not: { required: ["c"] } },
        deps: { type: "object", dependencies: { a: ["b", "c"], d: { required: ["e"] } } },
        example: { type: "object", example: { a: 1 }, default: {} },
      },
      "x-kubernetes-validations": [
        {
          rule: "self.replicas <= 10",
          message: "too many",
          reason: "FieldValueInvalid",
          fieldPath: ".replicas",
        },
        { rule: "oldSelf == self", optionalOldSelf: true },
      ],
    },
  },
};

/** One object per kind in the registry; the test below fails if a kind has none. */
const FIXTURES: Json[] = [
  // meta/v1
  {
    apiVersion: "meta.k8s.io/v1",
    kind: "DeleteOptions",
    gracePeriodSeconds: 0,
    preconditions: { uid: UID, resourceVersion: "" },
    orphanDependents: false,
    propagationPolicy: "Foreground",
    dryRun: ["All"],
    ignoreStoreReadErrorWithClusterBreakingPotential: true,
  },
  // core/v1
  {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: meta("ns1"),
    spec: { finalizers: ["kubernetes"] },
    status: {
      phase: "Terminating",
      conditions: [
        { type: "NamespaceDeletionContentFailure", status: "False", lastTransitionTime: T2, reason: "X" },
      ],
    },
  },
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: richMeta,
    immutable: false,
    data: { "a.txt": "hello\nworld", empty: "", ünïcode: "✓" },
    binaryData: { blob: Buffer.from([0, 1, 2, 255]).toString("base64"), none: "" },
  },
  {
    apiVersion: "v1",
    kind: "Secret",
    metadata: meta("s", "demo"),
    immutable: true,
    data: { password: Buffer.from("s3cr3t").toString("base64"), empty: "" },
    stringData: { extra: "plain" },
    type: "Opaque",
  },
  {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: meta("sa", "demo"),
    secrets: [{ name: "sa-token", kind: "Secret" }],
    imagePullSecrets: [{ name: "reg" }],
    automountServiceAccountToken: false,
  },
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta("web", "demo"),
    spec: {
      ports: [
        { name: "http", protocol: "TCP", appProtocol: "http", port: 80, targetPort: "http", nodePort: 30080 },
        { name: "metrics", port: 9090, targetPort: 9090 },
      ],
      selector: { app: "web" },
      clusterIP: "10.96.0.10",
      clusterIPs: ["10.96.0.10", "fd00::10"],
      type: "LoadBalancer",
      externalIPs: ["192.0.2.1"],
      sessionAffinity: "ClientIP",
      loadBalancerSourceRanges: ["0.0.0.0/0"],
      externalTrafficPolicy: "Local",
      healthCheckNodePort: 32000,
      publishNotReadyAddresses: true,
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      ipFamilies: ["IPv4", "IPv6"],
      ipFamilyPolicy: "PreferDualStack",
      allocateLoadBalancerNodePorts: false,
      loadBalancerClass: "example.com/lb",
      internalTrafficPolicy: "Cluster",
      trafficDistribution: "PreferClose",
    },
    status: {
      loadBalancer: {
        ingress: [{ ip: "203.0.113.5", ipMode: "VIP", ports: [{ port: 80, protocol: "TCP" }] }],
      },
      conditions: [
        {
          type: "Ready",
          status: "True",
          observedGeneration: 2,
          lastTransitionTime: T1,
          reason: "Ok",
          message: "",
        },
      ],
    },
  },
  {
    apiVersion: "v1",
    kind: "Pod",
    metadata: richMeta,
    spec: podSpec,
    status: {
      observedGeneration: 3,
      phase: "Running",
      conditions: [
        { type: "Ready", status: "True", lastProbeTime: T1, lastTransitionTime: T2 },
        { type: "PodScheduled", status: "True" },
      ],
      hostIP: "10.0.0.5",
      hostIPs: [{ ip: "10.0.0.5" }],
      podIP: "10.244.1.7",
      podIPs: [{ ip: "10.244.1.7" }, { ip: "fd00::7" }],
      startTime: T1,
      containerStatuses: [
        {
          name: "app",
          state: { running: { startedAt: T1 } },
          lastState: {
            terminated: { exitCode: 137, signal: 9, reason: "OOMKilled", startedAt: T1, finishedAt: T2 },
          },
          ready: true,
          restartCount: 1,
          image: "nginx:1.25",
          imageID: "docker.io/library/nginx@sha256:abc",
          containerID: "containerd://abc",
          started: true,
          allocatedResources: { cpu: "250m" },
          resources: { requests: { cpu: "250m" } },
          user: { linux: { uid: 0, gid: 0, supplementalGroups: [1, 2] } },
        },
        {
          name: "side",
          state: { waiting: { reason: "CrashLoopBackOff", message: "back-off" } },
          lastState: { terminated: { exitCode: 0 } },
          ready: false,
          restartCount: 0,
          image: "busybox",
          imageID: "",
          started: false,
        },
      ],
      qosClass: "Burstable",
    },
  },
  {
    apiVersion: "v1",
    kind: "Node",
    metadata: meta("node1"),
    spec: {
      podCIDR: "10.244.1.0/24",
      podCIDRs: ["10.244.1.0/24"],
      providerID: "kind://docker/kind/node1",
      unschedulable: true,
      taints: [
        { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule", timeAdded: T2 },
        { key: "dedicated", value: "gpu", effect: "NoExecute" },
      ],
    },
    status: {
      capacity: { cpu: "8", memory: "32863484Ki", pods: "110", "ephemeral-storage": "102626232Ki" },
      allocatable: { cpu: "7800m", memory: "31Gi", pods: "110" },
      conditions: [
        {
          type: "Ready",
          status: "True",
          lastHeartbeatTime: T2,
          lastTransitionTime: T1,
          reason: "KubeletReady",
          message: "kubelet is posting ready status",
        },
      ],
      addresses: [
        { type: "InternalIP", address: "172.18.0.2" },
        { type: "Hostname", address: "node1" },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: "m",
        systemUUID: "u",
        bootID: "b",
        kernelVersion: "6.1.0",
        osImage: "Debian GNU/Linux 12",
        containerRuntimeVersion: "containerd://1.7.0",
        kubeletVersion: "v1.32.4",
        kubeProxyVersion: "",
        operatingSystem: "linux",
        architecture: "amd64",
        swap: { capacity: 0 },
      },
      images: [{ names: ["nginx:1.25"], sizeBytes: 67_000_000 }, { names: ["pause"] }],
      volumesInUse: ["kubernetes.io/csi/x"],
      volumesAttached: [{ name: "kubernetes.io/csi/x", devicePath: "" }],
      runtimeHandlers: [{ name: "runc", features: { recursiveReadOnlyMounts: true, userNamespaces: false } }],
      features: { supplementalGroupsPolicy: true },
    },
  },
  {
    apiVersion: "v1",
    kind: "Event",
    metadata: meta("web.17a", "demo"),
    involvedObject: {
      kind: "Pod",
      namespace: "demo",
      name: "web",
      uid: UID,
      apiVersion: "v1",
      fieldPath: "spec.containers{app}",
    },
    reason: "BackOff",
    message: "Back-off restarting failed container",
    source: { component: "kubelet", host: "node1" },
    firstTimestamp: T1,
    lastTimestamp: T2,
    count: 5,
    type: "Warning",
    eventTime: MICRO,
    series: { count: 4, lastObservedTime: "2024-05-01T10:05:30.000001Z" },
    action: "Pulling",
    related: { kind: "Node", name: "node1" },
    reportingComponent: "kubelet",
    reportingInstance: "node1",
  },
  {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: meta("web", "demo"),
    subsets: [
      {
        addresses: [
          {
            ip: "10.244.1.7",
            hostname: "web-0",
            nodeName: "node1",
            targetRef: { kind: "Pod", name: "web-0" },
          },
        ],
        notReadyAddresses: [{ ip: "10.244.1.8" }],
        ports: [{ name: "http", port: 8080, protocol: "TCP", appProtocol: "http" }],
      },
    ],
  },
  {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: meta("data", "demo"),
    spec: {
      accessModes: ["ReadWriteOnce"],
      selector,
      resources: { requests: { storage: "10Gi" }, limits: { storage: "20Gi" } },
      volumeName: "pv1",
      storageClassName: "",
      volumeMode: "Filesystem",
      dataSource: { apiGroup: "snapshot.storage.k8s.io", kind: "VolumeSnapshot", name: "snap" },
      dataSourceRef: {
        apiGroup: "snapshot.storage.k8s.io",
        kind: "VolumeSnapshot",
        name: "snap",
        namespace: "demo",
      },
      volumeAttributesClassName: "gold",
    },
    status: {
      phase: "Bound",
      accessModes: ["ReadWriteOnce"],
      capacity: { storage: "10Gi" },
      conditions: [{ type: "Resizing", status: "True", lastTransitionTime: T1 }],
      allocatedResources: { storage: "10Gi" },
      allocatedResourceStatuses: { storage: "ControllerResizeInProgress" },
      currentVolumeAttributesClassName: "gold",
      modifyVolumeStatus: { targetVolumeAttributesClassName: "silver", status: "Pending" },
    },
  },
  {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: meta("pv1"),
    spec: {
      capacity: { storage: "10Gi" },
      csi: {
        driver: "ebs.csi.aws.com",
        volumeHandle: "vol-1",
        fsType: "ext4",
        volumeAttributes: { type: "gp3" },
        nodePublishSecretRef: { name: "creds", namespace: "kube-system" },
      },
      accessModes: ["ReadWriteOnce"],
      claimRef: { kind: "PersistentVolumeClaim", namespace: "demo", name: "data", uid: UID },
      persistentVolumeReclaimPolicy: "Retain",
      storageClassName: "gp3",
      mountOptions: ["noatime"],
      volumeMode: "Block",
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }],
        },
      },
    },
    status: { phase: "Bound", lastPhaseTransitionTime: T2 },
  },
  {
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: meta("q", "demo"),
    spec: {
      hard: { "requests.cpu": "2", "limits.memory": "4Gi", pods: "10", "count/deployments.apps": "5" },
      scopes: ["NotBestEffort"],
      scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["high"] }] },
    },
    status: { hard: { pods: "10" }, used: { pods: "0" } },
  },
  {
    apiVersion: "v1",
    kind: "LimitRange",
    metadata: meta("limits", "demo"),
    spec: {
      limits: [
        {
          type: "Container",
          max: { cpu: "2" },
          min: { cpu: "10m" },
          default: { cpu: "500m" },
          defaultRequest: { cpu: "100m" },
          maxLimitRequestRatio: { cpu: "4" },
        },
      ],
    },
  },
  {
    apiVersion: "v1",
    kind: "ReplicationController",
    metadata: meta("rc", "demo"),
    spec: { replicas: 0, minReadySeconds: 5, selector: { app: "web" }, template: podTemplate },
    status: {
      replicas: 0,
      fullyLabeledReplicas: 1,
      observedGeneration: 2,
      conditions: [
        { type: "ReplicaFailure", status: "True", lastTransitionTime: T1, reason: "FailedCreate" },
      ],
    },
  },
  // apps/v1
  {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta("web", "demo"),
    spec: {
      replicas: 0,
      selector,
      template: { metadata: { labels: { app: "web" }, annotations: { a: "b" } }, spec: podSpec },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" } },
      minReadySeconds: 10,
      revisionHistoryLimit: 0,
      paused: true,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: 3,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 2,
      availableReplicas: 2,
      unavailableReplicas: 1,
      terminatingReplicas: 0,
      conditions: [
        {
          type: "Available",
          status: "True",
          lastUpdateTime: T1,
          lastTransitionTime: T2,
          reason: "MinimumReplicasAvailable",
          message: "Deployment has minimum availability.",
        },
      ],
      collisionCount: 0,
    },
  },
  {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: meta("db", "demo"),
    spec: {
      replicas: 3,
      selector,
      template: podTemplate,
      volumeClaimTemplates: [
        {
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          status: { phase: "Pending" },
        },
      ],
      serviceName: "db",
      podManagementPolicy: "Parallel",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 1 } },
      revisionHistoryLimit: 10,
      minReadySeconds: 0,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
      ordinals: { start: 0 },
    },
    status: {
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      currentRevision: "db-1",
      updateRevision: "db-1",
      collisionCount: 0,
      availableReplicas: 3,
    },
  },
  {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: richMeta,
    spec: { replicas: 1, minReadySeconds: 0, selector, template: podTemplate },
    status: {
      replicas: 1,
      fullyLabeledReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      observedGeneration: 1,
    },
  },
  {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: meta("agent", "kube-system"),
    spec: {
      selector,
      template: podTemplate,
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "10%", maxSurge: 0 } },
      minReadySeconds: 0,
      revisionHistoryLimit: 10,
    },
    status: {
      currentNumberScheduled: 2,
      numberMisscheduled: 0,
      desiredNumberScheduled: 2,
      numberReady: 2,
      observedGeneration: 1,
      updatedNumberScheduled: 2,
      numberAvailable: 2,
      collisionCount: 1,
    },
  },
  // batch/v1
  {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: meta("j", "demo"),
    spec: {
      parallelism: 2,
      completions: 4,
      activeDeadlineSeconds: 600,
      podFailurePolicy: {
        rules: [
          { action: "FailJob", onExitCodes: { containerName: "app", operator: "In", values: [42, -1] } },
          { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
        ],
      },
      successPolicy: { rules: [{ succeededIndexes: "0-2", succeededCount: 1 }] },
      backoffLimit: 0,
      backoffLimitPerIndex: 1,
      maxFailedIndexes: 2,
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": UID } },
      manualSelector: false,
      template: {
        ...podTemplate,
        spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox", resources: {} }] },
      },
      ttlSecondsAfterFinished: 0,
      completionMode: "Indexed",
      suspend: false,
      podReplacementPolicy: "Failed",
      managedBy: "kueue.x-k8s.io/multikueue",
    },
    status: {
      conditions: [{ type: "Complete", status: "True", lastProbeTime: T2, lastTransitionTime: T2 }],
      startTime: T1,
      completionTime: T2,
      active: 0,
      succeeded: 4,
      failed: 1,
      terminating: 0,
      completedIndexes: "0-3",
      failedIndexes: "",
      uncountedTerminatedPods: { succeeded: [UID] },
      ready: 0,
    },
  },
  {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: meta("cj", "demo"),
    spec: {
      schedule: "*/5 * * * *",
      timeZone: "Europe/Paris",
      startingDeadlineSeconds: 0,
      concurrencyPolicy: "Forbid",
      suspend: true,
      jobTemplate: {
        metadata: { labels: { job: "cj" } },
        spec: {
          template: {
            spec: {
              restartPolicy: "OnFailure",
              containers: [{ name: "c", image: "busybox", resources: {} }],
            },
          },
        },
      },
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 0,
    },
    status: {
      active: [
        {
          kind: "Job",
          namespace: "demo",
          name: "cj-1",
          uid: UID,
          apiVersion: "batch/v1",
          resourceVersion: "9",
        },
      ],
      lastScheduleTime: T1,
      lastSuccessfulTime: T2,
    },
  },
  // coordination.k8s.io/v1
  {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: meta("karmada-scheduler", "karmada-system"),
    spec: {
      holderIdentity: "host_1234",
      leaseDurationSeconds: 15,
      acquireTime: MICRO,
      renewTime: "2024-05-01T10:05:30.000000Z",
      leaseTransitions: 0,
      strategy: "OldestEmulationVersion",
      preferredHolder: "host_5678",
    },
  },
  // events.k8s.io/v1
  {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: meta("web.17b", "demo"),
    eventTime: MICRO,
    series: { count: 2, lastObservedTime: MICRO },
    reportingController: "karmada.io/scheduler",
    reportingInstance: "scheduler-1",
    action: "Schedule",
    reason: "ScheduleBindingSucceed",
    regarding: {
      kind: "ResourceBinding",
      namespace: "demo",
      name: "web-deployment",
      apiVersion: "work.karmada.io/v1alpha2",
    },
    related: { kind: "Cluster", name: "member1" },
    note: "Binding has been scheduled successfully.",
    type: "Normal",
    deprecatedSource: { component: "scheduler" },
    deprecatedFirstTimestamp: T1,
    deprecatedLastTimestamp: T2,
    deprecatedCount: 2,
  },
  // networking.k8s.io/v1
  {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: meta("ing", "demo"),
    spec: {
      ingressClassName: "nginx",
      defaultBackend: { resource: { apiGroup: "k8s.example.com", kind: "StorageBucket", name: "static" } },
      tls: [{ hosts: ["foo.com"], secretName: "foo-tls" }],
      rules: [
        {
          host: "foo.com",
          http: {
            paths: [
              {
                path: "/bar",
                pathType: "Prefix",
                backend: { service: { name: "svc", port: { number: 8080 } } },
              },
              {
                path: "/baz",
                pathType: "Exact",
                backend: { service: { name: "svc", port: { name: "http" } } },
              },
            ],
          },
        },
        { host: "empty.com" },
      ],
    },
    status: {
      loadBalancer: {
        ingress: [{ hostname: "lb.example.com", ports: [{ port: 443, protocol: "TCP", error: "x" }] }],
      },
    },
  },
  {
    apiVersion: "networking.k8s.io/v1",
    kind: "IngressClass",
    metadata: meta("nginx"),
    spec: {
      controller: "k8s.io/ingress-nginx",
      parameters: {
        apiGroup: "k8s.example.com",
        kind: "IngressParameters",
        name: "p",
        scope: "Namespace",
        namespace: "demo",
      },
    },
  },
  // policy/v1
  {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: meta("pdb", "demo"),
    spec: { minAvailable: "50%", selector, maxUnavailable: 0, unhealthyPodEvictionPolicy: "AlwaysAllow" },
    status: {
      observedGeneration: 1,
      disruptedPods: { "web-0": T1 },
      disruptionsAllowed: 0,
      currentHealthy: 2,
      desiredHealthy: 2,
      expectedPods: 3,
      conditions: [
        {
          type: "DisruptionAllowed",
          status: "False",
          lastTransitionTime: T1,
          reason: "InsufficientPods",
          message: "",
        },
      ],
    },
  },
  {
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: "web-0", namespace: "demo" },
    deleteOptions: { gracePeriodSeconds: 30, preconditions: { uid: UID }, dryRun: ["All"] },
  },
  // autoscaling/v1
  {
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata: meta("web", "demo"),
    spec: { replicas: 5 },
    status: { replicas: 3, selector: "app=web" },
  },
  {
    apiVersion: "autoscaling/v1",
    kind: "HorizontalPodAutoscaler",
    metadata: meta("web", "demo"),
    spec: {
      scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" },
      minReplicas: 1,
      maxReplicas: 10,
      targetCPUUtilizationPercentage: 80,
    },
    status: {
      observedGeneration: 0,
      lastScaleTime: T1,
      currentReplicas: 0,
      desiredReplicas: 2,
      currentCPUUtilizationPercentage: 0,
    },
  },
  // autoscaling/v2
  {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: meta("web", "demo"),
    spec: {
      scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" },
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
        },
        {
          type: "Pods",
          pods: { metric: { name: "qps", selector }, target: { type: "AverageValue", averageValue: "1k" } },
        },
        {
          type: "Object",
          object: {
            describedObject: { kind: "Ingress", name: "ing", apiVersion: "networking.k8s.io/v1" },
            target: { type: "Value", value: "10" },
            metric: { name: "requests" },
          },
        },
        {
          type: "ContainerResource",
          containerResource: {
            name: "memory",
            container: "app",
            target: { type: "AverageValue", averageValue: "512Mi" },
          },
        },
        { type: "External", external: { metric: { name: "queue" }, target: { type: "Value", value: "30" } } },
      ],
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: "Max",
          policies: [{ type: "Pods", value: 4, periodSeconds: 15 }],
        },
        scaleDown: { policies: [{ type: "Percent", value: 100, periodSeconds: 15 }], tolerance: "0.05" },
      },
    },
    status: {
      observedGeneration: 2,
      lastScaleTime: T1,
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [
        {
          type: "Resource",
          resource: { name: "cpu", current: { averageValue: "450m", averageUtilization: 90 } },
        },
      ],
      conditions: [
        { type: "AbleToScale", status: "True", lastTransitionTime: T1, reason: "ReadyForNewScale" },
      ],
    },
  },
  // certificates.k8s.io/v1
  {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: meta("csr-abc"),
    spec: {
      request: Buffer.from(
        "-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n",
      ).toString("base64"),
      signerName: "kubernetes.io/kube-apiserver-client-kubelet",
      expirationSeconds: 3600,
      usages: ["digital signature", "client auth"],
      username: "system:bootstrap:abcdef",
      uid: "",
      groups: ["system:bootstrappers", "system:authenticated"],
      extra: { "authentication.kubernetes.io/credential-id": ["X509SHA256=abc"], empty: [] },
    },
    status: {
      conditions: [
        {
          type: "Approved",
          status: "True",
          reason: "AutoApproved",
          message: "Auto approving kubelet client certificate after SubjectAccessReview.",
          lastUpdateTime: T1,
          lastTransitionTime: T1,
        },
      ],
      certificate: Buffer.from("-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n").toString(
        "base64",
      ),
    },
  },
  // authorization.k8s.io/v1
  {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    metadata: {},
    spec: {
      resourceAttributes: {
        namespace: "demo",
        verb: "list",
        group: "apps",
        version: "v1",
        resource: "deployments",
        subresource: "scale",
        name: "web",
        fieldSelector: {
          rawSelector: "spec.nodeName=node1",
          requirements: [{ key: "spec.nodeName", operator: "In", values: ["node1"] }],
        },
        labelSelector: { requirements: [{ key: "app", operator: "Exists" }] },
      },
    },
    status: { allowed: true, reason: "RBAC: allowed by ClusterRoleBinding" },
  },
  {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    metadata: {},
    spec: {
      nonResourceAttributes: { path: "/healthz", verb: "get" },
      user: "system:serviceaccount:karmada-system:karmada-controller-manager",
      groups: ["system:serviceaccounts"],
      extra: { "authentication.kubernetes.io/pod-name": ["pod-1"], scopes: ["a", "b"] },
      uid: UID,
    },
    status: { allowed: false, denied: true, evaluationError: "boom" },
  },
  {
    apiVersion: "authorization.k8s.io/v1",
    kind: "LocalSubjectAccessReview",
    metadata: { namespace: "demo" },
    spec: { resourceAttributes: { namespace: "demo", verb: "get", resource: "pods" }, user: "alice" },
    status: { allowed: true },
  },
  {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectRulesReview",
    metadata: {},
    spec: { namespace: "demo" },
    status: {
      resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: ["p1"] }],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/api", "/api/*"] }],
      incomplete: false,
    },
  },
  // authentication.k8s.io/v1
  {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    metadata: {},
    spec: { token: "abc.def.ghi", audiences: ["https://kubernetes.default.svc"] },
    status: {
      authenticated: true,
      user: {
        username: "system:serviceaccount:demo:sa",
        uid: UID,
        groups: ["system:serviceaccounts", "system:serviceaccounts:demo"],
        extra: { "authentication.kubernetes.io/pod-name": ["web-0"] },
      },
      audiences: ["https://kubernetes.default.svc"],
    },
  },
  {
    apiVersion: "authentication.k8s.io/v1",
    kind: "SelfSubjectReview",
    metadata: { creationTimestamp: T1 },
    status: {
      userInfo: { username: "kubernetes-admin", groups: ["kubeadm:cluster-admins", "system:authenticated"] },
    },
  },
  {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    metadata: { name: "sa", namespace: "demo" },
    spec: {
      audiences: ["vault"],
      expirationSeconds: 600,
      boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "web-0", uid: UID },
    },
    status: { token: "eyJhbGciOi", expirationTimestamp: T2 },
  },
  // rbac.authorization.k8s.io/v1
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: meta("r", "demo"),
    rules: [
      { verbs: ["get", "list", "watch"], apiGroups: ["", "apps"], resources: ["pods", "deployments/scale"] },
      { verbs: ["update"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["leader"] },
    ],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: meta("cr"),
    rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/metrics"] }],
    aggregationRule: {
      clusterRoleSelectors: [{ matchLabels: { "rbac.example.com/aggregate-to-view": "true" } }],
    },
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: meta("rb", "demo"),
    subjects: [
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" },
      { kind: "ServiceAccount", name: "sa", namespace: "demo" },
    ],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: meta("crb"),
    subjects: [{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "system:masters" }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
  },
  // scheduling.k8s.io/v1
  {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: meta("low"),
    value: -10,
    globalDefault: false,
    description: "negative values are varints too",
    preemptionPolicy: "Never",
  },
  // discovery.k8s.io/v1
  {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: meta("web-abc", "demo"),
    addressType: "IPv4",
    endpoints: [
      {
        addresses: ["10.244.1.7"],
        conditions: { ready: true, serving: true, terminating: false },
        hostname: "web-0",
        targetRef: { kind: "Pod", namespace: "demo", name: "web-0", uid: UID },
        deprecatedTopology: { "topology.kubernetes.io/zone": "a" },
        nodeName: "node1",
        zone: "a",
        hints: { forZones: [{ name: "a" }], forNodes: [{ name: "node1" }] },
      },
      { addresses: ["10.244.1.8"], conditions: {} },
    ],
    ports: [{ name: "", protocol: "TCP", port: 0, appProtocol: "http" }],
  },
  // storage.k8s.io/v1
  {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: meta("gp3"),
    provisioner: "ebs.csi.aws.com",
    parameters: { type: "gp3", iops: "3000" },
    reclaimPolicy: "Retain",
    mountOptions: ["debug"],
    allowVolumeExpansion: false,
    volumeBindingMode: "WaitForFirstConsumer",
    allowedTopologies: [
      { matchLabelExpressions: [{ key: "topology.ebs.csi.aws.com/zone", values: ["us-east-1a"] }] },
    ],
  },
  // apiextensions.k8s.io/v1
  {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: meta("widgets.example.com"),
    spec: {
      group: "example.com",
      names: {
        plural: "widgets",
        singular: "widget",
        shortNames: ["wd"],
        kind: "Widget",
        listKind: "WidgetList",
        categories: ["all"],
      },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          deprecated: true,
          deprecationWarning: "use v2",
          schema: { openAPIV3Schema: schema },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: ".spec.replicas",
              statusReplicasPath: ".status.replicas",
              labelSelectorPath: ".status.selector",
            },
          },
          additionalPrinterColumns: [
            {
              name: "Replicas",
              type: "integer",
              format: "int32",
              description: "d",
              priority: 1,
              jsonPath: ".spec.replicas",
            },
          ],
          selectableFields: [{ jsonPath: ".spec.mode" }],
        },
        {
          name: "v2",
          served: false,
          storage: false,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
      conversion: {
        strategy: "Webhook",
        webhook: {
          clientConfig: {
            service: { namespace: "karmada-system", name: "karmada-webhook", path: "/convert", port: 443 },
            caBundle: Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64"),
          },
          conversionReviewVersions: ["v1"],
        },
      },
      preserveUnknownFields: false,
    },
    status: {
      conditions: [
        {
          type: "Established",
          status: "True",
          lastTransitionTime: T1,
          reason: "InitialNamesAccepted",
          observedGeneration: 1,
        },
      ],
      acceptedNames: { plural: "widgets", kind: "Widget" },
      storedVersions: ["v1"],
      observedGeneration: 1,
    },
  },
];

function isZeroValue(value: unknown): boolean {
  if (value === "" || value === 0 || value === false) return true;
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    return Object.values(value).every(isZeroValue);
  return false;
}

/**
 * Collects the differences between an input and its decoding that are not "Go also rendered a
 * zero value": a changed or missing value, or an added non-zero value.
 */
function renderingDiffs(input: unknown, decoded: unknown, path: string, out: string[]): void {
  if (Array.isArray(input)) {
    if (!Array.isArray(decoded) || decoded.length !== input.length) {
      out.push(`${path}: ${JSON.stringify(input)} became ${JSON.stringify(decoded)}`);
      return;
    }
    input.forEach((item, i) => {
      renderingDiffs(item, decoded[i], `${path}[${i}]`, out);
    });
    return;
  }
  if (typeof input === "object" && input !== null) {
    objectRenderingDiffs(input as Record<string, unknown>, decoded, path, out);
    return;
  }
  if (!Object.is(input, decoded))
    out.push(`${path}: ${JSON.stringify(input)} became ${JSON.stringify(decoded)}`);
}

function objectRenderingDiffs(
  input: Record<string, unknown>,
  decoded: unknown,
  path: string,
  out: string[],
): void {
  if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded)) {
    out.push(`${path}: object became ${JSON.stringify(decoded)}`);
    return;
  }
  const got = decoded as Record<string, unknown>;
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (key in got) renderingDiffs(value, got[key], `${path}.${key}`, out);
    // Dropping is fine only for zero values Go omits (omitempty scalars, empty lists and maps).
    else if (!isOmittableZero(value)) out.push(`${path}.${key}: ${JSON.stringify(value)} was dropped`);
  }
  for (const [key, value] of Object.entries(got)) {
    if (!(key in input) && !isZeroValue(value)) out.push(`${path}.${key}: added ${JSON.stringify(value)}`);
  }
}

function isOmittableZero(value: unknown): boolean {
  if (value === "" || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

describe("round trip of every covered kind", () => {
  it("has a fixture for every kind in the registry", () => {
    const covered = new Set(FIXTURES.map((f) => `${f.apiVersion}/${f.kind}`));
    const missing = builtinRegistry.kinds
      .map((k) => `${k.apiVersion}/${k.kind}`)
      .filter((k) => !covered.has(k));
    expect(missing).toEqual([]);
  });

  for (const fixture of FIXTURES) {
    it(`${fixture.apiVersion} ${fixture.kind}`, () => {
      const bytes = encodeProtobufObject(fixture);
      const decoded = decodeProtobufObject(bytes);
      expect(decoded.apiVersion).toBe(fixture.apiVersion);
      expect(decoded.kind).toBe(fixture.kind);
      const diffs: string[] = [];
      renderingDiffs(fixture, decoded.object, "", diffs);
      expect(diffs).toEqual([]);
      // The decoding is Go's rendering: stable under another round trip, and the same bytes on the wire.
      const again = encodeProtobufObject(decoded.object);
      expect(hex(again)).toBe(hex(bytes));
      expect(decodeProtobufObject(again).object).toEqual(decoded.object);
    });
  }
});
