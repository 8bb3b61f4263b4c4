import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { applyCreateDefaults, applyDefaults, applyUpdateDefaults } from "./index.ts";
import { imageTag } from "./pod.ts";

type Obj = Record<string, unknown>;

function y(text: string): Obj {
  return parse(text) as Obj;
}

/** Decode-time defaults, then (after the server set name/uid) the create-time steps. */
function create(group: string, version: string, kind: string, manifest: string): Obj {
  const o = y(manifest);
  applyDefaults(group, version, kind, o);
  applyCreateDefaults(group, version, kind, o);
  return o;
}

// The expected objects below are what `kubectl get -o yaml` shows on a v1.32 cluster for the
// same minimal manifests, minus server-owned metadata, controller-written status, fields set by
// admission plugins (ServiceAccount, Priority, DefaultTolerationSeconds) and allocated cluster IPs.

const POD_TEMPLATE_SPEC_DEFAULTS = `
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {}
      terminationGracePeriodSeconds: 30`;

describe("defaults of minimal objects match a real cluster", () => {
  it("Deployment", () => {
    const got = create(
      "apps",
      "v1",
      "Deployment",
      `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx
`,
    );
    expect(got).toEqual(
      y(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  progressDeadlineSeconds: 600
  replicas: 1
  revisionHistoryLimit: 10
  selector: {matchLabels: {app: web}}
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
    type: RollingUpdate
  template:
    metadata:
      creationTimestamp: null
      labels: {app: web}
    spec:
      containers:
      - image: nginx
        imagePullPolicy: Always
        name: nginx
        resources: {}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File${POD_TEMPLATE_SPEC_DEFAULTS}
`),
    );
  });

  it("StatefulSet", () => {
    const got = create(
      "apps",
      "v1",
      "StatefulSet",
      `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: pg
        image: postgres:16
        ports: [{containerPort: 5432, name: pg}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1024Mi}}
`,
    );
    expect(got).toEqual(
      y(`
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  persistentVolumeClaimRetentionPolicy:
    whenDeleted: Retain
    whenScaled: Retain
  podManagementPolicy: OrderedReady
  replicas: 1
  revisionHistoryLimit: 10
  selector: {matchLabels: {app: db}}
  serviceName: db
  template:
    metadata:
      creationTimestamp: null
      labels: {app: db}
    spec:
      containers:
      - image: postgres:16
        imagePullPolicy: IfNotPresent
        name: pg
        ports:
        - containerPort: 5432
          name: pg
          protocol: TCP
        resources: {}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File${POD_TEMPLATE_SPEC_DEFAULTS}
  updateStrategy:
    rollingUpdate:
      partition: 0
    type: RollingUpdate
  volumeClaimTemplates:
  - metadata:
      creationTimestamp: null
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
      volumeMode: Filesystem
    status:
      phase: Pending
`),
    );
  });

  it("Job (with the uid-based selector generated at create)", () => {
    const o = y(`
apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: pi
        image: perl:5.34.0
        command: [perl, -Mbignum=bpi, -wle, print bpi(2000)]
`);
    applyDefaults("batch", "v1", "Job", o);
    (o.metadata as Obj).uid = "3b5c1d2e-0000-4000-8000-000000000001";
    applyCreateDefaults("batch", "v1", "Job", o);
    const uid = "3b5c1d2e-0000-4000-8000-000000000001";
    expect(o).toEqual(
      y(`
apiVersion: batch/v1
kind: Job
metadata:
  name: pi
  namespace: default
  uid: ${uid}
  labels:
    batch.kubernetes.io/controller-uid: ${uid}
    batch.kubernetes.io/job-name: pi
    controller-uid: ${uid}
    job-name: pi
spec:
  backoffLimit: 6
  completionMode: NonIndexed
  completions: 1
  manualSelector: false
  parallelism: 1
  podReplacementPolicy: TerminatingOrFailed
  selector:
    matchLabels:
      batch.kubernetes.io/controller-uid: ${uid}
  suspend: false
  template:
    metadata:
      creationTimestamp: null
      labels:
        batch.kubernetes.io/controller-uid: ${uid}
        batch.kubernetes.io/job-name: pi
        controller-uid: ${uid}
        job-name: pi
    spec:
      containers:
      - command: [perl, -Mbignum=bpi, -wle, print bpi(2000)]
        image: perl:5.34.0
        imagePullPolicy: IfNotPresent
        name: pi
        resources: {}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Never
      schedulerName: default-scheduler
      securityContext: {}
      terminationGracePeriodSeconds: 30
`),
    );
  });

  it("Service", () => {
    const got = create(
      "",
      "v1",
      "Service",
      `
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`,
    );
    expect(got).toEqual(
      y(`
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  internalTrafficPolicy: Cluster
  ipFamilies: [IPv4]
  ipFamilyPolicy: SingleStack
  ports:
  - port: 80
    protocol: TCP
    targetPort: 80
  selector: {app: web}
  sessionAffinity: None
  type: ClusterIP
`),
    );
  });

  it("Pod", () => {
    const got = create(
      "",
      "v1",
      "Pod",
      `
apiVersion: v1
kind: Pod
metadata: {name: nginx, namespace: default}
spec:
  containers:
  - name: nginx
    image: nginx:1.27
    resources:
      limits: {cpu: 500m, memory: 128Mi}
    livenessProbe:
      httpGet: {port: 80}
`,
    );
    expect(got).toEqual(
      y(`
apiVersion: v1
kind: Pod
metadata: {name: nginx, namespace: default}
spec:
  containers:
  - image: nginx:1.27
    imagePullPolicy: IfNotPresent
    livenessProbe:
      failureThreshold: 3
      httpGet:
        path: /
        port: 80
        scheme: HTTP
      periodSeconds: 10
      successThreshold: 1
      timeoutSeconds: 1
    name: nginx
    resources:
      limits: {cpu: 500m, memory: 128Mi}
      requests: {cpu: 500m, memory: 128Mi}
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
  dnsPolicy: ClusterFirst
  enableServiceLinks: true
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {}
  terminationGracePeriodSeconds: 30
status:
  phase: Pending
  qosClass: Guaranteed
`),
    );
  });
});

describe("other defaulters", () => {
  const cases: Array<{
    name: string;
    gvk: [string, string, string];
    input: string;
    expect: string;
    create?: boolean;
  }> = [
    {
      name: "DaemonSet update strategy and history",
      gvk: ["apps", "v1", "DaemonSet"],
      input: `spec: {template: {spec: {containers: [{name: a, image: "busybox@sha256:${"a".repeat(64)}"}]}}}`,
      expect: `
spec:
  revisionHistoryLimit: 10
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}
  template:
    metadata: {creationTimestamp: null}
    spec:
      containers:
      - name: a
        image: "busybox@sha256:${"a".repeat(64)}"
        imagePullPolicy: IfNotPresent
        resources: {}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File${POD_TEMPLATE_SPEC_DEFAULTS}`,
    },
    {
      name: "Deployment Recreate gets no rollingUpdate",
      gvk: ["apps", "v1", "Deployment"],
      input: "spec: {replicas: 3, strategy: {type: Recreate}}",
      expect:
        "spec: {replicas: 3, strategy: {type: Recreate}, revisionHistoryLimit: 10, progressDeadlineSeconds: 600}",
    },
    {
      name: "CronJob",
      gvk: ["batch", "v1", "CronJob"],
      input:
        "spec: {schedule: '*/5 * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, containers: []}}}}}",
      expect: `
spec:
  concurrencyPolicy: Allow
  failedJobsHistoryLimit: 1
  schedule: '*/5 * * * *'
  successfulJobsHistoryLimit: 3
  suspend: false
  jobTemplate:
    metadata: {creationTimestamp: null}
    spec:
      template:
        metadata: {creationTimestamp: null}
        spec:
          containers: []
          restartPolicy: OnFailure
          dnsPolicy: ClusterFirst
          schedulerName: default-scheduler
          securityContext: {}
          terminationGracePeriodSeconds: 30`,
    },
    {
      name: "Job with podFailurePolicy and backoffLimitPerIndex",
      gvk: ["batch", "v1", "Job"],
      input: `
spec:
  completions: 3
  completionMode: Indexed
  backoffLimitPerIndex: 1
  podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget}]}]}`,
      expect: `
