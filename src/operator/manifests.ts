/**
 * The host-cluster objects of one instance, shaped as karmada-operator's, running this
 * project's image: a local etcd (StatefulSet and Services) when etcd is not external, the
 * API server (Deployment and Service `<name>-apiserver`; it also serves what upstream's
 * aggregated API server, webhook, search and kube-controller-manager do), the controller
 * manager and the scheduler (each with a kubeconfig Secret of its own identity), and
 * PodDisruptionBudgets where asked. `extraArgs` are merged into a container's command as
 * upstream's patcher does: by flag name, then the flags sorted after the binary.
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import {
  type ApiServerSpec,
  type CommonSettings,
  type ComponentSpec,
  instanceNames,
  type KarmadaObject,
  MANAGED_BY,
  OPERATOR,
} from "./karmada.ts";

export const PKI_DIR = "/etc/karmada/pki";
export const ETCD_CLIENT_DIR = "/etc/karmada/pki/etcd-client";
export const API_PORT = 5443;
export const KUBECONFIG_KEY = "karmada.config";
const SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";

type Obj = KubeObject & Record<string, unknown>;

/** Labels of an instance's workload and Service (`managed-by`, `name`, `instance`) and of its pods (`name`, `instance`). */
export function componentLabels(instance: string, component: string) {
  const pod = { "app.kubernetes.io/name": component, "app.kubernetes.io/instance": instance };
  return { pod, object: { ...pod, [MANAGED_BY]: OPERATOR } };
}

/**
 * Upstream's extraArgs patch: every `--k=v` after the binary becomes a map entry, extraArgs
 * override by key, and the command is the binary followed by every flag sorted. Flags without
 * a value are dropped, as upstream drops them.
 */
export function mergeExtraArgs(
  command: readonly string[],
  extraArgs: Record<string, string> | undefined,
): string[] {
  if (!extraArgs || Object.keys(extraArgs).length === 0) return [...command];
  const [binary, ...rest] = command;
  const flags = new Map<string, string>();
  for (const arg of rest) {
    const m = /^--([^=]+)=(.*)$/s.exec(arg);
    if (m) flags.set(m[1]!, m[2]!);
  }
  for (const [k, v] of Object.entries(extraArgs)) flags.set(k.replace(/^-+/, ""), v);
  return [binary!, ...[...flags].map(([k, v]) => `--${k}=${v}`).sort()];
}

/** CommonSettings applied to a pod template and its workload, in upstream's patcher order. */
function patchWorkload(
  workload: Obj,
  settings: CommonSettings,
  container: Record<string, unknown>,
  extraArgs?: Record<string, string>,
): Obj {
  const meta = workload.metadata as { labels?: Record<string, string>; annotations?: Record<string, string> };
  const spec = workload.spec as {
    template: { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  };
  const tpl = spec.template;
  if (settings.labels) {
    meta.labels = { ...meta.labels, ...settings.labels };
    tpl.metadata.labels = { ...(tpl.metadata.labels as object), ...settings.labels };
  }
  if (settings.annotations) {
    meta.annotations = { ...meta.annotations, ...settings.annotations };
    tpl.metadata.annotations = { ...(tpl.metadata.annotations as object), ...settings.annotations };
  }
  tpl.spec.priorityClassName = settings.priorityClassName ?? "";
  if (settings.tolerations?.length) tpl.spec.tolerations = settings.tolerations;
  if (settings.affinity) tpl.spec.affinity = settings.affinity;
  if (settings.resources && Object.keys(settings.resources).length > 0)
    container.resources = settings.resources;
  container.command = mergeExtraArgs(container.command as string[], extraArgs);
  return workload;
}

function deployment(
  karmada: KarmadaObject,
  name: string,
  component: string,
  replicas: number,
  podSpec: Record<string, unknown>,
): Obj {
  const labels = componentLabels(karmada.metadata.name, component);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: karmada.metadata.namespace, labels: labels.object },
    spec: {
      replicas,
      selector: { matchLabels: labels.pod },
      template: { metadata: { labels: labels.pod }, spec: podSpec },
    },
  };
}

