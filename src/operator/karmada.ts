/**
 * Upstream karmada-operator's `operator.karmada.io/v1alpha1` `Karmada`: the fields we read,
 * the names its objects get on the host cluster, the defaults the operator writes back, and
 * the checks it makes before installing (its "simulated validating webhook", plus the
 * PodDisruptionBudget rules the CRD states in CEL, for host API servers that do not evaluate them).
 */
import type { StoredObject } from "../api/meta.ts";
import type { ResourceRef } from "../client/client.ts";
import { cloneJson } from "../machinery/merge-patch.ts";

export const KARMADAS: ResourceRef = {
  group: "operator.karmada.io",
  version: "v1alpha1",
  resource: "karmadas",
  namespaced: true,
  kind: "Karmada",
};

export const FINALIZER = "operator.karmada.io/finalizer";
export const DISABLE_CASCADING_DELETION = "operator.karmada.io/disable-cascading-deletion";
export const MANAGED_BY = "app.kubernetes.io/managed-by";
export const OPERATOR = "karmada-operator";

export interface SecretRef {
  namespace?: string;
  name?: string;
}

export interface PdbConfig {
  minAvailable?: number | string;
  maxUnavailable?: number | string;
}

/** Upstream's CommonSettings, inlined into every component. */
export interface CommonSettings {
  imageRepository?: string;
  imageTag?: string;
  imagePullPolicy?: string;
  replicas?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resources?: Record<string, unknown>;
  priorityClassName?: string;
  podDisruptionBudgetConfig?: PdbConfig;
  tolerations?: unknown[];
  affinity?: Record<string, unknown>;
}

export interface ComponentSpec extends CommonSettings {
  extraArgs?: Record<string, string>;
}

export interface ApiServerSpec extends ComponentSpec {
  serviceSubnet?: string;
  serviceType?: string;
  loadBalancerClass?: string;
  serviceAnnotations?: Record<string, string>;
  extraVolumes?: Array<Record<string, unknown>>;
  extraVolumeMounts?: Array<Record<string, unknown>>;
  certSANs?: string[];
  sidecarContainers?: Array<Record<string, unknown>>;
}

export interface LocalEtcdSpec extends CommonSettings {
  volumeData?: {
    volumeClaim?: { metadata?: { name?: string }; spec?: Record<string, unknown> };
    hostPath?: Record<string, unknown>;
    emptyDir?: Record<string, unknown>;
  };
  serverCertSANs?: string[];
}

export interface KarmadaSpec {
  hostCluster?: { apiEndpoint?: string; secretRef?: SecretRef; networking?: { dnsDomain?: string } };
  privateRegistry?: { registry: string };
  featureGates?: Record<string, boolean>;
  crdTarball?: { httpSource?: { url?: string; proxy?: { proxyURL?: string } }; crdDownloadPolicy?: string };
  customCertificate?: { apiServerCACert?: SecretRef; leafCertValidityDays?: number };
  suspend?: boolean;
  components?: {
    etcd?: { local?: LocalEtcdSpec; external?: { endpoints?: string[]; secretRef?: SecretRef } };
    karmadaAPIServer?: ApiServerSpec;
    karmadaAggregatedAPIServer?: ComponentSpec;
    kubeControllerManager?: ComponentSpec;
    karmadaControllerManager?: ComponentSpec;
    karmadaScheduler?: ComponentSpec;
    karmadaWebhook?: ComponentSpec;
    karmadaDescheduler?: ComponentSpec;
    karmadaSearch?: ComponentSpec;
    karmadaMetricsAdapter?: ComponentSpec;
  };
}

/** A stored Karmada: namespaced, so its name and namespace are always there. */
export interface KarmadaObject extends StoredObject {
  metadata: StoredObject["metadata"] & { name: string; namespace: string };
  spec?: KarmadaSpec;
  status?: {
    conditions?: Array<Record<string, unknown>>;
    secretRef?: SecretRef;
    apiServerService?: { name: string };
  };
}

/**
 * Upstream's generateResourceName: `<name>-<suffix>` when the instance's name contains
 * "karmada", else `<name>-karmada-<suffix>` (`karmada-demo-apiserver`, `foo-karmada-apiserver`).
 */