spec:
  completions: 3
  parallelism: 1
  completionMode: Indexed
  backoffLimitPerIndex: 1
  backoffLimit: 2147483647
  suspend: false
  manualSelector: false
  podReplacementPolicy: Failed
  podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget, status: "True"}]}]}`,
    },
    {
      name: "Service NodePort, ClientIP affinity and named target port",
      gvk: ["", "v1", "Service"],
      input:
        "spec: {type: NodePort, sessionAffinity: ClientIP, ports: [{name: http, port: 80, targetPort: http}]}",
      expect: `
spec:
  type: NodePort
  sessionAffinity: ClientIP
  sessionAffinityConfig: {clientIP: {timeoutSeconds: 10800}}
  externalTrafficPolicy: Cluster
  internalTrafficPolicy: Cluster
  ports: [{name: http, port: 80, targetPort: http, protocol: TCP}]`,
    },
    {
      name: "Service LoadBalancer",
      gvk: ["", "v1", "Service"],
      input:
        "spec: {type: LoadBalancer, sessionAffinityConfig: {clientIP: {timeoutSeconds: 5}}, ports: [{port: 443, targetPort: 0}]}",
      expect: `
spec:
  type: LoadBalancer
  sessionAffinity: None
  allocateLoadBalancerNodePorts: true
  externalTrafficPolicy: Cluster
  internalTrafficPolicy: Cluster
  ports: [{port: 443, targetPort: 443, protocol: TCP}]`,
    },
    {
      name: "Service ExternalName gets no traffic policies",
      gvk: ["", "v1", "Service"],
      input: "spec: {type: ExternalName, externalName: example.com}",
      expect: "spec: {type: ExternalName, externalName: example.com, sessionAffinity: None}",
    },
    {
      name: "Secret type and stringData",
      gvk: ["", "v1", "Secret"],
      input: "{data: {a: YQ==, b: Yg==}, stringData: {b: bee, c: see}}",
      expect: "{type: Opaque, data: {a: YQ==, b: YmVl, c: c2Vl}}",
    },
    {
      name: "Namespace label, phase and finalizer",
      gvk: ["", "v1", "Namespace"],
      input: "metadata: {name: team-a}",
      create: true,
      expect: `