function etcdFlags(karmada: KarmadaObject): string[] {
  const names = instanceNames(karmada.metadata.name);
  const external = karmada.spec?.components?.etcd?.external;
  if (external) {
    return [
      `--etcd-cafile=${ETCD_CLIENT_DIR}/ca.crt`,
      `--etcd-certfile=${ETCD_CLIENT_DIR}/tls.crt`,
      `--etcd-keyfile=${ETCD_CLIENT_DIR}/tls.key`,
      `--etcd-servers=${(external.endpoints ?? []).join(",")}`,
    ];
  }
  return [
    `--etcd-cafile=${ETCD_CLIENT_DIR}/etcd-ca.crt`,
    `--etcd-certfile=${ETCD_CLIENT_DIR}/etcd-client.crt`,
    `--etcd-keyfile=${ETCD_CLIENT_DIR}/etcd-client.key`,
    `--etcd-servers=https://${names.etcdClient}.${karmada.metadata.namespace}.svc.cluster.local:2379`,
  ];
}

/** The API server: `karmada-apiserver` of our image on the instance's etcd, with upstream's cert paths. */
export function apiServerDeployment(karmada: KarmadaObject, image: string): Obj {
  const names = instanceNames(karmada.metadata.name);
  const spec = (karmada.spec?.components?.karmadaAPIServer ?? {}) as ApiServerSpec;
  const etcdSecret = karmada.spec?.components?.etcd?.external?.secretRef?.name ?? names.etcdCert;
  const command = [
    "/bin/karmada-apiserver",
    "--bind-address=0.0.0.0",
    `--secure-port=${API_PORT}`,
    `--client-ca-file=${PKI_DIR}/ca.crt`,
    `--tls-cert-file=${PKI_DIR}/apiserver.crt`,
    `--tls-private-key-file=${PKI_DIR}/apiserver.key`,
    `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
    `--service-account-key-file=${PKI_DIR}/karmada.key`,
    `--service-account-signing-key-file=${PKI_DIR}/karmada.key`,
    `--cluster-signing-cert-file=${PKI_DIR}/ca.crt`,
    `--cluster-signing-key-file=${PKI_DIR}/ca.key`,
    "--enable-bootstrap-token-auth=true",
    "--authorization-mode=RBAC",
    "--max-requests-inflight=1500",
    "--max-mutating-requests-inflight=500",
    ...etcdFlags(karmada),
  ];
  const container: Record<string, unknown> = {
    name: "kube-apiserver",
    image,
    imagePullPolicy: spec.imagePullPolicy ?? "IfNotPresent",
    command,
    ports: [{ name: "http", containerPort: API_PORT, protocol: "TCP" }],
    livenessProbe: {
      httpGet: { path: "/livez", port: API_PORT, scheme: "HTTPS" },
      failureThreshold: 8,
      initialDelaySeconds: 10,
      periodSeconds: 10,
      timeoutSeconds: 15,
    },
    readinessProbe: {
      httpGet: { path: "/readyz", port: API_PORT, scheme: "HTTPS" },
      failureThreshold: 3,
      periodSeconds: 1,
      timeoutSeconds: 15,
    },
    volumeMounts: [
      { name: "apiserver-cert", mountPath: PKI_DIR, readOnly: true },
      { name: "etcd-client-cert", mountPath: ETCD_CLIENT_DIR, readOnly: true },
      ...(spec.extraVolumeMounts ?? []),
    ],
  };
  const labels = componentLabels(karmada.metadata.name, "karmada-apiserver");
  const workload = deployment(karmada, names.apiserver, "karmada-apiserver", spec.replicas ?? 1, {
    automountServiceAccountToken: false,
    containers: [container, ...(spec.sidecarContainers ?? [])],
    volumes: [
      { name: "apiserver-cert", secret: { secretName: names.cert } },
      { name: "etcd-client-cert", secret: { secretName: etcdSecret } },
      ...(spec.extraVolumes ?? []),
    ],
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: labels.pod }, topologyKey: "kubernetes.io/hostname" },
        ],
      },
    },
  });
  return patchWorkload(workload, spec, container, spec.extraArgs);
}

/** Service `<name>-apiserver`: port `client` 5443, of the type the spec asks. */
export function apiServerService(karmada: KarmadaObject): Obj {
  const names = instanceNames(karmada.metadata.name);
  const spec = (karmada.spec?.components?.karmadaAPIServer ?? {}) as ApiServerSpec;
  const labels = componentLabels(karmada.metadata.name, "karmada-apiserver");
  const type = spec.serviceType ?? "ClusterIP";
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: names.apiserver,
      namespace: karmada.metadata.namespace,
      labels: labels.object,
      ...(spec.serviceAnnotations ? { annotations: spec.serviceAnnotations } : {}),
    },
    spec: {
      type,
      selector: labels.pod,
      ports: [{ name: "client", port: API_PORT, protocol: "TCP", targetPort: API_PORT }],
      ...(type === "LoadBalancer" && spec.loadBalancerClass
        ? { loadBalancerClass: spec.loadBalancerClass }
        : {}),
    },
  };
}

/** The controller manager or the scheduler: our image, its own kubeconfig Secret, leader-elected, health on its upstream port. */
export function componentDeployment(
  karmada: KarmadaObject,
  image: string,
  which: "controller-manager" | "scheduler",
): Obj {
  const names = instanceNames(karmada.metadata.name);
  const name = which === "scheduler" ? names.scheduler : names.controllerManager;
  const spec = ((which === "scheduler"
    ? karmada.spec?.components?.karmadaScheduler
    : karmada.spec?.components?.karmadaControllerManager) ?? {}) as ComponentSpec;
  const healthPort = which === "scheduler" ? 10351 : 10357;
  const container: Record<string, unknown> = {
    name: `karmada-${which}`,
    image,
    imagePullPolicy: spec.imagePullPolicy ?? "IfNotPresent",
    command: [
      `/bin/karmada-${which}`,
      `--kubeconfig=/etc/karmada/config/${KUBECONFIG_KEY}`,
      `--health-probe-bind-address=0.0.0.0:${healthPort}`,
      "--metrics-bind-address=:8080",
      "--leader-elect=true",
      "--leader-elect-resource-namespace=karmada-system",
      ...(karmada.spec?.featureGates && Object.keys(karmada.spec.featureGates).length > 0
        ? [
            `--feature-gates=${Object.entries(karmada.spec.featureGates)
              .map(([k, v]) => `${k}=${v}`)
              .sort()
              .join(",")}`,
          ]
        : []),
    ],
    livenessProbe: {
      httpGet: { path: "/healthz", port: healthPort, scheme: "HTTP" },
      failureThreshold: 3,
      initialDelaySeconds: 15,
      periodSeconds: 15,
      timeoutSeconds: 5,
    },
    volumeMounts: [{ name: "karmada-config", mountPath: "/etc/karmada/config", readOnly: true }],
  };
  const workload = deployment(karmada, name, `karmada-${which}`, spec.replicas ?? 1, {
    automountServiceAccountToken: false,
    containers: [container],
    volumes: [{ name: "karmada-config", secret: { secretName: `${name}-config` } }],
  });
  return patchWorkload(workload, spec, container, spec.extraArgs);
}

/** A local etcd: StatefulSet and headless Service `<name>-etcd`, client Service `<name>-etcd-client`. */
export function localEtcd(karmada: KarmadaObject): Obj[] {
  const names = instanceNames(karmada.metadata.name);
  const ns = karmada.metadata.namespace;
  const local = karmada.spec?.components?.etcd?.local;
  if (!local) return [];
  const replicas = local.replicas ?? 1;
  const labels = componentLabels(karmada.metadata.name, "etcd");
  const peer = (i: number) => `${names.etcd}-${i}.${names.etcd}.${ns}.svc.cluster.local`;
  const initialCluster = Array.from(
    { length: replicas },
    (_, i) => `${names.etcd}-${i}=http://${peer(i)}:2380`,
  );
  const container: Record<string, unknown> = {
    name: "etcd",
    image: `${local.imageRepository}:${local.imageTag}`,
    imagePullPolicy: local.imagePullPolicy ?? "IfNotPresent",
    command: [
      "/usr/local/bin/etcd",
      "--name=$(POD_NAME)",
      "--listen-client-urls=https://0.0.0.0:2379",
      `--advertise-client-urls=https://$(POD_NAME).${names.etcd}.${ns}.svc.cluster.local:2379`,
      "--listen-peer-urls=http://0.0.0.0:2380",
      `--initial-advertise-peer-urls=http://$(POD_NAME).${names.etcd}.${ns}.svc.cluster.local:2380`,
      `--initial-cluster=${initialCluster.join(",")}`,
      "--initial-cluster-state=new",
      "--initial-cluster-token=etcd-cluster",
      "--data-dir=/var/lib/etcd",
      "--cert-file=/etc/karmada/pki/etcd/etcd-server.crt",
      "--key-file=/etc/karmada/pki/etcd/etcd-server.key",
      "--trusted-ca-file=/etc/karmada/pki/etcd/etcd-ca.crt",
      "--client-cert-auth=true",
      "--listen-metrics-urls=http://0.0.0.0:2381",
    ],
    env: [{ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
    ports: [
      { name: "client", containerPort: 2379, protocol: "TCP" },
      { name: "server", containerPort: 2380, protocol: "TCP" },
      { name: "metrics", containerPort: 2381, protocol: "TCP" },
    ],
    livenessProbe: {
      httpGet: { path: "/health", port: 2381, scheme: "HTTP" },
      failureThreshold: 3,
      initialDelaySeconds: 10,
      periodSeconds: 10,
      timeoutSeconds: 15,
    },
    volumeMounts: [
      { name: "etcd-data", mountPath: "/var/lib/etcd" },
      { name: "etcd-cert", mountPath: "/etc/karmada/pki/etcd", readOnly: true },
    ],
  };
  const data = local.volumeData ?? {};
  const volumes: Array<Record<string, unknown>> = [
    { name: "etcd-cert", secret: { secretName: names.etcdCert } },
  ];
  if (data.hostPath) volumes.push({ name: "etcd-data", hostPath: data.hostPath });
  else if (!data.volumeClaim) volumes.push({ name: "etcd-data", emptyDir: data.emptyDir ?? {} });
  const statefulSet: Obj = {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: names.etcd, namespace: ns, labels: labels.object },
    spec: {
      replicas,
      serviceName: names.etcd,
      podManagementPolicy: "Parallel",
      selector: { matchLabels: labels.pod },
      template: {
        metadata: { labels: labels.pod },
        spec: { automountServiceAccountToken: false, containers: [container], volumes },
      },
      ...(data.volumeClaim
        ? {
            volumeClaimTemplates: [
              {
                metadata: { ...data.volumeClaim.metadata, name: "etcd-data" },
                spec: data.volumeClaim.spec ?? {},
              },
            ],
          }
        : {}),
    },
  };
  patchWorkload(statefulSet, local, container);
  const service = (name: string, headless: boolean): Obj => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: ns, labels: labels.object },
    spec: {
      ...(headless ? { clusterIP: "None" } : { type: "ClusterIP" }),
      selector: labels.pod,
      ports: [
        { name: "client", port: 2379, protocol: "TCP", targetPort: 2379 },
        ...(headless ? [{ name: "server", port: 2380, protocol: "TCP", targetPort: 2380 }] : []),
      ],
    },
  });
  return [statefulSet, service(names.etcd, true), service(names.etcdClient, false)];
}

