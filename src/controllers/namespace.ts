/**
 * Namespace auto-propagation (upstream's namespace-sync-controller): every Namespace of the
 * control plane goes to every cluster, without a policy, as a Work owned by the Namespace;
 * except reserved ones, `default`, `kube-*`, and those labelled
 * `namespace.karmada.io/skip-auto-propagation: "true"`. Only ClusterOverridePolicies apply.
 */
import { randomUUID } from "node:crypto";
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { ANNOTATION, executionSpace, isReservedNamespace, LABEL, workName } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { ClusterObject, OverrideSpec } from "../karmada/types.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { appliedOverridesAnnotation, applyOverrides } from "../overrides/index.ts";
import { type Controller, done, type ReconcileResult } from "../runtime/controller.ts";
import { parseObjectKey } from "../runtime/keys.ts";
import type { ControllerContext } from "./context.ts";
import { createOrUpdateWork, workManifest } from "./work.ts";

const SKIPPED = /^kube-.*$/;

export function shouldPropagateNamespace(ns: StoredObject): boolean {
  const name = ns.metadata.name;
  if (isReservedNamespace(name) || name === "default" || SKIPPED.test(name)) return false;
  return ns.metadata.labels?.[LABEL.skipAutoPropagation]?.toLowerCase() !== "true";
}

export function namespaceController(ctx: ControllerContext): Controller {
  const namespaces = ctx.informers.informer(RESOURCES.namespaces);
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const works = ctx.informers.informer(KARMADA.works);
  const cops = ctx.informers.informer(KARMADA.clusterOverridePolicies);

  async function ensureWork(ns: StoredObject, cluster: ClusterObject): Promise<void> {
    const wns = executionSpace(cluster.metadata.name);
    const wname = workName("Namespace", ns.metadata.name);
    const existing = works.get(wns, wname);
    const overridden = applyOverrides(cloneJson(ns) as KubeObject, cluster, {
      cluster: cops.list() as unknown as Array<{ metadata: { name: string }; spec: OverrideSpec }>,
      namespaced: [],
    });
    const manifest = overridden.object;
    manifest.metadata ??= {};
    const meta = manifest.metadata;
    meta.labels = { ...meta.labels, [LABEL.managed]: "true" };
    meta.annotations = {
      ...meta.annotations,
      [ANNOTATION.templateUid]: ns.metadata.uid,
      [ANNOTATION.workName]: wname,
      [ANNOTATION.workNamespace]: wns,
    };
    const workId = existing?.metadata.labels?.[LABEL.workPermanentId] ?? randomUUID();
    const pruned = workManifest(manifest, workId);
    const applied = appliedOverridesAnnotation(overridden.appliedClusterOverrides ?? []);
    const annotations = applied ? { [ANNOTATION.appliedClusterOverrides]: applied } : {};
    const spec = { workload: { manifests: [pruned] } };
    const owner = {
      apiVersion: "v1",
      kind: "Namespace",
      name: ns.metadata.name,
      uid: ns.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    if (existing?.metadata.deletionTimestamp) return;
    await createOrUpdateWork(ctx, existing, {
      namespace: wns,
      name: wname,
      labels: { [LABEL.workPermanentId]: workId },
      annotations,
      ownerReferences: [owner],
      spec,
    });
  }

  async function reconcile(key: string): Promise<ReconcileResult> {
    const { name } = parseObjectKey(key);
    const ns = namespaces.get(undefined, name);
    if (!ns || ns.metadata.deletionTimestamp || !shouldPropagateNamespace(ns)) return done;
    const errors: string[] = [];
    await Promise.all(
      (clusters.list() as ClusterObject[])
        .filter((c) => !c.metadata.deletionTimestamp)
        .map((c) =>
          ensureWork(ns, c).catch((err) =>
            errors.push(
              `sync namespace(${name}) to cluster(${c.metadata.name}) failed due to: ${(err as Error).message}`,
            ),
          ),
        ),
    );
    if (errors.length > 0) throw new Error(errors.join("; "));
    return done;
  }

  const all = () => namespaces.list().map((n) => n.metadata.name);
  return {
    name: "namespace-sync-controller",
    for: namespaces,
    workers: 2,
    watches: [
      // A new cluster gets every namespace; so does one whose execution space was just made.
      { informer: clusters, map: all, updateFilter: () => false },
      { informer: cops, map: all },
    ],
    reconcile: (_rctx, key) => reconcile(key),
  };
}
