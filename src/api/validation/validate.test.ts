import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { fieldErrorMessage } from "../../machinery/errors.ts";
import { applyCreateDefaults, applyDefaults } from "../defaults/index.ts";
import { NAME_RULES, nameRuleFor, validate } from "./index.ts";

type Obj = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: test fixtures are mutated through free-form paths.
type Any = any;

const UID = "0b7c6f1e-1111-4222-8333-444455556666";
const PEM_CSR = Buffer.from(
  "-----BEGIN CERTIFICATE REQUEST-----\nMIIBADCBpwIBADAPMQ0wCwYDVQQDDAR0ZXN0\n-----END CERTIFICATE REQUEST-----\n",
).toString("base64");

/** Valid manifests, one per kind, as a user would write them. */
const VALID: Record<string, [string, string, string, string]> = {
  Deployment: [
    "apps",
    "v1",
    "Deployment",
    `
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx, ports: [{containerPort: 80}]}]}`,
  ],
  ReplicaSet: [
    "apps",
    "v1",
    "ReplicaSet",
    `
metadata: {name: web-1, namespace: default}
spec:
  selector: {matchExpressions: [{key: app, operator: In, values: [web]}]}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx}]}`,
  ],
  DaemonSet: [
    "apps",
    "v1",
    "DaemonSet",
    `
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent:1}]}`,
  ],
  StatefulSet: [
    "apps",
    "v1",
    "StatefulSet",
    `
metadata: {name: db, namespace: default}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: pg, image: postgres}]}`,
  ],
  Job: [
    "batch",
    "v1",
    "Job",
    `
metadata: {name: pi, namespace: default}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: pi, image: perl}]}`,
  ],
  CronJob: [
    "batch",
    "v1",
    "CronJob",
    `
metadata: {name: nightly, namespace: default}
spec:
  schedule: "0 3 * * *"
  timeZone: Europe/Berlin
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: OnFailure, containers: [{name: job, image: busybox}]}`,
  ],
  Pod: [
    "",
    "v1",
    "Pod",
    `
metadata: {name: p, namespace: default}
spec:
  serviceAccountName: default
  volumes: [{name: data}, {name: cfg, configMap: {name: cfg, items: [{key: a, path: a.txt}]}}]
  initContainers: [{name: init, image: busybox, command: [sh, -c, "true"]}]
  containers:
  - name: app
    image: app:1
    ports: [{containerPort: 8080, name: http}]
    env: [{name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    volumeMounts: [{name: data, mountPath: /data}, {name: cfg, mountPath: /etc/cfg}]
    resources: {requests: {cpu: 100m}, limits: {cpu: "1", memory: 1Gi}}
    readinessProbe: {httpGet: {port: http}}
  tolerations: [{key: example.com/gpu, operator: Exists, effect: NoSchedule}]`,
  ],
  Service: [
    "",
    "v1",
    "Service",
    `
metadata: {name: web, namespace: default}
spec:
  clusterIP: 10.96.0.10
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}, {name: https, port: 443}]`,
  ],
  ConfigMap: [
    "",
    "v1",
    "ConfigMap",
    "metadata: {name: cfg, namespace: default}\ndata: {a.txt: hello, KEY_1: x}",
  ],
  Secret: [
    "",
    "v1",
    "Secret",
    "metadata: {name: tls, namespace: default}\ntype: kubernetes.io/tls\ndata: {tls.crt: YQ==, tls.key: Yg==}",
  ],
  Namespace: ["", "v1", "Namespace", "metadata: {name: team-a}"],
  ServiceAccount: ["", "v1", "ServiceAccount", "metadata: {name: builder, namespace: default}"],
  Endpoints: [
    "",
    "v1",
    "Endpoints",
    "metadata: {name: web, namespace: default}\nsubsets: [{addresses: [{ip: 10.1.2.3}], ports: [{port: 8080}]}]",
  ],
  Event: [
    "",
    "v1",
    "Event",
    `
metadata: {name: web.17a, namespace: default}
involvedObject: {kind: Pod, name: web, namespace: default}
reason: Started
message: Started container
type: Normal`,
  ],
  EventsV1: [
    "events.k8s.io",
    "v1",
    "Event",
    `
metadata: {name: web.17b, namespace: default}
eventTime: "2026-01-01T00:00:00.000000Z"
regarding: {kind: Pod, name: web, namespace: default}
reportingController: example.com/controller
reportingInstance: controller-1
action: Binding
reason: Scheduled
note: Assigned
type: Normal`,
  ],
  Lease: [
    "coordination.k8s.io",
    "v1",
    "Lease",
    "metadata: {name: leader, namespace: kube-system}\nspec: {holderIdentity: a, leaseDurationSeconds: 15}",
  ],
  Node: [
    "",
    "v1",
    "Node",
    "metadata: {name: node-1}\nspec: {taints: [{key: example.com/dedicated, value: gpu, effect: NoSchedule}]}",
  ],
  PersistentVolumeClaim: [
    "",
    "v1",
    "PersistentVolumeClaim",
    "metadata: {name: data, namespace: default}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}",
  ],
  PersistentVolume: [
    "",
    "v1",
    "PersistentVolume",
    "metadata: {name: pv-1}\nspec: {accessModes: [ReadWriteOnce], capacity: {storage: 5Gi}, hostPath: {path: /mnt/data}}",
  ],
  LimitRange: [
    "",
    "v1",
    "LimitRange",
    "metadata: {name: lr, namespace: default}\nspec: {limits: [{type: Container, max: {cpu: '2'}, min: {cpu: 100m}}]}",
  ],
  ResourceQuota: [
    "",
    "v1",
    "ResourceQuota",
    "metadata: {name: q, namespace: default}\nspec: {hard: {pods: '10', requests.cpu: '4'}}",
  ],
  ReplicationController: [
    "",
    "v1",
    "ReplicationController",
    "metadata: {name: rc, namespace: default}\nspec: {template: {metadata: {labels: {app: rc}}, spec: {containers: [{name: a, image: a}]}}}",
  ],
  Ingress: [
    "networking.k8s.io",
    "v1",
    "Ingress",
    `
metadata: {name: web, namespace: default}
spec:
  ingressClassName: nginx
  tls: [{hosts: [example.com], secretName: tls}]
  rules:
  - host: example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
      - {path: /api, pathType: Exact, backend: {service: {name: api, port: {name: http}}}}`,
  ],
  IngressClass: [
    "networking.k8s.io",
    "v1",
    "IngressClass",
    "metadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}",
  ],
  PodDisruptionBudget: [
    "policy",
    "v1",
    "PodDisruptionBudget",
    "metadata: {name: web, namespace: default}\nspec: {minAvailable: 50%, selector: {matchLabels: {app: web}}}",
  ],
  HorizontalPodAutoscaler: [
    "autoscaling",
    "v2",
    "HorizontalPodAutoscaler",
    "metadata: {name: web, namespace: default}\nspec: {maxReplicas: 10, scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}}",
  ],
  Role: [
    "rbac.authorization.k8s.io",
    "v1",
    "Role",
    "metadata: {name: 'system:reader', namespace: default}\nrules: [{apiGroups: [''], resources: [pods], verbs: [get, list]}]",
  ],
  ClusterRole: [
    "rbac.authorization.k8s.io",
    "v1",
    "ClusterRole",
    "metadata: {name: 'karmada:view'}\nrules: [{nonResourceURLs: [/healthz], verbs: [get]}]",
  ],
  RoleBinding: [
    "rbac.authorization.k8s.io",
    "v1",
    "RoleBinding",
    `
metadata: {name: rb, namespace: default}
roleRef: {kind: Role, name: 'system:reader'}
subjects: [{kind: User, name: alice}, {kind: ServiceAccount, name: builder}]`,
  ],
  ClusterRoleBinding: [
    "rbac.authorization.k8s.io",
    "v1",
    "ClusterRoleBinding",
    `
metadata: {name: crb}
roleRef: {kind: ClusterRole, name: 'karmada:view'}
subjects: [{kind: Group, name: 'system:authenticated'}, {kind: ServiceAccount, name: builder, namespace: default}]`,
  ],
  CertificateSigningRequest: [
    "certificates.k8s.io",
    "v1",
    "CertificateSigningRequest",
    `
metadata: {name: 'agent:member1'}
spec: {request: ${PEM_CSR}, signerName: kubernetes.io/kube-apiserver-client, usages: [client auth, digital signature]}`,
  ],
  CustomResourceDefinition: [
    "apiextensions.k8s.io",
    "v1",
    "CustomResourceDefinition",
    `
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, minimum: 1}
              port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
              items: {type: array, items: {type: string}, x-kubernetes-list-type: set}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}`,
  ],
  EndpointSlice: [
    "discovery.k8s.io",
    "v1",
    "EndpointSlice",
    "metadata: {name: web-abc, namespace: default}\naddressType: IPv4\nendpoints: [{addresses: [10.1.2.3]}]\nports: [{name: http, port: 80}]",
  ],
  PriorityClass: ["scheduling.k8s.io", "v1", "PriorityClass", "metadata: {name: high}\nvalue: 1000000"],
  StorageClass: [
    "storage.k8s.io",
    "v1",
    "StorageClass",
    "metadata: {name: standard}\nprovisioner: rancher.io/local-path",
  ],
};

