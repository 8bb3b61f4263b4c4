/**
 * The built-in Kubernetes kinds this server serves, with the names, scope, verbs and
 * subresources Kubernetes v1.32 advertises for them in discovery.
 *
 * Order is Kubernetes' discovery order: the core group first, then the named groups by
 * the kube-apiserver's group priority (apiregistration, apps, events, authentication, ...),
 * versions by preference (autoscaling v2 before v1), resources alphabetical within a
 * group version. Discovery documents can be emitted by walking this list once.
 */

export interface BuiltinSubresource {
  /** `status`, `scale`, `finalize`, `approval`, `token`, `eviction`, `binding`, `log`, ... */
  name: string;
  /** The kind of the subresource's request/response body (`autoscaling/v1 Scale` for `scale`). */
  group: string;
  version: string;
  kind: string;
  verbs: string[];
  /**
   * `@kubernetes/client-node` model of the body when its kind differs from the parent's
   * (`V1Scale`, `AuthenticationV1TokenRequest`). Absent: the parent's model when the kind is the
   * parent's, no body schema otherwise (connect subresources such as `exec` take query parameters).
   */
  model?: string;
}

export interface BuiltinKind {
  /** `""` for the core group. */
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: BuiltinSubresource[];
  /** The `@kubernetes/client-node` model class of the kind, e.g. `V1Deployment`. */
  model: string;
  /**
   * Set when this group/version/resource is another view of objects stored under a different
   * one (Kubernetes stores `events.k8s.io/v1` events as core `v1` events, and `autoscaling/v1`
   * HorizontalPodAutoscalers as `autoscaling/v2`). Absent: stored under its own group, resource
   * and version.
   */
  storage?: { group: string; version: string; resource: string };
}

/** Read, write and watch: what most kinds support. */
const CRUD = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
/** Namespaces cannot be deleted as a collection. */
const CRUD_NO_COLLECTION = ["create", "delete", "get", "list", "patch", "update", "watch"];
/** The review kinds: the request body is evaluated and returned, nothing is stored. */
const CREATE_ONLY = ["create"];
const GET_PATCH_UPDATE = ["get", "patch", "update"];
/** Connect subresources (`exec`, `attach`, `portforward`) upgrade a GET or POST. */
const CONNECT = ["create", "get"];
/** Proxy subresources accept every HTTP method; discovery lists those that map to verbs. */
const PROXY = ["create", "delete", "get", "patch", "update"];

/** What a kind needs spelled out; the rest follows from the conventions in `kind()`. */
interface KindSpec {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  model: string;
  shortNames?: string[];
  categories?: string[];
  verbs?: string[];
  /** The `status` subresource, as Kubernetes registers it for most kinds with a status. */
  status?: boolean;
  /** `autoscaling/v1 Scale` on `scale`. */
  scale?: boolean;
  /** Subresources other than `status` and `scale`; all of them end up sorted by name. */
  subresources?: Array<Omit<BuiltinSubresource, "group" | "version"> & { group?: string; version?: string }>;
  storage?: BuiltinKind["storage"];
}

function kind(spec: KindSpec): BuiltinKind {
  const own = { group: spec.group, version: spec.version };
  // Fresh arrays per kind: callers may sort or extend what they get without touching the table.
  const subresources: BuiltinSubresource[] = (spec.subresources ?? []).map((sub) => ({
    ...own,
    ...sub,
    verbs: [...sub.verbs],
  }));
  if (spec.scale) {
    subresources.push({
      name: "scale",
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: [...GET_PATCH_UPDATE],
      model: "V1Scale",
    });
  }
  if (spec.status) {
    subresources.push({ name: "status", ...own, kind: spec.kind, verbs: [...GET_PATCH_UPDATE] });
  }
  subresources.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const result: BuiltinKind = {
    group: spec.group,
    version: spec.version,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    shortNames: [...(spec.shortNames ?? [])],
    categories: [...(spec.categories ?? [])],
    verbs: [...(spec.verbs ?? CRUD)],
    subresources,
    model: spec.model,
  };
  if (spec.storage) result.storage = spec.storage;
  return result;
}

const core = { group: "", version: "v1" } as const;
const namespaced = true;
const cluster = false;

