/**
 * The `karmada` controller of karmada-operator, for this project's image: a `Karmada` object
 * on the host cluster gets the finalizer and upstream's defaults, is validated (a Warning
 * event and Ready=False/ValidationError when not valid), then installed: certificates (from
 * `customCertificate.apiServerCACert` when given), a local etcd or the external one's client
 * Secret, the API server and its Service, the admin kubeconfig Secret, the controller manager
 * and the scheduler with kubeconfigs of their own identities, PodDisruptionBudgets; Ready is
 * `Progressing` until the workloads have ready pods, then `Completed` with `status.secretRef`
 * and `status.apiServerService`, as upstream's status. Deleting the object removes what the
 * operator made (unless `operator.karmada.io/disable-cascading-deletion: "true"`).
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES, type ResourceRef } from "../client/client.ts";
import { renderKubeconfig } from "../client/kubeconfig.ts";
import { CONTROLLER_MANAGER_USER, SCHEDULER_USER } from "../karmada/rbac.ts";
import { isAlreadyExists, isNotFound } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { type CertificateAndKey, issueCertificate } from "../pki/x509.ts";
import { addFinalizer, commit, hasFinalizer, removeFinalizer } from "../runtime/commit.ts";
import {
  type Controller,
  done,
  type ReconcileResult,
  requeueAfter,
  TerminalError,
} from "../runtime/controller.ts";
import type { EventRecorder } from "../runtime/events.ts";
import type { Informer } from "../runtime/informer.ts";
import { parseObjectKey } from "../runtime/keys.ts";
import { instanceCertificates, type Pairs, pairsData, pairsFromData } from "./certs.ts";
import {
  DISABLE_CASCADING_DELETION,
  FINALIZER,
  instanceNames,
  KARMADAS,
  type KarmadaObject,
  MANAGED_BY,
  OPERATOR,
  validateKarmada,
  withDefaults,
} from "./karmada.ts";
import {
  API_PORT,
  apiServerDeployment,
  apiServerService,
  componentDeployment,
  KUBECONFIG_KEY,
  localEtcd,
  podDisruptionBudget,
  secret,
} from "./manifests.ts";

const PDBS: ResourceRef = {
  group: "policy",
  version: "v1",
  resource: "poddisruptionbudgets",
  namespaced: true,
  kind: "PodDisruptionBudget",
};
const FIELD_MANAGER = "karmada-operator";
/** How often an instance whose workloads are not ready yet is looked at again. */
const PROGRESS_RECHECK_MS = 2_000;

export interface OperatorOptions {
  /** The image our components run (`--karmada-image`). */
  image: string;
}

/** Not an error: the instance waits for something on the host (pods, a load balancer's address). */
class NotReadyYet extends Error {}

const condition = (status: "True" | "False", reason: string, message: string) => [
  {
    type: "Ready",
    status,
    reason,
    message,
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  },
];

const b64 = (text: string): string => Buffer.from(text).toString("base64");
const unb64 = (text: string | undefined): string =>
  text ? Buffer.from(text, "base64").toString("utf8") : "";