/** A valid object of the fixture, defaulted the way the server does on create. */
function fixture(name: string): { gvk: [string, string, string]; obj: Any } {
  const [g, v, k, text] = VALID[name]!;
  const o = parse(text) as Obj;
  applyDefaults(g, v, k, o);
  (o.metadata as Obj).uid = UID;
  applyCreateDefaults(g, v, k, o);
  return { gvk: [g, v, k], obj: o };
}

function run(name: string, o: Obj, old?: Obj): string[] {
  const [g, v, k] = fixture(name).gvk;
  return validate(g, v, k, o, old).map(fieldErrorMessage);
}

describe("defaulting is idempotent on every fixture", () => {
  for (const name of Object.keys(VALID)) {
    it(name, () => {
      const { gvk, obj } = fixture(name);
      const once = structuredClone(obj);
      applyDefaults(gvk[0], gvk[1], gvk[2], obj);
      expect(obj).toEqual(once);
    });
  }
});

describe("valid objects pass and are not modified", () => {
  for (const name of Object.keys(VALID)) {
    it(name, () => {
      const { obj } = fixture(name);
      const before = structuredClone(obj);
      expect(run(name, obj)).toEqual([]);
      expect(obj).toEqual(before);
      expect(run(name, obj, before)).toEqual([]);
    });
  }
});