export function resourceName(instance: string, suffix: string): string {
  return instance.includes("karmada") ? `${instance}-${suffix}` : `${instance}-karmada-${suffix}`;
}

/** The objects one instance owns on the host cluster, by upstream's suffixes. */
export function instanceNames(instance: string) {
  const n = (suffix: string) => resourceName(instance, suffix);
  return {
    adminConfig: n("admin-config"),
    cert: n("cert"),
    etcdCert: n("etcd-cert"),
    etcd: n("etcd"),
    etcdClient: n("etcd-client"),
    apiserver: n("apiserver"),
    controllerManager: n("controller-manager"),
    scheduler: n("scheduler"),
  };
}

const ETCD_IMAGE = { imageRepository: "registry.k8s.io/etcd", imageTag: "3.6.8-0" };
const KUBE_VERSION = "v1.36.2";
/** The upstream release whose images the defaults name (they are upstream's, written back as upstream writes them). */
const KARMADA_VERSION = "v1.16.0";

function defaultComponent<T extends CommonSettings>(
  current: T | undefined,
  image: { imageRepository: string; imageTag: string },
  replicas = 1,
): T {
  const c = { ...(current ?? ({} as T)) };
  c.imageRepository ||= image.imageRepository;
  c.imageTag ||= image.imageTag;
  c.imagePullPolicy ||= "IfNotPresent";
  c.replicas ??= replicas;
  // Upstream's CRD defaults it (the operator's defaults do not); the same here with any CRD.
  c.priorityClassName ??= "system-node-critical";
  return c;
}

const karmadaImage = (name: string) => ({
  imageRepository: `docker.io/karmada/${name}`,
  imageTag: KARMADA_VERSION,
});

/**
 * Upstream's SetDefaults_Karmada, as the operator applies it before it writes the spec back:
 * hostCluster networking, a local etcd with an emptyDir when no etcd is external, every
 * always-installed component with its image and replicas; search and descheduler only when
 * present. Returns a new spec.
 */
export function withDefaults(spec: KarmadaSpec | undefined): KarmadaSpec {
  const s: KarmadaSpec = cloneJson(spec ?? {});
  s.hostCluster ??= {};
  s.hostCluster.networking ??= {};
  s.hostCluster.networking.dnsDomain ||= "cluster.local";
  s.components ??= {};
  const c = s.components;
  c.etcd ??= {};
  if (!c.etcd.external) {
    const local = defaultComponent(c.etcd.local, ETCD_IMAGE);
    const data = local.volumeData;
    if (!data?.emptyDir && !data?.hostPath && !data?.volumeClaim)
      local.volumeData = { ...data, emptyDir: {} };
    c.etcd.local = local;
  }
  const api = defaultComponent(c.karmadaAPIServer, {
    imageRepository: "registry.k8s.io/kube-apiserver",
    imageTag: KUBE_VERSION,
  });
  api.serviceSubnet ||= "10.96.0.0/12";
  api.serviceType ||= "ClusterIP";
  c.karmadaAPIServer = api;
  c.kubeControllerManager = defaultComponent(c.kubeControllerManager, {
    imageRepository: "registry.k8s.io/kube-controller-manager",
    imageTag: KUBE_VERSION,
  });
  c.karmadaAggregatedAPIServer = defaultComponent(
    c.karmadaAggregatedAPIServer,
    karmadaImage("karmada-aggregated-apiserver"),
  );
  c.karmadaControllerManager = defaultComponent(
    c.karmadaControllerManager,
    karmadaImage("karmada-controller-manager"),
  );
  c.karmadaScheduler = defaultComponent(c.karmadaScheduler, karmadaImage("karmada-scheduler"));
  c.karmadaWebhook = defaultComponent(c.karmadaWebhook, karmadaImage("karmada-webhook"));
  c.karmadaMetricsAdapter = defaultComponent(
    c.karmadaMetricsAdapter,
    karmadaImage("karmada-metrics-adapter"),
    2,
  );
  if (c.karmadaSearch) c.karmadaSearch = defaultComponent(c.karmadaSearch, karmadaImage("karmada-search"));
  if (c.karmadaDescheduler)
    c.karmadaDescheduler = defaultComponent(c.karmadaDescheduler, karmadaImage("karmada-descheduler"));
  return s;
}

