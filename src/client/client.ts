/**
 * The one client interface every controller, the CLI and the member simulator use: plain
 * Kubernetes JSON objects, Kubernetes Status errors (`ApiError`), two transports (in process,
 * over HTTP to any Kubernetes API server). Objects handed out by `watch` (and by informers
 * built on it) may be shared: treat them as read-only and `structuredClone` before editing.
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import type { Status } from "../machinery/errors.ts";

/** Which REST resource a call is about. */
export interface ResourceRef {
  /** `""` for the core group. */
  group: string;
  version: string;
  /** The plural resource name, e.g. `deployments`. */
  resource: string;
  namespaced: boolean;
  /** The kind the resource serves, when known (informers and lists use it). */
  kind?: string;
}

export interface ObjectList {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: StoredObject[];
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Changes after this revision; absent or "0": the current state as ADDED events first. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
  resourceVersionMatch?: "NotOlderThan";
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent {
  type: WatchEventType;
  /** The object (read-only), a bookmark's bare object, or for ERROR a Status. */
  object: StoredObject | Status;
}

export interface WatchHandle {
  /** Ends the watch from this side; `done` then resolves. */
  stop(): void;
  /**
   * Resolves when the stream ends (server timeout, after an ERROR event, or `stop()`);
   * rejects when the watch could not start or the connection failed (an ApiError when the
   * server answered with a Status).
   */
  done: Promise<void>;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: "Strict" | "Warn" | "Ignore";
}

export type PatchType = "json" | "merge" | "strategic" | "apply";

export interface PatchOptions extends WriteOptions {
  subresource?: string;
  /** Server-side apply only: take over conflicting fields. */
  force?: boolean;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export interface Client {
  get(
    res: ResourceRef,
    namespace: string | undefined,
    name: string,
    opts?: { resourceVersion?: string; subresource?: string },
  ): Promise<StoredObject>;
  list(res: ResourceRef, namespace: string | undefined, opts?: ListOptions): Promise<ObjectList>;
  /** Events arrive in order through `onEvent`; see WatchHandle for how the stream ends. */
  watch(
    res: ResourceRef,
    namespace: string | undefined,
    opts: WatchOptions,
    onEvent: (e: WatchEvent) => void,
  ): WatchHandle;
  /** Creates `obj` in `obj.metadata.namespace` (for namespaced resources). */
  create(res: ResourceRef, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject>;
  update(res: ResourceRef, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject>;
  updateStatus(res: ResourceRef, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject>;
  patch(
    res: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    opts?: PatchOptions,
  ): Promise<StoredObject>;
  /** Returns the object as it ends: gone, or still there (terminating) when finalizers keep it. */
  delete(
    res: ResourceRef,
    namespace: string | undefined,
    name: string,
    opts?: DeleteOptions,
  ): Promise<StoredObject | undefined>;
  /** The resource serving a kind (discovery), e.g. `apps/v1 Deployment` → deployments. */
  resourceFor(apiVersion: string, kind: string): Promise<ResourceRef>;
  /**
   * Calls `listener` each time the server answers again after requests failed to reach it
   * (clients over a network only; an in-process client is never unreachable). Returns the
   * unsubscribe function.
   */
  onRecovered?(listener: () => void): () => void;
}

/** Well-known resources, so callers need no discovery for the built-ins they use most. */
export const RESOURCES = {
  namespaces: { group: "", version: "v1", resource: "namespaces", namespaced: false, kind: "Namespace" },
  configmaps: { group: "", version: "v1", resource: "configmaps", namespaced: true, kind: "ConfigMap" },
  secrets: { group: "", version: "v1", resource: "secrets", namespaced: true, kind: "Secret" },
  services: { group: "", version: "v1", resource: "services", namespaced: true, kind: "Service" },
  endpoints: { group: "", version: "v1", resource: "endpoints", namespaced: true, kind: "Endpoints" },
  serviceaccounts: {
    group: "",
    version: "v1",
    resource: "serviceaccounts",
    namespaced: true,
    kind: "ServiceAccount",
  },
  events: { group: "", version: "v1", resource: "events", namespaced: true, kind: "Event" },
  nodes: { group: "", version: "v1", resource: "nodes", namespaced: false, kind: "Node" },
  pods: { group: "", version: "v1", resource: "pods", namespaced: true, kind: "Pod" },
  deployments: {
    group: "apps",
    version: "v1",
    resource: "deployments",
    namespaced: true,
    kind: "Deployment",
  },
  replicasets: {
    group: "apps",
    version: "v1",
    resource: "replicasets",
    namespaced: true,
    kind: "ReplicaSet",
  },
  statefulsets: {
    group: "apps",
    version: "v1",
    resource: "statefulsets",
    namespaced: true,
    kind: "StatefulSet",
  },
  daemonsets: { group: "apps", version: "v1", resource: "daemonsets", namespaced: true, kind: "DaemonSet" },
  controllerrevisions: {
    group: "apps",
    version: "v1",
    resource: "controllerrevisions",
    namespaced: true,
    kind: "ControllerRevision",
  },
  jobs: { group: "batch", version: "v1", resource: "jobs", namespaced: true, kind: "Job" },
  cronjobs: { group: "batch", version: "v1", resource: "cronjobs", namespaced: true, kind: "CronJob" },
  leases: {
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
    namespaced: true,
    kind: "Lease",
  },
  roles: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    resource: "roles",
    namespaced: true,
    kind: "Role",
  },
  rolebindings: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    resource: "rolebindings",
    namespaced: true,
    kind: "RoleBinding",
  },
  certificatesigningrequests: {
    group: "certificates.k8s.io",
    version: "v1",
    resource: "certificatesigningrequests",
    namespaced: false,
    kind: "CertificateSigningRequest",
  },
  tokenreviews: {
    group: "authentication.k8s.io",
    version: "v1",
    resource: "tokenreviews",
    namespaced: false,
    kind: "TokenReview",
  },
  subjectaccessreviews: {
    group: "authorization.k8s.io",
    version: "v1",
    resource: "subjectaccessreviews",
    namespaced: false,
    kind: "SubjectAccessReview",
  },
  clusterroles: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    resource: "clusterroles",
    namespaced: false,
    kind: "ClusterRole",
  },
  clusterrolebindings: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    resource: "clusterrolebindings",
    namespaced: false,
    kind: "ClusterRoleBinding",
  },
  customresourcedefinitions: {
    group: "apiextensions.k8s.io",
    version: "v1",
    resource: "customresourcedefinitions",
    namespaced: false,
    kind: "CustomResourceDefinition",
  },
  clusters: {
    group: "cluster.karmada.io",
    version: "v1alpha1",
    resource: "clusters",
    namespaced: false,
    kind: "Cluster",
  },
} as const satisfies Record<string, ResourceRef>;