interface Case {
  kind: string;
  name: string;
  mutate: (o: Any) => void;
  want: string[];
  /** Mutations of the stored object for update cases: the new object is the mutated copy. */
  update?: boolean;
}

const cases: Case[] = [
  // Workloads
  {
    kind: "Deployment",
    name: "selector required",
    mutate: (o) => delete o.spec.selector,
    want: [
      "spec.selector: Required value",
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ],
  },
  {
    kind: "Deployment",
    name: "selector must match template labels",
    mutate: (o) => {
      o.spec.selector.matchLabels.app = "other";
    },
    want: [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ],
  },
  {
    kind: "Deployment",
    name: "empty selector",
    mutate: (o) => {
      o.spec.selector = {};
    },
    want: ["spec.selector: Invalid value: {}: empty selector is invalid for deployment"],
  },
  {
    kind: "Deployment",
    name: "negative replicas",
    mutate: (o) => {
      o.spec.replicas = -1;
    },
    want: ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
  },
  {
    kind: "Deployment",
    name: "restartPolicy must be Always",
    mutate: (o) => {
      o.spec.template.spec.restartPolicy = "Never";
    },
    want: ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'],
  },
  {
    kind: "Deployment",
    name: "rolling update of 0/0",
    mutate: (o) => {
      o.spec.strategy.rollingUpdate = { maxSurge: 0, maxUnavailable: "0%" };
    },
    want: [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0',
    ],
  },
  {
    kind: "Deployment",
    name: "bad percent and over 100%",
    mutate: (o) => {
      o.spec.strategy.rollingUpdate = { maxSurge: "x%", maxUnavailable: "150%" };
    },
    want: [
      `spec.strategy.rollingUpdate.maxSurge: Invalid value: "x%": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
    ],
  },
  {
    kind: "Deployment",
    name: "progressDeadlineSeconds must exceed minReadySeconds",
    mutate: (o) => {
      o.spec.minReadySeconds = 600;
    },
    want: ["spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"],
  },
  {
    kind: "Deployment",
    name: "selector is immutable",
    update: true,
    mutate: (o) => {
      o.spec.selector.matchLabels.tier = "fe";
      o.spec.template.metadata.labels.tier = "fe";
    },
    want: ['spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"fe"}}: field is immutable'],
  },
  {
    kind: "ReplicaSet",
    name: "bad selector operator",
    mutate: (o) => {
      o.spec.selector.matchExpressions[0].operator = "Like";
    },
    want: [
      'spec.selector.matchExpressions[0].operator: Invalid value: "Like": not a valid selector operator',
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Like","values":["web"]}]}: invalid label selector',
    ],
  },
  {
    kind: "DaemonSet",
    name: "rolling update needs exactly one of surge or unavailable",
    mutate: (o) => {
      o.spec.updateStrategy.rollingUpdate = { maxSurge: 1, maxUnavailable: 1 };
    },
    want: [
      "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero",
    ],
  },
  {
    kind: "DaemonSet",
    name: "unknown strategy",
    mutate: (o) => {
      o.spec.updateStrategy = { type: "Rolling" };
    },
    want: [
      'spec.updateStrategy: Unsupported value: {"type":"Rolling"}: supported values: "RollingUpdate", "OnDelete"',
    ],
  },
  {
    kind: "StatefulSet",
    name: "pod management policy",
    mutate: (o) => {
      o.spec.podManagementPolicy = "Fast";
    },
    want: ["spec.podManagementPolicy: Invalid value: \"Fast\": must be 'OrderedReady' or 'Parallel'"],
  },
  {
    kind: "StatefulSet",
    name: "name must be a DNS label",
    mutate: (o) => {
      o.metadata.name = "db.v1";
    },
    want: ['metadata.name: Invalid value: "db.v1": must not contain dots'],
  },
  {
    kind: "StatefulSet",
    name: "only some spec fields may change",
    update: true,
    mutate: (o) => {
      o.spec.serviceName = "db2";
      o.spec.replicas = 3;
    },
    want: [
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ],
  },
  // Pod specs
  {
    kind: "Deployment",
    name: "at least one container",
    mutate: (o) => {
      o.spec.template.spec.containers = [];
    },
    want: ["spec.template.spec.containers: Required value"],
  },
  {
    kind: "Deployment",
    name: "container name and image",
    mutate: (o) => {
      o.spec.template.spec.containers.push({
        ...o.spec.template.spec.containers[0],
        name: "Web_1",
        image: "",
      });
    },
    want: [
      `spec.template.spec.containers[1].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      "spec.template.spec.containers[1].image: Required value",
    ],
  },
  {
    kind: "Deployment",
    name: "duplicate container names",
    mutate: (o) => {
      o.spec.template.spec.containers.push(structuredClone(o.spec.template.spec.containers[0]));
    },
    want: [
      'spec.template.spec.containers[1].name: Duplicate value: "nginx"',
      'spec.template.spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"',
    ].slice(0, 1),
  },
  {
    kind: "Deployment",
    name: "container port range and protocol",
    mutate: (o) => {
      o.spec.template.spec.containers[0].ports = [{ containerPort: 70000, protocol: "HTTP" }];
    },
    want: [
      "spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
      'spec.template.spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ],
  },
  {
    kind: "Pod",
    name: "requests above limits",
    mutate: (o) => {
      o.spec.containers[0].resources.requests.cpu = "2";
    },
    want: [
      'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
    ],
  },
  {
    kind: "Pod",
    name: "unknown resource and bad quantity",
    mutate: (o) => {
      o.spec.containers[0].resources.limits.gpu = "1";
      o.spec.containers[0].resources.limits.memory = "-1Gi";
    },
    want: [
      'spec.containers[0].resources.limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0',
      'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers',
      // requests were defaulted from the (then valid) limits
      'spec.containers[0].resources.requests: Invalid value: "1Gi": must be less than or equal to memory limit of -1Gi',
    ],
  },
  {
    kind: "Pod",
    name: "extended resources must not be overcommitted",
    mutate: (o) => {
      o.spec.containers[0].resources.requests["nvidia.com/gpu"] = "1";
    },
    want: [
      "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
    ],
  },
  {
    kind: "Pod",
    name: "restartPolicy value",
    mutate: (o) => {
      o.spec.restartPolicy = "Sometimes";
    },
    want: [
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ],
  },
  {
    kind: "Pod",
    name: "volume mounts need a volume",
    mutate: (o) => {
      o.spec.containers[0].volumeMounts.push({ name: "missing", mountPath: "/data" });
    },
    want: [
      'spec.containers[0].volumeMounts[2].name: Not found: "missing"',
      'spec.containers[0].volumeMounts[2].mountPath: Invalid value: "/data": must be unique',
    ],
  },
  {
    kind: "Pod",
    name: "volumes: one source, name and duplicates",
    mutate: (o) => {
      o.spec.volumes.push({ name: "data", emptyDir: {}, hostPath: { path: "/x", type: "" } });
    },
    want: [
      "spec.volumes[2].hostPath: Forbidden: may not specify more than 1 volume type",
      'spec.volumes[2].name: Duplicate value: "data"',
    ],
  },
  {
    kind: "Pod",
    name: "env var names and sources",
    mutate: (o) => {
      o.spec.containers[0].env.push(
        { name: "1BAD" },
        { name: "X", value: "v", valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
      );
    },
    want: [
      `spec.containers[0].env[1].name: Invalid value: "1BAD": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')`,
      'spec.containers[0].env[2].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
    ],
  },
  {
    kind: "Pod",
    name: "downward API field path",
    mutate: (o) => {
      o.spec.containers[0].env[0].valueFrom.fieldRef.fieldPath = "metadata.labels";
    },
    want: [
      'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
    ],
  },
  {
    kind: "Pod",
    name: "probe handler and thresholds",
    mutate: (o) => {
      o.spec.containers[0].livenessProbe = {
        successThreshold: 2,
        periodSeconds: 10,
        timeoutSeconds: 1,
        failureThreshold: 3,
      };
    },
    want: [
      "spec.containers[0].livenessProbe: Required value: must specify a handler type",
      "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
    ],
  },
  {
    kind: "Pod",
    name: "init containers may not have probes",
    mutate: (o) => {
      o.spec.initContainers[0].readinessProbe = o.spec.containers[0].readinessProbe;
    },
    want: [
      "spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
    ],
  },
  {
    kind: "Pod",
    name: "tolerations",
    mutate: (o) => {
      o.spec.tolerations.push(
        { operator: "Equal", value: "x" },
        { key: "k", effect: "NoSchedule", tolerationSeconds: 5 },
      );
    },
    want: [
      'spec.tolerations[1].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      "spec.tolerations[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
    ],
  },
  {
    kind: "Pod",
    name: "image whitespace is rejected for pods",
    mutate: (o) => {
      o.spec.containers[0].image = " app:1";
    },
    want: ['spec.containers[0].image: Invalid value: " app:1": must not have leading or trailing whitespace'],
  },
  {
    kind: "Pod",
    name: "spec is mostly immutable",
    update: true,
    mutate: (o) => {
      o.spec.containers[0].image = "app:2";
      o.spec.containers[0].ports[0].containerPort = 9090;
    },
    want: [
      "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
    ],
  },
  {
    kind: "Pod",
    name: "image updates are allowed",
    update: true,
    mutate: (o) => {
      o.spec.containers[0].image = "app:2";
    },
    want: [],
  },
  // Jobs
  {
    kind: "Job",
    name: "restartPolicy Always",
    mutate: (o) => {
      o.spec.template.spec.restartPolicy = "Always";
    },
    want: ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
  },
  {
    kind: "Job",
    name: "generated labels must not be overridden",
    mutate: (o) => {
      o.spec.template.metadata.labels["job-name"] = "other";
    },
    want: [
      `spec.template.metadata.labels[job-name]: Invalid value: map[string]string{"batch.kubernetes.io/controller-uid":"${UID}", "batch.kubernetes.io/job-name":"pi", "controller-uid":"${UID}", "job-name":"other"}: must be 'pi'`,
    ],
  },
  {
    kind: "Job",
    name: "indexed jobs need completions",
    mutate: (o) => {
      o.spec.completionMode = "Indexed";
      delete o.spec.completions;
    },
    want: ["spec.completions: Required value: when completion mode is Indexed"],
  },
  {
    kind: "Job",
    name: "template is immutable",
    update: true,
    mutate: (o) => {
      o.spec.template.spec.containers[0].image = "perl:2";
    },
    want: ["spec.template: Invalid value: "],
  },
  {
    kind: "Job",
    name: "completions are immutable",
    update: true,
    mutate: (o) => {
      o.spec.completions = 5;
    },
    want: ["spec.completions: Invalid value: 5: field is immutable"],
  },
  {
    kind: "CronJob",
    name: "schedule syntax",
    mutate: (o) => {
      o.spec.schedule = "0 25 * * *";
    },
    want: ['spec.schedule: Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25'],
  },
  {
    kind: "CronJob",
    name: "TZ in schedule",
    mutate: (o) => {
      o.spec.schedule = "CRON_TZ=UTC 0 3 * * *";
    },
    want: [
      'spec.schedule: Invalid value: "CRON_TZ=UTC 0 3 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ],
  },
  {
    kind: "CronJob",
    name: "time zone",
    mutate: (o) => {
      o.spec.timeZone = "Moon/Base";
    },
    want: ['spec.timeZone: Invalid value: "Moon/Base": unknown time zone Moon/Base'],
  },
  {
    kind: "CronJob",
    name: "concurrency policy and name length",
    mutate: (o) => {
      o.spec.concurrencyPolicy = "Sometimes";
      o.metadata.name = "n".repeat(53);
    },
    want: [
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
      `metadata.name: Invalid value: "${"n".repeat(53)}": must be no more than 52 characters`,
    ],
  },
  // Core
  {
    kind: "Service",
    name: "ports required",
    mutate: (o) => {
      o.spec.ports = [];
    },
    want: ["spec.ports: Required value"],
  },
  {
    kind: "Service",
    name: "headless services may have no ports",
    mutate: (o) => {
      o.spec.ports = [];
      o.spec.clusterIP = "None";
      o.spec.clusterIPs = ["None"];
    },
    want: [],
  },
  {
    kind: "Service",
    name: "port range, duplicate names, unnamed ports",
    mutate: (o) => {
      o.spec.ports = [
        { name: "http", port: 0, protocol: "TCP", targetPort: 80 },
        { name: "http", port: 81, protocol: "TCP", targetPort: 81 },
        { port: 82, protocol: "TCP", targetPort: 82 },
      ];
    },
    want: [
      "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      'spec.ports[1].name: Duplicate value: "http"',
      "spec.ports[2].name: Required value",
    ],
  },
  {
    kind: "Service",
    name: "type",
    mutate: (o) => {
      o.spec.type = "Internal";
    },
    want: [
      'spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ],
  },
  {
    kind: "Service",
    name: "clusterIP is immutable",
    update: true,
    mutate: (o) => {
      o.spec.clusterIP = "10.96.0.11";
      o.spec.clusterIPs = ["10.96.0.11"];
    },
    want: ['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set'],
  },
  {
    kind: "ConfigMap",
    name: "keys",
    mutate: (o) => {
      o.data["bad key"] = "x";
    },
    want: [
      `data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    ],
  },
  {
    kind: "ConfigMap",
    name: "total size",
    mutate: (o) => {
      o.data.big = "x".repeat(1024 * 1024);
    },
    want: [": Too long: may not be more than 1048576 bytes"],
  },
  {
    kind: "ConfigMap",
    name: "immutable data",
    update: true,
    mutate: (o) => {
      o.data.KEY_1 = "changed";
    },
    want: ["data: Forbidden: field is immutable when `immutable` is set"],
  },
  {
    kind: "Secret",
    name: "tls secrets need both keys",
    mutate: (o) => {
      delete o.data["tls.key"];
    },
    want: ["data[tls.key]: Required value"],
  },
  {
    kind: "Secret",
    name: "type is immutable",
    update: true,
    mutate: (o) => {
      o.type = "Opaque";
    },
    want: ['type: Invalid value: "Opaque": field is immutable'],
  },
  {
    kind: "Namespace",
    name: "name is a DNS label",
    mutate: (o) => {
      o.metadata.name = "team.a";
      o.metadata.labels["kubernetes.io/metadata.name"] = "team.a";
    },
    want: ['metadata.name: Invalid value: "team.a": must not contain dots'],
  },
  {
    kind: "Node",
    name: "taint effect",
    mutate: (o) => {
      o.spec.taints[0].effect = "NoRun";
    },
    want: [
      'spec.taints[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ],
  },
  {
    kind: "PersistentVolumeClaim",
    name: "access modes and storage",
    mutate: (o) => {
      o.spec.accessModes = [];
      delete o.spec.resources.requests.storage;
    },
    want: [
      "spec.accessModes: Required value: at least 1 access mode is required",
      "spec.resources[storage]: Required value",
    ],
  },
  {
    kind: "Event",
    name: "involved object namespace",
    mutate: (o) => {
      o.involvedObject.namespace = "other";
    },
    want: ['involvedObject.namespace: Invalid value: "other": does not match event.namespace'],
  },
  {
    kind: "EventsV1",
    name: "events.k8s.io requires the reporting fields",
    mutate: (o) => {
      delete o.reportingInstance;
      o.type = "Odd";
    },
    want: ["reportingInstance: Required value", 'type: Invalid value: "": has invalid value: Odd'],
  },
  {
    kind: "Lease",
    name: "duration",
    mutate: (o) => {
      o.spec.leaseDurationSeconds = 0;
    },
    want: ["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"],
  },
  {
    kind: "ReplicationController",
    name: "selector must match",
    mutate: (o) => {
      o.spec.selector = { app: "x" };
    },
    want: [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"rc"}: `selector` does not match template `labels`',
    ],
  },
  {
    kind: "LimitRange",
    name: "min above max",
    mutate: (o) => {
      o.spec.limits[0].min.cpu = "3";
    },
    want: [
      'spec.limits[0].min[cpu]: Invalid value: "3": min value 3 is greater than max value 2',
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "2": min value 3 is greater than default request value 2',
      'spec.limits[0].default[cpu]: Invalid value: "3": min value 3 is greater than default value 2',
    ],
  },
  // Networking, policy, autoscaling
  {
    kind: "Ingress",
    name: "path type and path",
    mutate: (o) => {
      o.spec.rules[0].http.paths[0].path = "api";
      o.spec.rules[0].http.paths[1].pathType = "Regex";
    },
    want: [
      'spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path',
      'spec.rules[0].http.paths[1].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    ],
  },
  {
    kind: "Ingress",
    name: "backend port and host",
    mutate: (o) => {
      o.spec.rules[0].host = "1.2.3.4";
      o.spec.rules[0].http.paths[0].backend.service.port = {};
    },
    want: [
      'spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
      "spec.rules[0].http.paths[0].backend: Required value: port name or number is required",
    ],
  },
  {
    kind: "IngressClass",
    name: "controller is a domain-prefixed path and immutable",
    update: true,
    mutate: (o) => {
      o.spec.controller = "nginx";
    },
    want: [
      'spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")',
      'spec.controller: Invalid value: "nginx": field is immutable',
    ],
  },
  {
    kind: "PodDisruptionBudget",
    name: "min and max together",
    mutate: (o) => {
      o.spec.maxUnavailable = 1;
    },
    want: [
      'spec: Invalid value: {"minAvailable":"50%","selector":{"matchLabels":{"app":"web"}},"maxUnavailable":1}: minAvailable and maxUnavailable cannot be both set',
    ],
  },
  {
    kind: "HorizontalPodAutoscaler",
    name: "min and max replicas",
    mutate: (o) => {
      o.spec.minReplicas = 0;
      o.spec.maxReplicas = 0;
    },
    want: [
      "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
      "spec.maxReplicas: Invalid value: 0: must be greater than 0",
    ],
  },
  {
    kind: "HorizontalPodAutoscaler",
    name: "max below min",
    mutate: (o) => {
      o.spec.minReplicas = 5;
      o.spec.maxReplicas = 3;
    },
    want: ["spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`"],
  },
  {
    kind: "HorizontalPodAutoscaler",
    name: "scale target",
    mutate: (o) => {
      o.spec.scaleTargetRef = { kind: "Deployment" };
    },
    want: ["spec.scaleTargetRef.name: Required value"],
  },
  // RBAC and certificates
  {
    kind: "Role",
    name: "rules need verbs, groups and resources",
    mutate: (o) => {
      o.rules = [{}];
    },
    want: [
      "rules[0].verbs: Required value: verbs must contain at least one value",
      "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
      "rules[0].resources: Required value: resource rules must supply at least one resource",
    ],
  },
  {
    kind: "RoleBinding",
    name: "subject kind and roleRef kind",
    mutate: (o) => {
      o.subjects.push({ kind: "Robot", name: "r2" });
      o.roleRef.kind = "Policy";
    },
    want: [
      'roleRef.kind: Unsupported value: "Policy": supported values: "Role", "ClusterRole"',
      'subjects[2].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ],
  },
  {
    kind: "ClusterRoleBinding",
    name: "roleRef is immutable",
    update: true,
    mutate: (o) => {
      o.roleRef.name = "admin";
    },
    want: [
      'roleRef: Invalid value: {"kind":"ClusterRole","name":"admin","apiGroup":"rbac.authorization.k8s.io"}: cannot change roleRef',
    ],
  },
  {
    kind: "ClusterRoleBinding",
    name: "service account subjects need a namespace",
    mutate: (o) => {
      delete o.subjects[1].namespace;
    },
    want: ["subjects[1].namespace: Required value"],
  },
  {
    kind: "CertificateSigningRequest",
    name: "signerName and usages",
    mutate: (o) => {
      o.spec.signerName = "";
      o.spec.usages = [];
    },
    want: ["spec.usages: Required value", "spec.signerName: Required value"],
  },
  {
    kind: "CertificateSigningRequest",
    name: "request must be a CSR",
    mutate: (o) => {
      o.spec.request = Buffer.from("hello").toString("base64");
    },
    want: ['spec.request: Invalid value: "aGVsbG8=": PEM block type must be CERTIFICATE REQUEST'],
  },
  // CRDs
  {
    kind: "CustomResourceDefinition",
    name: "name must be plural.group",
    mutate: (o) => {
      o.metadata.name = "widget.example.com";
    },
    want: ['metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group'],
  },
  {
    kind: "CustomResourceDefinition",
    name: "exactly one storage version",
    mutate: (o) => {
      o.spec.versions.push({ ...structuredClone(o.spec.versions[0]), name: "v1beta1" });
    },
    want: [
      "spec.versions: Invalid value: ",
      'status.storedVersions: Invalid value: []string{"v1alpha1"}: must have the storage version v1beta1',
    ],
  },
  {
    kind: "CustomResourceDefinition",
    name: "group needs a dot",
    mutate: (o) => {
      o.spec.group = "example";
      o.metadata.name = "widgets.example";
    },
    want: ['spec.group: Invalid value: "example": should be a domain with at least one dot'],
  },
  {
    kind: "CustomResourceDefinition",
    name: "structural schema: types",
    mutate: (o) => {
      const props = o.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
      props.size = { minimum: 1 };
      props.list = { type: "array" };
    },
    want: [
      "spec.validation.openAPIV3Schema.properties[spec].properties[list].items: Required value: must be specified",
      "spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields",
    ],
  },
  {
    kind: "CustomResourceDefinition",
    name: "metadata may only constrain name",
    mutate: (o) => {
      o.spec.versions[0].schema.openAPIV3Schema.properties.metadata = {
        type: "object",
        properties: { labels: { type: "object" } },
      };
    },
    want: [
      "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
    ],
  },
  {
    kind: "CustomResourceDefinition",
    name: "scope and names",
    mutate: (o) => {
      o.spec.scope = "Global";
      o.spec.names.listKind = "Widget";
    },
    want: [
      'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
    ],
  },
  {
    kind: "CustomResourceDefinition",
    name: "group is immutable",
    update: true,
    mutate: (o) => {
      o.spec.group = "example.org";
      o.metadata.name = "widgets.example.org";
    },
    want: [
      'metadata.name: Invalid value: "widgets.example.org": field is immutable',
      'spec.group: Invalid value: "example.org": field is immutable',
    ],
  },
  {
    kind: "EndpointSlice",
    name: "addresses",
    mutate: (o) => {
      o.endpoints[0].addresses = ["not-an-ip"];
      o.addressType = "IPv5";
    },
    want: ['addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"'],
  },
  {
    kind: "EndpointSlice",
    name: "IPv4 addresses",
    mutate: (o) => {
      o.endpoints[0].addresses = ["not-an-ip", "127.0.0.1"];
    },
    want: [
      'endpoints[0].addresses[0]: Invalid value: "not-an-ip": must be a valid IPv4 address',
      'endpoints[0].addresses[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ],
  },
  {
    kind: "PriorityClass",
    name: "value limit and immutability",
    update: true,
    mutate: (o) => {
      o.value = 2000000000;
    },
    want: [
      "value: Forbidden: maximum allowed value of a user defined priority is 1000000000",
      "value: Forbidden: may not be changed in an update.",
    ],
  },
  {
    kind: "StorageClass",
    name: "binding mode and provisioner",
    update: true,
    mutate: (o) => {
      o.volumeBindingMode = "Later";
      o.provisioner = "example.com/other";
    },
    want: [
      'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
      "provisioner: Forbidden: updates to provisioner are forbidden.",
      'volumeBindingMode: Invalid value: "Later": field is immutable',
    ],
  },
  // More pod, core and API-extension rules
  {
    kind: "Pod",
    name: "security contexts",
    mutate: (o) => {
      o.spec.securityContext = { runAsUser: -1, seccompProfile: { type: "Localhost" } };
      o.spec.containers[0].securityContext = { allowPrivilegeEscalation: false, privileged: true };
    },
    want: [
      'spec.containers[0].securityContext: Invalid value: {"allowPrivilegeEscalation":false,"privileged":true}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true',
      "spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
      "spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost",
    ],
  },
  {
    kind: "Pod",
    name: "dnsPolicy None needs a dnsConfig",
    mutate: (o) => {
      o.spec.dnsPolicy = "None";
    },
    want: ["spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"],
  },
  {
    kind: "Pod",
    name: "activeDeadlineSeconds range",
    mutate: (o) => {
      o.spec.activeDeadlineSeconds = 0;
    },
    want: ["spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"],
  },
  {
    kind: "Deployment",
    name: "missing template validates as an empty one",
    mutate: (o) => {
      delete o.spec.template;
    },
    want: [
      "spec.template.metadata.labels: Invalid value: map[string]string{}: `selector` does not match template `labels`",
      "spec.template.spec.terminationGracePeriodSeconds: Required value",
      "spec.template.spec.containers: Required value",
      "spec.template.spec.restartPolicy: Required value",
      "spec.template.spec.dnsPolicy: Required value",
      'spec.template.spec.restartPolicy: Unsupported value: "": supported values: "Always"',
    ],
  },
  {
    kind: "ReplicationController",
    name: "template is required",
    mutate: (o) => {
      delete o.spec.template;
    },
    want: ["spec.template: Required value"],
  },
  {
    kind: "Service",
    name: "ExternalName needs a DNS name",
    mutate: (o) => {
      o.spec = { type: "ExternalName", externalName: "not a host", sessionAffinity: "None" };
    },
    want: [
      `spec.externalName: Invalid value: "not a host": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  },
  {
    kind: "Service",
    name: "load balancer source ranges",
    mutate: (o) => {
      o.spec.loadBalancerSourceRanges = ["10.0.0.0/33"];
    },
    want: [
      "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
      'spec.LoadBalancerSourceRanges[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ],
  },
  {
    kind: "Secret",
    name: "docker config must be JSON",
    mutate: (o) => {
      o.type = "kubernetes.io/dockerconfigjson";
      o.data = { ".dockerconfigjson": Buffer.from("{not json").toString("base64") };
    },
    want: [`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": `],
  },
  {
    kind: "ResourceQuota",
    name: "negative hard limits and scopes",
    mutate: (o) => {
      o.spec.hard.pods = "-1";
      o.spec.scopes = ["Sometimes"];
    },
    want: [
      'spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.scopes[0]: Unsupported value: "Sometimes": supported values: "BestEffort", "CrossNamespacePodAffinity", "NotBestEffort", "NotTerminating", "PriorityClass", "Terminating"',
    ],
  },
  {
    kind: "PersistentVolume",
    name: "needs a source and a reclaim policy",
    mutate: (o) => {
      delete o.spec.hostPath;
      o.spec.persistentVolumeReclaimPolicy = "Keep";
    },
    want: [
      'spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"',
      "spec: Required value: must specify a volume type",
    ],
  },
  {
    kind: "Ingress",
    name: "rules or default backend",
    mutate: (o) => {
      delete o.spec.rules;
    },
    want: ["spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"],
  },
  {
    kind: "PodDisruptionBudget",
    name: "percentages",
    mutate: (o) => {
      o.spec.minAvailable = "120%";
    },
    want: ['spec.minAvailable: Invalid value: "120%": must not be greater than 100%'],
  },
  {
    kind: "CustomResourceDefinition",
    name: "protected groups need approval",
    mutate: (o) => {
      o.spec.group = "widgets.k8s.io";
      o.metadata.name = "widgets.widgets.k8s.io";
    },
    want: [
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ],
  },
  {
    kind: "CustomResourceDefinition",
    name: "webhook conversion needs a client config",
    mutate: (o) => {
      o.spec.conversion = { strategy: "Webhook", webhook: { conversionReviewVersions: ["v2"] } };
    },
    want: [
      "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
      'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    ],
  },
  {
    kind: "CustomResourceDefinition",
    name: "per-version schemas keep per-version paths",
    mutate: (o) => {
      const v2 = structuredClone(o.spec.versions[0]);
      v2.name = "v1";
      v2.storage = false;
      v2.schema.openAPIV3Schema.properties.spec.properties.size = { type: "int" };
      o.spec.versions.push(v2);
    },
    want: [
      'spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[size].type: Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string"',
    ],
  },
  {
    kind: "CustomResourceDefinition",
    name: "status subresource restricts the root schema",
    mutate: (o) => {
      o.spec.versions[0].schema.openAPIV3Schema.type = "array";
      o.spec.versions[0].schema.openAPIV3Schema.items = { type: "string" };
    },
    want: [
      'spec.validation.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      'spec.validation.openAPIV3Schema.type: Invalid value: "array": must be object at the root',
    ],
  },
  {
    kind: "ResourceQuota",
    name: "quota resource names",
    mutate: (o) => {
      o.spec.hard = { gpus: "1", "count/deployments.apps": "1.5" };
    },
    want: [
      'spec.hard[gpus]: Invalid value: "gpus": must be a standard resource type or fully qualified',
      'spec.hard[gpus]: Invalid value: "gpus": must be a standard resource for quota',
      'spec.hard[count/deployments.apps]: Invalid value: "1500m": must be an integer',
    ],
  },
  {
    kind: "LimitRange",
    name: "pod limits take no defaults, ratios are at least 1",
    mutate: (o) => {
      o.spec.limits = [
        { type: "Pod", max: { cpu: "2" }, default: { cpu: "1" }, maxLimitRequestRatio: { cpu: "0.5" } },
      ];
    },
    want: [
      "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
      'spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1',
    ],
  },
  {
    kind: "StatefulSet",
    name: "old subdomain names still update",
    update: true,
    mutate: (o) => {
      o.metadata.labels = { tier: "db" };
    },
    want: [],
  },
];

describe("each rule reports the upstream message", () => {
  for (const c of cases) {
    it(`${c.kind}: ${c.name}`, () => {
      const { obj } = fixture(c.kind);
      const old = c.update ? structuredClone(obj) : undefined;
      if (old && c.kind === "ConfigMap") {
        old.immutable = true;
        obj.immutable = true;
      }
      c.mutate(obj);
      const got = run(c.kind, obj, old);
      // A want ending in ": " pins only the start: Go's %#v of structs and Go's JSON errors differ.
      expect(got).toHaveLength(c.want.length);
      got.forEach((msg, i) => {
        const want = c.want[i]!;
        if (want.endsWith(": ")) expect(msg.startsWith(want)).toBe(true);
        else expect(msg).toBe(want);
      });
    });
  }
});

describe("name rules", () => {
  it("exports the table", () => {
    expect(NAME_RULES.Namespace).toBe("label");
    expect(NAME_RULES.Service).toBe("dns1035");
    expect(NAME_RULES["Role.rbac.authorization.k8s.io"]).toBe("path-segment");
    expect(NAME_RULES["Deployment.apps"]).toBe("subdomain");
    expect(nameRuleFor("example.io", "Widget")).toBe("path-segment");
  });
  it("unknown kinds validate clean", () => {
    expect(validate("example.io", "v1", "Widget", { metadata: {} })).toEqual([]);
  });
});