metadata: {name: team-a, labels: {kubernetes.io/metadata.name: team-a}}
spec: {finalizers: [kubernetes]}
status: {phase: Active}`,
    },
    {
      name: "PersistentVolumeClaim",
      gvk: ["", "v1", "PersistentVolumeClaim"],
      input: "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: '0.5Gi'}}}",
      expect: `
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 512Mi}}, volumeMode: Filesystem}
status: {phase: Pending}`,
    },
    {
      name: "PersistentVolume",
      gvk: ["", "v1", "PersistentVolume"],
      input: "spec: {capacity: {storage: 10Gi}, hostPath: {path: /data}}",
      expect: `
spec:
  capacity: {storage: 10Gi}
  hostPath: {path: /data, type: ""}
  persistentVolumeReclaimPolicy: Retain
  volumeMode: Filesystem
status: {phase: Pending}`,
    },
    {
      name: "Pod volumes, env fieldRef, grpc probe, lifecycle, hostNetwork ports",
      gvk: ["", "v1", "Pod"],
      input: `
spec:
  hostNetwork: true
  serviceAccount: builder
  volumes:
  - name: scratch
  - {name: cfg, configMap: {name: cfg}}
  - {name: sec, secret: {secretName: s}}
  - {name: host, hostPath: {path: /var/log}}
  - {name: tok, projected: {sources: [{serviceAccountToken: {path: token}}]}}
  containers:
  - name: app
    image: registry.local:5000/team/app
    ports: [{containerPort: 8080}]
    env: [{name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]
    readinessProbe: {grpc: {port: 9090}, periodSeconds: 0}
    lifecycle: {preStop: {httpGet: {port: 8080, path: /stop}}}
    resources: {requests: {cpu: "0.1", memory: 1Gi}}`,
      expect: `
spec:
  hostNetwork: true
  serviceAccount: builder
  serviceAccountName: builder
  enableServiceLinks: true
  dnsPolicy: ClusterFirst
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {}
  terminationGracePeriodSeconds: 30
  volumes:
  - {name: scratch, emptyDir: {}}
  - {name: cfg, configMap: {name: cfg, defaultMode: 420}}
  - {name: sec, secret: {secretName: s, defaultMode: 420}}
  - {name: host, hostPath: {path: /var/log, type: ""}}
  - {name: tok, projected: {defaultMode: 420, sources: [{serviceAccountToken: {path: token, expirationSeconds: 3600}}]}}
  containers:
  - name: app
    image: registry.local:5000/team/app
    imagePullPolicy: Always
    ports: [{containerPort: 8080, hostPort: 8080, protocol: TCP}]
    env: [{name: NODE, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: spec.nodeName}}}]
    readinessProbe: {grpc: {port: 9090, service: ""}, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3}
    lifecycle: {preStop: {httpGet: {port: 8080, path: /stop, scheme: HTTP}}}
    resources: {requests: {cpu: 100m, memory: 1Gi}}
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File`,
    },
    {
      name: "ReplicationController selector and labels from the template",
      gvk: ["", "v1", "ReplicationController"],
      input: "spec: {template: {metadata: {labels: {app: x}}, spec: {containers: []}}}",
      expect: `
