/** Printers of the `apps` kinds. */

import {
  AGE_COLUMN,
  ageOf,
  CONTAINERS_COLUMN,
  column,
  containerCells,
  fieldColumn,
  formatLabelSelector,
  formatLabels,
  IMAGES_COLUMN,
  labelSelectorString,
  NAME_COLUMN,
  nameOf,
} from "./cells.ts";
import { desiredReplicas } from "./core.ts";
import { at, int, isObject, list, str } from "./read.ts";
import type { KindPrinter, KubeObject } from "./types.ts";

function templateContainers(workload: KubeObject): [names: string, images: string] {
  return containerCells(list(workload, "spec", "template", "spec", "containers"));
}

export const deploymentPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Ready", "string", "Number of the pod with ready state"),
    fieldColumn("Up-to-date", "string", "DeploymentStatus.updatedReplicas"),
    fieldColumn("Available", "string", "DeploymentStatus.availableReplicas"),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn("Selector", "string", "DeploymentSpec.selector", { priority: 1 }),
  ],
  row(deploy, now) {
    const [names, images] = templateContainers(deploy);
    return [
      nameOf(deploy),
      `${int(deploy, "status", "readyReplicas")}/${desiredReplicas(deploy)}`,
      int(deploy, "status", "updatedReplicas"),
      int(deploy, "status", "availableReplicas"),
      ageOf(deploy, now),
      names,
      images,
      // Unlike the other workloads, an empty selector is an empty cell here, not <none>.
      labelSelectorString(at(deploy, "spec", "selector")) ?? "<invalid>",
    ];
  },
};

export const replicaSetPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("Desired", "integer", "ReplicaSetSpec.replicas"),
    fieldColumn("Current", "integer", "ReplicaSetStatus.replicas"),
    fieldColumn("Ready", "integer", "ReplicaSetStatus.readyReplicas"),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn("Selector", "string", "ReplicaSetSpec.selector", { priority: 1 }),
  ],
  row(rs, now) {
    const [names, images] = templateContainers(rs);
    return [
      nameOf(rs),
      desiredReplicas(rs),
      int(rs, "status", "replicas"),
      int(rs, "status", "readyReplicas"),
      ageOf(rs, now),
      names,
      images,
      formatLabelSelector(at(rs, "spec", "selector")),
    ];
  },
};

export const statefulSetPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Ready", "string", "Number of the pod with ready state"),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
  ],
  row(sts, now) {
    const [names, images] = templateContainers(sts);
    return [
      nameOf(sts),
      `${int(sts, "status", "readyReplicas")}/${desiredReplicas(sts)}`,
      ageOf(sts, now),
      names,
      images,
    ];
  },
};

export const daemonSetPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("Desired", "integer", "DaemonSetStatus.desiredNumberScheduled"),
    fieldColumn("Current", "integer", "DaemonSetStatus.currentNumberScheduled"),
    fieldColumn("Ready", "integer", "DaemonSetStatus.numberReady"),
    fieldColumn("Up-to-date", "integer", "DaemonSetStatus.updatedNumberScheduled"),
    fieldColumn("Available", "integer", "DaemonSetStatus.numberAvailable"),
    fieldColumn("Node Selector", "string", "PodSpec.nodeSelector"),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn("Selector", "string", "DaemonSetSpec.selector", { priority: 1 }),
  ],
  row(ds, now) {
    const [names, images] = templateContainers(ds);
    return [
      nameOf(ds),
      int(ds, "status", "desiredNumberScheduled"),
      int(ds, "status", "currentNumberScheduled"),
      int(ds, "status", "numberReady"),
      int(ds, "status", "updatedNumberScheduled"),
      int(ds, "status", "numberAvailable"),
      formatLabels(at(ds, "spec", "template", "spec", "nodeSelector")),
      ageOf(ds, now),
      names,
      images,
      formatLabelSelector(at(ds, "spec", "selector")),
    ];
  },
};

/** The controller owning a revision as `kind.group/name` in lower case, or `<none>`. */
function controllerOf(revision: KubeObject): string {
  const owner = list(revision, "metadata", "ownerReferences").find(
    (o) => isObject(o) && o.controller === true,
  );
  if (owner === undefined) return "<none>";
  const apiVersion = str(owner, "apiVersion");
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const kind = str(owner, "kind");
  if (kind === "" && group === "") return str(owner, "name");
  return `${(group === "" ? kind : `${kind}.${group}`).toLowerCase()}/${str(owner, "name")}`;
}

export const controllerRevisionPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Controller", "string", "Controller of the object"),
    fieldColumn("Revision", "string", "ControllerRevision.revision"),
    AGE_COLUMN,
  ],
  row: (revision, now) => [
    nameOf(revision),
    controllerOf(revision),
    int(revision, "revision"),
    ageOf(revision, now),
  ],
};