export const builtinKinds: readonly BuiltinKind[] = [
  // core/v1, alphabetical by resource.
  kind({
    ...core,
    kind: "ConfigMap",
    plural: "configmaps",
    namespaced,
    model: "V1ConfigMap",
    shortNames: ["cm"],
  }),
  kind({
    ...core,
    kind: "Endpoints",
    plural: "endpoints",
    namespaced,
    model: "V1Endpoints",
    shortNames: ["ep"],
  }),
  kind({ ...core, kind: "Event", plural: "events", namespaced, model: "CoreV1Event", shortNames: ["ev"] }),
  kind({
    ...core,
    kind: "LimitRange",
    plural: "limitranges",
    namespaced,
    model: "V1LimitRange",
    shortNames: ["limits"],
  }),
  kind({
    ...core,
    kind: "Namespace",
    plural: "namespaces",
    namespaced: cluster,
    model: "V1Namespace",
    shortNames: ["ns"],
    verbs: CRUD_NO_COLLECTION,
    status: true,
    subresources: [{ name: "finalize", kind: "Namespace", verbs: ["update"] }],
  }),
  kind({
    ...core,
    kind: "Node",
    plural: "nodes",
    namespaced: cluster,
    model: "V1Node",
    shortNames: ["no"],
    status: true,
    subresources: [{ name: "proxy", kind: "NodeProxyOptions", verbs: PROXY }],
  }),
  kind({
    ...core,
    kind: "PersistentVolumeClaim",
    plural: "persistentvolumeclaims",
    namespaced,
    model: "V1PersistentVolumeClaim",
    shortNames: ["pvc"],
    status: true,
  }),
  kind({
    ...core,
    kind: "PersistentVolume",
    plural: "persistentvolumes",
    namespaced: cluster,
    model: "V1PersistentVolume",
    shortNames: ["pv"],
    status: true,
  }),
  kind({
    ...core,
    kind: "Pod",
    plural: "pods",
    namespaced,
    model: "V1Pod",
    shortNames: ["po"],
    categories: ["all"],
    status: true,
    subresources: [
      { name: "attach", kind: "PodAttachOptions", verbs: CONNECT },
      { name: "binding", kind: "Binding", verbs: CREATE_ONLY, model: "V1Binding" },
      { name: "ephemeralcontainers", kind: "Pod", verbs: GET_PATCH_UPDATE },
      { name: "eviction", group: "policy", kind: "Eviction", verbs: CREATE_ONLY, model: "V1Eviction" },
      { name: "exec", kind: "PodExecOptions", verbs: CONNECT },
      { name: "log", kind: "Pod", verbs: ["get"] },
      { name: "portforward", kind: "PodPortForwardOptions", verbs: CONNECT },
      { name: "proxy", kind: "PodProxyOptions", verbs: PROXY },
    ],
  }),
  kind({
    ...core,
    kind: "ReplicationController",
    plural: "replicationcontrollers",
    namespaced,
    model: "V1ReplicationController",
    shortNames: ["rc"],
    categories: ["all"],
    status: true,
    scale: true,
  }),
  kind({
    ...core,
    kind: "ResourceQuota",
    plural: "resourcequotas",
    namespaced,
    model: "V1ResourceQuota",
    shortNames: ["quota"],
    status: true,
  }),
  kind({ ...core, kind: "Secret", plural: "secrets", namespaced, model: "V1Secret" }),
  kind({
    ...core,
    kind: "ServiceAccount",
    plural: "serviceaccounts",
    namespaced,
    model: "V1ServiceAccount",
    shortNames: ["sa"],
    subresources: [
      {
        name: "token",
        group: "authentication.k8s.io",
        kind: "TokenRequest",
        verbs: CREATE_ONLY,
        model: "AuthenticationV1TokenRequest",
      },
    ],
  }),
  kind({
    ...core,
    kind: "Service",
    plural: "services",
    namespaced,
    model: "V1Service",
    shortNames: ["svc"],
    categories: ["all"],
    status: true,
    subresources: [{ name: "proxy", kind: "ServiceProxyOptions", verbs: PROXY }],
  }),

  kind({
    group: "apiregistration.k8s.io",
    version: "v1",
    kind: "APIService",
    plural: "apiservices",
    namespaced: cluster,
    model: "V1APIService",
    categories: ["api-extensions"],
    status: true,
  }),

  kind({
    group: "apps",
    version: "v1",
    kind: "ControllerRevision",
    plural: "controllerrevisions",
    namespaced,
    model: "V1ControllerRevision",
  }),
  ...(["DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"] as const).map((k) =>
    kind({
      group: "apps",
      version: "v1",
      kind: k,
      plural: `${k.toLowerCase()}s`,
      namespaced,
      model: `V1${k}`,
      shortNames: [{ DaemonSet: "ds", Deployment: "deploy", ReplicaSet: "rs", StatefulSet: "sts" }[k]],
      categories: ["all"],
      status: true,
      scale: k !== "DaemonSet",
    }),
  ),

  kind({
    group: "events.k8s.io",
    version: "v1",
    kind: "Event",
    plural: "events",
    namespaced,
    model: "EventsV1Event",
    shortNames: ["ev"],
    storage: { group: "", version: "v1", resource: "events" },
  }),

  ...(
    [
      ["SelfSubjectReview", cluster],
      ["TokenReview", cluster],
    ] as const
  ).map(([k, scope]) => review("authentication.k8s.io", k, scope)),

  ...(
    [
      ["LocalSubjectAccessReview", namespaced],
      ["SelfSubjectAccessReview", cluster],
      ["SelfSubjectRulesReview", cluster],
      ["SubjectAccessReview", cluster],
    ] as const
  ).map(([k, scope]) => review("authorization.k8s.io", k, scope)),

  kind({
    group: "autoscaling",
    version: "v2",
    kind: "HorizontalPodAutoscaler",
    plural: "horizontalpodautoscalers",
    namespaced,
    model: "V2HorizontalPodAutoscaler",
    shortNames: ["hpa"],
    categories: ["all"],
    status: true,
  }),
  kind({
    group: "autoscaling",
    version: "v1",
    kind: "HorizontalPodAutoscaler",
    plural: "horizontalpodautoscalers",
    namespaced,
    model: "V1HorizontalPodAutoscaler",
    shortNames: ["hpa"],
    categories: ["all"],
    status: true,
    storage: { group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers" },
  }),

  kind({
    group: "batch",
    version: "v1",
    kind: "CronJob",
    plural: "cronjobs",
    namespaced,
    model: "V1CronJob",
    shortNames: ["cj"],
    categories: ["all"],
    status: true,
  }),
  kind({
    group: "batch",
    version: "v1",
    kind: "Job",
    plural: "jobs",
    namespaced,
    model: "V1Job",
    categories: ["all"],
    status: true,
  }),

  kind({
    group: "certificates.k8s.io",
    version: "v1",
    kind: "CertificateSigningRequest",
    plural: "certificatesigningrequests",
    namespaced: cluster,
    model: "V1CertificateSigningRequest",
    shortNames: ["csr"],
    status: true,
    subresources: [{ name: "approval", kind: "CertificateSigningRequest", verbs: GET_PATCH_UPDATE }],
  }),

  kind({
    group: "networking.k8s.io",
    version: "v1",
    kind: "IngressClass",
    plural: "ingressclasses",
    namespaced: cluster,
    model: "V1IngressClass",
  }),
  kind({
    group: "networking.k8s.io",
    version: "v1",
    kind: "Ingress",
    plural: "ingresses",
    namespaced,
    model: "V1Ingress",
    shortNames: ["ing"],
    status: true,
  }),

  kind({
    group: "policy",
    version: "v1",
    kind: "PodDisruptionBudget",
    plural: "poddisruptionbudgets",
    namespaced,
    model: "V1PodDisruptionBudget",
    shortNames: ["pdb"],
    status: true,
  }),

  ...(
    [
      ["ClusterRoleBinding", cluster],
      ["ClusterRole", cluster],
      ["RoleBinding", namespaced],
      ["Role", namespaced],
    ] as const
  ).map(([k, scope]) =>
    kind({
      group: "rbac.authorization.k8s.io",
      version: "v1",
      kind: k,
      plural: `${k.toLowerCase()}s`,
      namespaced: scope,
      model: `V1${k}`,
    }),
  ),

  kind({
    group: "storage.k8s.io",
    version: "v1",
    kind: "StorageClass",
    plural: "storageclasses",
    namespaced: cluster,
    model: "V1StorageClass",
    shortNames: ["sc"],
  }),

  kind({
    group: "apiextensions.k8s.io",
    version: "v1",
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    namespaced: cluster,
    model: "V1CustomResourceDefinition",
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
    status: true,
  }),

  kind({
    group: "scheduling.k8s.io",
    version: "v1",
    kind: "PriorityClass",
    plural: "priorityclasses",
    namespaced: cluster,
    model: "V1PriorityClass",
    shortNames: ["pc"],
  }),

  kind({
    group: "coordination.k8s.io",
    version: "v1",
    kind: "Lease",
    plural: "leases",
    namespaced,
    model: "V1Lease",
  }),

  kind({
    group: "discovery.k8s.io",
    version: "v1",
    kind: "EndpointSlice",
    plural: "endpointslices",
    namespaced,
    model: "V1EndpointSlice",
  }),
];

/** A create-only review kind (`SubjectAccessReview`, `TokenReview`, ...). */
function review(group: string, reviewKind: string, scope: boolean): BuiltinKind {
  return kind({
    group,
    version: "v1",
    kind: reviewKind,
    plural: `${reviewKind.toLowerCase()}s`,
    namespaced: scope,
    model: `V1${reviewKind}`,
    verbs: CREATE_ONLY,
  });
}