metadata: {labels: {app: x}}
spec:
  replicas: 1
  selector: {app: x}
  template:
    metadata: {labels: {app: x}, creationTimestamp: null}
    spec:
      containers: []${POD_TEMPLATE_SPEC_DEFAULTS}`,
    },
    {
      name: "LimitRange container defaults",
      gvk: ["", "v1", "LimitRange"],
      input:
        "spec: {limits: [{type: Container, max: {cpu: '2', memory: 1Gi}, min: {cpu: 100m}, default: {memory: 512Mi}}]}",
      expect: `
spec:
  limits:
  - type: Container
    max: {cpu: "2", memory: 1Gi}
    min: {cpu: 100m}
    default: {memory: 512Mi, cpu: "2"}
    defaultRequest: {memory: 512Mi, cpu: "2"}`,
    },
    {
      name: "Node allocatable from capacity",
      gvk: ["", "v1", "Node"],
      input: "status: {capacity: {cpu: '4', memory: 8192Mi, pods: '110'}}",
      expect:
        "status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}, allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}",
    },
    {
      name: "Endpoints port protocol",
      gvk: ["", "v1", "Endpoints"],
      input: "subsets: [{addresses: [{ip: 10.0.0.1}], ports: [{port: 80}]}]",
      expect: "subsets: [{addresses: [{ip: 10.0.0.1}], ports: [{port: 80, protocol: TCP}]}]",
    },
    {
      name: "HPA v2 minReplicas, CPU metric and behavior",
      gvk: ["autoscaling", "v2", "HorizontalPodAutoscaler"],
      input: "spec: {maxReplicas: 5, behavior: {scaleDown: {stabilizationWindowSeconds: 60}}}",
      expect: `
spec:
  maxReplicas: 5
  minReplicas: 1
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 0
      selectPolicy: Max
      policies: [{type: Pods, value: 4, periodSeconds: 15}, {type: Percent, value: 100, periodSeconds: 15}]
    scaleDown:
      stabilizationWindowSeconds: 60
      selectPolicy: Max
      policies: [{type: Percent, value: 100, periodSeconds: 15}]`,
    },
    {
      name: "RoleBinding apiGroups",
      gvk: ["rbac.authorization.k8s.io", "v1", "RoleBinding"],
      input:
        "{roleRef: {kind: Role, name: r}, subjects: [{kind: User, name: u}, {kind: ServiceAccount, name: sa, namespace: x}]}",
      expect: `
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: u}, {kind: ServiceAccount, name: sa, namespace: x}]`,
    },
    {
      name: "PriorityClass",
      gvk: ["scheduling.k8s.io", "v1", "PriorityClass"],
      input: "{value: 1000}",
      expect: "{value: 1000, preemptionPolicy: PreemptLowerPriority}",
    },
    {
      name: "StorageClass",
      gvk: ["storage.k8s.io", "v1", "StorageClass"],
      input: "{provisioner: example.com/nfs}",
      expect: "{provisioner: example.com/nfs, reclaimPolicy: Delete, volumeBindingMode: Immediate}",
    },
    {
      name: "IngressClass parameters scope",
      gvk: ["networking.k8s.io", "v1", "IngressClass"],
      input: "spec: {controller: example.com/c, parameters: {kind: P, name: p}}",
      expect: "spec: {controller: example.com/c, parameters: {kind: P, name: p, scope: Cluster}}",
    },
    {
      name: "EndpointSlice ports",
      gvk: ["discovery.k8s.io", "v1", "EndpointSlice"],
      input: "{addressType: IPv4, ports: [{port: 80}]}",
      expect: "{addressType: IPv4, ports: [{port: 80, name: '', protocol: TCP}]}",
    },
    {
      name: "CustomResourceDefinition names, conversion and stored versions",
      gvk: ["apiextensions.k8s.io", "v1", "CustomResourceDefinition"],
      input:
        "spec: {group: x.io, names: {plural: widgets, kind: Widget}, versions: [{name: v1, served: true, storage: true}]}",
      expect: `