export function karmadaController(deps: {
  client: Client;
  karmadas: Informer;
  recorder: EventRecorder;
  options: OperatorOptions;
}): Controller {
  const { client } = deps;
  const apply = (res: ResourceRef, obj: KubeObject): Promise<StoredObject> =>
    client.patch(res, obj.metadata?.namespace, obj.metadata?.name ?? "", "apply", obj, {
      fieldManager: FIELD_MANAGER,
      force: true,
    });
  const getOrUndefined = async (res: ResourceRef, ns: string | undefined, name: string) => {
    try {
      return await client.get(res, ns, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };

  /** Commits `status`'s fields over the current ones; the object as written, undefined when it is gone. */
  const commitStatus = async (
    karmada: KarmadaObject,
    status: KarmadaObject["status"],
  ): Promise<KarmadaObject | undefined> => {
    const next = cloneJson(karmada);
    next.status = { ...karmada.status, ...status };
    return (await commit(client, KARMADAS, karmada, next)) as KarmadaObject | undefined;
  };

  /** The user's CA for the API server, from the Secret `customCertificate.apiServerCACert` names. */
  const customCa = async (karmada: KarmadaObject): Promise<CertificateAndKey | undefined> => {
    const ref = karmada.spec?.customCertificate?.apiServerCACert;
    if (!ref?.name) return undefined;
    const ns = ref.namespace || karmada.metadata.namespace;
    const s = await getOrUndefined(RESOURCES.secrets, ns, ref.name);
    const data = (s?.data ?? {}) as Record<string, string>;
    if (!s) throw new Error(`secret ${ns}/${ref.name} (spec.customCertificate.apiServerCACert) not found`);
    if (!data["tls.crt"] || !data["tls.key"])
      throw new Error(`secret ${ns}/${ref.name} is missing required keys: tls.crt and tls.key`);
    return { certPem: unb64(data["tls.crt"]), keyPem: unb64(data["tls.key"]) };
  };

  /** The address of a node for NodePort: a control-plane node's InternalIP, else the first node's. */
  const nodeAddress = async (): Promise<string> => {
    const nodes = (await client.list(RESOURCES.nodes, undefined)).items;
    const control = nodes.find((n) => {
      const labels = n.metadata.labels ?? {};
      return "node-role.kubernetes.io/control-plane" in labels || "node-role.kubernetes.io/master" in labels;
    });
    const node = control ?? nodes[0];
    const addresses = ((node?.status as { addresses?: Array<{ type: string; address: string }> } | undefined)
      ?.addresses ?? []) as Array<{ type: string; address: string }>;
    const address = addresses.find((a) => a.type === "InternalIP") ?? addresses[0];
    if (!address) throw new NotReadyYet("no node of the host cluster has an address yet (for the NodePort)");
    return address.address;
  };

  /** The certificates: kept in `<name>-cert` once made (upstream skips the task when it exists). */
  const certificates = async (karmada: KarmadaObject): Promise<Pairs> => {
    const names = instanceNames(karmada.metadata.name);
    const ns = karmada.metadata.namespace!;
    const existing = await getOrUndefined(RESOURCES.secrets, ns, names.cert);
    if (existing) {
      const pairs = pairsFromData(existing.data as Record<string, string>);
      const etcd = await getOrUndefined(RESOURCES.secrets, ns, names.etcdCert);
      if (etcd && karmada.spec?.components?.etcd?.local)
        Object.assign(pairs, pairsFromData(etcd.data as Record<string, string>));
      if (pairs.ca && pairs.apiserver && pairs.karmada) return pairs;
    }
    const ca = await customCa(karmada);
    const nodeIp =
      karmada.spec?.components?.karmadaAPIServer?.serviceType === "NodePort"
        ? await nodeAddress()
        : undefined;
    return instanceCertificates({
      name: karmada.metadata.name,
      namespace: ns,
      spec: karmada.spec ?? {},
      ...(ca ? { customCa: ca } : {}),
      ...(nodeIp ? { nodeIp } : {}),
    });
  };

  /** Where clients outside the host reach the API server, by Service type, as upstream's kubeconfig names it. */
  const externalServer = async (karmada: KarmadaObject, service: StoredObject): Promise<string> => {
    const names = instanceNames(karmada.metadata.name);
    const spec = service.spec as { type?: string; ports?: Array<{ name?: string; nodePort?: number }> };
    if (spec.type === "NodePort") {
      const port = spec.ports?.find((p) => p.name === "client")?.nodePort;
      if (!port) throw new NotReadyYet(`Service ${names.apiserver} has no node port yet`);
      return `https://${await nodeAddress()}:${port}`;
    }
    if (spec.type === "LoadBalancer") {
      const ingress = (
        service.status as { loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string }> } }
      )?.loadBalancer?.ingress?.[0];
      const host = ingress?.hostname || ingress?.ip;
      if (!host)
        throw new NotReadyYet(
          `waiting for the load balancer of Service ${names.apiserver} to have an address`,
        );
      return `https://${host}:${API_PORT}`;
    }
    return `https://${names.apiserver}.${karmada.metadata.namespace}.svc.cluster.local:${API_PORT}`;
  };

  /** A kubeconfig Secret for `user`, written only when missing or pointing elsewhere (certificates are not remade each pass). */
  const kubeconfigSecret = async (
    karmada: KarmadaObject,
    name: string,
    server: string,
    ca: CertificateAndKey,
    user: { commonName: string; organizations?: string[] },
  ): Promise<void> => {
    const existing = await getOrUndefined(RESOURCES.secrets, karmada.metadata.namespace, name);
    const current = unb64((existing?.data as Record<string, string> | undefined)?.[KUBECONFIG_KEY]);
    if (current.includes(`server: ${server}`) && current.includes(b64(ca.certPem))) return;
    const cert = await issueCertificate(ca, {
      commonName: user.commonName,
      ...(user.organizations ? { organizations: user.organizations } : {}),
      usage: "client",
      notAfter: new Date(Date.now() + 365 * 86_400_000),
    });
    const text = renderKubeconfig({
      clusters: [{ name: "karmada-apiserver", server, caData: ca.certPem }],
      users: [{ name: "karmada-admin", certData: cert.certPem, keyData: cert.keyPem }],
      contexts: [
        { name: "karmada-admin@karmada-apiserver", cluster: "karmada-apiserver", user: "karmada-admin" },
      ],
      currentContext: "karmada-admin@karmada-apiserver",
    });
    await apply(RESOURCES.secrets, secret(karmada, name, { [KUBECONFIG_KEY]: b64(text) }));
  };

  /** Applies a workload and its PodDisruptionBudget (or removes the budget when none is asked). */
  const applyWorkload = async (
    res: ResourceRef,
    workload: KubeObject,
    settings: Parameters<typeof podDisruptionBudget>[1],
  ): Promise<StoredObject> => {
    const applied = await apply(res, workload);
    const pdb = podDisruptionBudget(applied, settings);
    if (pdb) await apply(PDBS, pdb);
    else
      await client.delete(PDBS, applied.metadata.namespace, applied.metadata.name).catch((err) => {
        if (!isNotFound(err)) throw err;
      });
    return applied;
  };

  const ready = (workload: StoredObject): boolean =>
    ((workload.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0) >= 1;

  /** Upstream's init workflow, for our image. Throws NotReadyYet while the host is still bringing things up. */
  const install = async (karmada: KarmadaObject): Promise<void> => {
    const names = instanceNames(karmada.metadata.name);
    const ns = karmada.metadata.namespace!;
    const spec = karmada.spec ?? {};
    if (spec.hostCluster?.secretRef?.name)
      throw new Error(
        "spec.hostCluster.secretRef: installing into a remote host cluster is not supported by this operator; run it with --kubeconfig of that cluster instead",
      );
    const pairs = await certificates(karmada);
    const local = !!spec.components?.etcd?.local;
    await apply(
      RESOURCES.secrets,
      secret(
        karmada,
        names.cert,
        pairsData(pairs, [
          "ca",
          "apiserver",
          "karmada",
          ...(local ? ["etcd-ca", "etcd-server", "etcd-client"] : []),
        ]),
      ),
    );
    const workloads: StoredObject[] = [];
    if (local) {
      await apply(
        RESOURCES.secrets,
        secret(karmada, names.etcdCert, pairsData(pairs, ["etcd-ca", "etcd-server", "etcd-client"])),
      );
      const [statefulSet, ...services] = localEtcd(karmada);
      for (const s of services) await apply(RESOURCES.services, s!);
      workloads.push(await applyWorkload(RESOURCES.statefulsets, statefulSet!, spec.components?.etcd?.local));
    } else {
      const ref = spec.components?.etcd?.external?.secretRef;
      const s = await getOrUndefined(RESOURCES.secrets, ns, ref?.name ?? names.etcdCert);
      const data = (s?.data ?? {}) as Record<string, string>;
      const missing = ["ca.crt", "tls.crt", "tls.key"].filter((k) => !data[k]);
      if (!s || missing.length > 0)
        throw new Error(
          `external etcd client secret ${ns}/${ref?.name}: ${s ? `missing keys ${missing.join(", ")}` : "not found"} (it must hold ca.crt, tls.crt and tls.key)`,
        );
    }
    const image = deps.options.image;
    workloads.push(
      await applyWorkload(
        RESOURCES.deployments,
        apiServerDeployment(karmada, image),
        spec.components?.karmadaAPIServer,
      ),
    );
    const service = await apply(RESOURCES.services, apiServerService(karmada));
    await kubeconfigSecret(karmada, names.adminConfig, await externalServer(karmada, service), pairs.ca!, {
      commonName: "system:admin",
      organizations: ["system:masters"],
    });
    // The components run beside the API server: the Service's cluster-local name, each as its own user.
    const inCluster = `https://${names.apiserver}.${ns}.svc.cluster.local:${API_PORT}`;
    await kubeconfigSecret(karmada, `${names.controllerManager}-config`, inCluster, pairs.ca!, {
      commonName: CONTROLLER_MANAGER_USER,
    });
    await kubeconfigSecret(karmada, `${names.scheduler}-config`, inCluster, pairs.ca!, {
      commonName: SCHEDULER_USER,
    });
    workloads.push(
      await applyWorkload(
        RESOURCES.deployments,
        componentDeployment(karmada, image, "controller-manager"),
        spec.components?.karmadaControllerManager,
      ),
      await applyWorkload(
        RESOURCES.deployments,
        componentDeployment(karmada, image, "scheduler"),
        spec.components?.karmadaScheduler,
      ),
    );
    const waiting = workloads.filter((w) => !ready(w)).map((w) => `${w.kind} ${w.metadata.name}`);
    if (waiting.length > 0) throw new NotReadyYet(`waiting for ready pods of ${waiting.join(", ")}`);
  };

  /** Upstream's deinit: what the operator made (labelled managed-by karmada-operator) goes; a user's external etcd Secret stays. */
  const uninstall = async (karmada: KarmadaObject): Promise<void> => {
    const names = instanceNames(karmada.metadata.name);
    const ns = karmada.metadata.namespace;
    const local = !!karmada.spec?.components?.etcd?.local;
    const targets: Array<[ResourceRef, string]> = [
      [RESOURCES.deployments, names.scheduler],
      [RESOURCES.deployments, names.controllerManager],
      [RESOURCES.deployments, names.apiserver],
      [RESOURCES.services, names.apiserver],
      ...(local
        ? ([
            [RESOURCES.statefulsets, names.etcd],
            [RESOURCES.services, names.etcd],
            [RESOURCES.services, names.etcdClient],
            [RESOURCES.secrets, names.etcdCert],
          ] as Array<[ResourceRef, string]>)
        : []),
      [RESOURCES.secrets, names.cert],
      [RESOURCES.secrets, names.adminConfig],
      [RESOURCES.secrets, `${names.controllerManager}-config`],
      [RESOURCES.secrets, `${names.scheduler}-config`],
    ];
    for (const [res, name] of targets) {
      const obj = await getOrUndefined(res, ns, name);
      if (obj?.metadata.labels?.[MANAGED_BY] !== OPERATOR) continue;
      await client.delete(res, ns, name).catch((err) => {
        if (!isNotFound(err)) throw err;
      });
    }
  };

  /** Commits the finalizer, the cascading-deletion label and the defaults; the object as written. */
  const prepare = async (karmada: KarmadaObject): Promise<KarmadaObject | undefined> => {
    const next = cloneJson(karmada);
    addFinalizer(next, FINALIZER);
    next.metadata.labels = { ...next.metadata.labels };
    next.metadata.labels[DISABLE_CASCADING_DELETION] ??= "false";
    next.spec = withDefaults(next.spec);
    return (await commit(client, KARMADAS, karmada, next, { fieldManager: FIELD_MANAGER })) as
      | KarmadaObject
      | undefined;
  };

  return {
    name: "karmada",
    for: deps.karmadas,
    // Upstream's predicate: a spec change or a deletion; our own status and metadata writes are not.
    updateFilter: (old, obj) =>
      old.metadata.generation !== obj.metadata.generation ||
      (!old.metadata.deletionTimestamp && !!obj.metadata.deletionTimestamp),
    workers: 5,
    async reconcile(ctx, key): Promise<ReconcileResult> {
      const { namespace, name } = parseObjectKey(key);
      const karmada = deps.karmadas.get(namespace, name) as KarmadaObject | undefined;
      if (!karmada || karmada.spec?.suspend) return done;
      if (karmada.metadata.deletionTimestamp) {
        if (!hasFinalizer(karmada, FINALIZER)) return done;
        const cascade = karmada.metadata.labels?.[DISABLE_CASCADING_DELETION];
        if (cascade === undefined || cascade === "false") await uninstall(karmada);
        const next = cloneJson(karmada);
        removeFinalizer(next, FINALIZER);
        await commit(client, KARMADAS, karmada, next, { fieldManager: FIELD_MANAGER });
        ctx.log.info("karmada instance removed");
        return done;
      }
      let current = await prepare(karmada);
      // A new spec (the defaults) comes back as a new generation, which is reconciled then.
      if (!current || current.metadata.generation !== karmada.metadata.generation) return done;
      const errors = validateKarmada(current);
      if (errors.length > 0) {
        const message = `validation errors: [${errors.join(", ")}]`;
        deps.recorder.event(current, "Warning", "ValidationError", message);
        await commitStatus(current, { conditions: condition("False", "ValidationError", message) });
        // Reported as the Ready condition and an event; only a new spec can help.
        throw new TerminalError(message);
      }
      const ready = current.status?.conditions?.find((c) => c.type === "Ready");
      if (ready?.reason !== "Progressing") {
        current = await commitStatus(current, {
          conditions: condition("False", "Progressing", "karmada init job is in progressing"),
        });
        if (!current) return done;
      }
      try {
        await install(current);
      } catch (err) {
        if (err instanceof NotReadyYet) {
          ctx.log.debug("not ready yet", { why: err.message });
          return requeueAfter(PROGRESS_RECHECK_MS);
        }
        if (isAlreadyExists(err)) throw err;
        await commitStatus(current, { conditions: condition("False", "Failed", (err as Error).message) });
        throw err;
      }
      const names = instanceNames(name);
      await commitStatus(current, {
        conditions: condition("True", "Completed", "karmada init job is completed"),
        secretRef: { namespace: namespace!, name: names.adminConfig },
        apiServerService: { name: names.apiserver },
      });
      deps.recorder.event(current, "Normal", "Completed", "karmada init job is completed");
      return done;
    },
  };
}