/**
 * The PodDisruptionBudget of a workload when its settings ask for one: same name, the pod
 * labels as its labels and selector, owned by the workload (so it goes with it).
 */
export function podDisruptionBudget(
  workload: StoredObject,
  settings: CommonSettings | undefined,
): Obj | undefined {
  const pdb = settings?.podDisruptionBudgetConfig;
  if (!pdb) return undefined;
  const tpl = (workload.spec as { template: { metadata: { labels: Record<string, string> } } }).template;
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: {
      name: workload.metadata.name,
      namespace: workload.metadata.namespace!,
      labels: tpl.metadata.labels,
      ownerReferences: [
        {
          apiVersion: workload.apiVersion,
          kind: workload.kind,
          name: workload.metadata.name,
          uid: workload.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      selector: { matchLabels: tpl.metadata.labels },
      ...(pdb.minAvailable !== undefined ? { minAvailable: pdb.minAvailable } : {}),
      ...(pdb.maxUnavailable !== undefined ? { maxUnavailable: pdb.maxUnavailable } : {}),
    },
  };
}

/** A Secret of the instance's, labelled as the operator's. */
export function secret(karmada: KarmadaObject, name: string, data: Record<string, string>): Obj {
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: {
      name,
      namespace: karmada.metadata.namespace,
      labels: { [MANAGED_BY]: OPERATOR },
    },
    data,
  };
}