spec:
  group: x.io
  names: {plural: widgets, kind: Widget, singular: widget, listKind: WidgetList}
  conversion: {strategy: None}
  versions: [{name: v1, served: true, storage: true}]
status: {storedVersions: [v1]}`,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const [g, v, k] = c.gvk;
      const o = y(c.input);
      applyDefaults(g, v, k, o);
      if (c.create) applyCreateDefaults(g, v, k, o);
      expect(o).toEqual(y(c.expect));
    });
  }

  it("is idempotent", () => {
    const o = y("spec: {template: {spec: {containers: [{name: a, image: a}]}}}");
    applyDefaults("apps", "v1", "Deployment", o);
    const once = structuredClone(o);
    applyDefaults("apps", "v1", "Deployment", o);
    expect(o).toEqual(once);
  });

  it("leaves unknown kinds alone", () => {
    const o = { spec: { x: 1 } };
    applyDefaults("example.io", "v1", "Widget", o);
    expect(o).toEqual({ spec: { x: 1 } });
  });

  it("computes the QoS class of pods", () => {
    const pod = (resources: string) =>
      create("", "v1", "Pod", `spec: {containers: [{name: a, image: a, resources: ${resources}}]}`);
    expect((pod("{}").status as Obj).qosClass).toBe("BestEffort");
    expect((pod("{requests: {cpu: 100m}}").status as Obj).qosClass).toBe("Burstable");
    expect((pod("{limits: {cpu: 100m, memory: 1Gi}}").status as Obj).qosClass).toBe("Guaranteed");
  });
});

describe("imagePullPolicy follows the image tag", () => {
  const cases: Array<[string, string]> = [
    ["nginx", "latest"],
    ["nginx:latest", "latest"],
    ["nginx:1.27", "1.27"],
    ["docker.io/library/nginx", "latest"],
    ["localhost:5000/app:v2", "v2"],
    [`nginx@sha256:${"0".repeat(64)}`, ""],
    [`nginx:1.27@sha256:${"0".repeat(64)}`, "1.27"],
    ["Nginx", ""],
    ["", ""],
  ];
  for (const [image, tag] of cases) {
    it(`${image || "(empty)"} -> ${tag || "(none)"}`, () => expect(imageTag(image)).toBe(tag));
  }
});

describe("update-time steps", () => {
  it("keeps a Service's allocated values when the manifest is resubmitted", () => {
    const stored = y(`
spec:
  type: NodePort
  clusterIP: 10.96.0.20
  clusterIPs: [10.96.0.20]
  ipFamilies: [IPv4]
  ipFamilyPolicy: SingleStack
  ports: [{name: http, port: 80, nodePort: 30080, protocol: TCP, targetPort: 80}, {name: metrics, port: 9090, nodePort: 30090, protocol: TCP, targetPort: 9090}]`);
    const resubmitted = y(
      "spec: {type: NodePort, ports: [{name: http, port: 80}, {name: metrics, port: 9090, nodePort: 30080}]}",
    );
    applyDefaults("", "v1", "Service", resubmitted);
    applyUpdateDefaults("", "v1", "Service", resubmitted, stored);
    const spec = resubmitted.spec as Obj;
    expect(spec.clusterIP).toBe("10.96.0.20");
    expect(spec.clusterIPs).toEqual(["10.96.0.20"]);
    expect(spec.ipFamilyPolicy).toBe("SingleStack");
    // 30080 is now taken by the other port, so the first port does not get it back.
    expect(spec.ports).toEqual([
      { name: "http", port: 80, protocol: "TCP", targetPort: 80 },
      { name: "metrics", port: 9090, nodePort: 30080, protocol: "TCP", targetPort: 9090 },
    ]);
  });

  it("restores Namespace finalizers and status, and CSR spec and status", () => {
    const ns = y("metadata: {name: a}\nspec: {finalizers: []}\nstatus: {phase: Terminating}");
    applyUpdateDefaults(
      "",
      "v1",
      "Namespace",
      ns,
      y("spec: {finalizers: [kubernetes]}\nstatus: {phase: Active}"),
    );
    expect(ns).toEqual(y("metadata: {name: a}\nspec: {finalizers: [kubernetes]}\nstatus: {phase: Active}"));
    const csr = y("spec: {signerName: evil.io/x}");
    applyUpdateDefaults(
      "certificates.k8s.io",
      "v1",
      "CertificateSigningRequest",
      csr,
      y("spec: {signerName: a.io/b}"),
    );
    expect(csr).toEqual(y("spec: {signerName: a.io/b}"));
  });
});