/** A field error as apimachinery's field.Error prints it. */
function invalid(path: string, value: unknown, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(value ?? null)}: ${detail}`;
}

function validUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol !== "" && (u.host !== "" || u.pathname.startsWith("/"));
  } catch {
    return false;
  }
}

/** Whether the host cluster is the one the operator runs on (no `hostCluster.secretRef.name`). */
export function inCluster(spec: KarmadaSpec): boolean {
  return !spec.hostCluster?.secretRef?.name;
}

const SERVICE_TYPES = ["ClusterIP", "NodePort", "LoadBalancer"];
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The PodDisruptionBudget settings of each component, with their paths. */
function pdbConfigs(spec: KarmadaSpec): Array<[string, PdbConfig]> {
  const out: Array<[string, PdbConfig]> = [];
  const c = spec.components ?? {};
  if (c.etcd?.local?.podDisruptionBudgetConfig)
    out.push([
      "spec.components.etcd.local.podDisruptionBudgetConfig",
      c.etcd.local.podDisruptionBudgetConfig,
    ]);
  for (const [name, component] of Object.entries(c)) {
    if (name === "etcd") continue;
    const pdb = (component as CommonSettings | undefined)?.podDisruptionBudgetConfig;
    if (pdb) out.push([`spec.components.${name}.podDisruptionBudgetConfig`, pdb]);
  }
  return out;
}

/**
 * Upstream's validate(): the CRD tarball URLs, the API server's Service type, an etcd that is
 * local or external, an external etcd's client Secret named `<etcd-cert>` as the operator
 * mounts it; and the CRD's CEL rules on podDisruptionBudgetConfig. Empty when valid.
 */
export function validateKarmada(karmada: KarmadaObject): string[] {
  const spec = karmada.spec ?? {};
  const errs: string[] = [];
  const http = spec.crdTarball?.httpSource;
  if (http?.url !== undefined && !validUrl(http.url))
    errs.push(invalid("spec.crdTarball.httpSource.url", http.url, "invalid CRDs remote URL"));
  if (http?.proxy?.proxyURL !== undefined && !validUrl(http.proxy.proxyURL))
    errs.push(
      invalid("spec.crdTarball.httpSource.proxy.proxyURL", http.proxy.proxyURL, "invalid CRDs proxy URL"),
    );
  const api = spec.components?.karmadaAPIServer;
  if (api?.serviceType !== undefined) {
    const path = "spec.components.karmadaAPIServer.serviceType";
    if (!SERVICE_TYPES.includes(api.serviceType)) {
      errs.push(invalid(path, api.serviceType, "unsupported service type for Karmada API server"));
    } else if (api.serviceType === "ClusterIP" && !inCluster(spec)) {
      errs.push(
        invalid(
          path,
          api.serviceType,
          "if karmada is installed in a remote cluster, the service type of karmada-apiserver must be either NodePort or LoadBalancer",
        ),
      );
    }
    if (api.serviceType === "LoadBalancer" && api.loadBalancerClass && !DNS_LABEL.test(api.loadBalancerClass))
      errs.push(
        invalid(
          "spec.components.karmadaAPIServer.loadBalancerClass",
          api.loadBalancerClass,
          "must be a DNS-1123 label",
        ),
      );
  }
  const etcd = spec.components?.etcd;
  if (!etcd || (!etcd.local && !etcd.external)) {
    errs.push(invalid("spec.components.etcd", etcd, "unexpected empty etcd configuration"));
  } else if (etcd.external) {
    const want = instanceNames(karmada.metadata.name).etcdCert;
    if (etcd.external.secretRef?.name !== want)
      errs.push(
        invalid(
          "spec.components.etcd.external.secretRef.name",
          etcd.external.secretRef?.name,
          `secret name for external etcd client must be ${want}`,
        ),
      );
    if (!etcd.external.endpoints?.length)
      errs.push(`spec.components.etcd.external.endpoints: Required value`);
  }
  for (const [path, pdb] of pdbConfigs(spec)) {
    const min = pdb.minAvailable !== undefined;
    const max = pdb.maxUnavailable !== undefined;
    if (!min && !max) errs.push(invalid(path, pdb, "either minAvailable or maxUnavailable must be set"));
    if (min && max) errs.push(invalid(path, pdb, "minAvailable and maxUnavailable are mutually exclusive"));
  }
  return errs;
}
