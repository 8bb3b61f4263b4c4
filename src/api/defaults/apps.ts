/** Defaults of `apps/v1` (kubernetes `pkg/apis/apps/v1/defaults.go`). */

import { ensureObj, type Obj, obj, objs, setDefault, setDefaultString } from "../validation/json.ts";
import { defaultPersistentVolumeClaimSpec, defaultPodTemplate, defaultTemplateMetadata } from "./pod.ts";

export function defaultDeployment(d: Obj): void {
  const spec = ensureObj(d, "spec");
  setDefault(spec, "replicas", 1);
  const strategy = ensureObj(spec, "strategy");
  setDefaultString(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate") {
    const ru = ensureObj(strategy, "rollingUpdate");
    setDefault(ru, "maxUnavailable", "25%");
    setDefault(ru, "maxSurge", "25%");
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  setDefault(spec, "progressDeadlineSeconds", 600);
  defaultPodTemplate(spec.template);
}

export function defaultDaemonSet(ds: Obj): void {
  const spec = ensureObj(ds, "spec");
  const strategy = ensureObj(spec, "updateStrategy");
  setDefaultString(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate") {
    const ru = ensureObj(strategy, "rollingUpdate");
    setDefault(ru, "maxUnavailable", 1);
    setDefault(ru, "maxSurge", 0);
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  defaultPodTemplate(spec.template);
}

export function defaultStatefulSet(sts: Obj): void {
  const spec = ensureObj(sts, "spec");
  setDefaultString(spec, "podManagementPolicy", "OrderedReady");
  const strategy = ensureObj(spec, "updateStrategy");
  if (!strategy.type) {
    strategy.type = "RollingUpdate";
    ensureObj(strategy, "rollingUpdate");
  }
  const ru = obj(strategy.rollingUpdate);
  if (strategy.type === "RollingUpdate" && ru) setDefault(ru, "partition", 0);
  const retention = ensureObj(spec, "persistentVolumeClaimRetentionPolicy");
  setDefaultString(retention, "whenDeleted", "Retain");
  setDefaultString(retention, "whenScaled", "Retain");
  setDefault(spec, "replicas", 1);
  setDefault(spec, "revisionHistoryLimit", 10);
  defaultPodTemplate(spec.template);
  for (const pvc of objs(spec.volumeClaimTemplates)) {
    defaultTemplateMetadata(pvc);
    setDefaultString(ensureObj(pvc, "status"), "phase", "Pending");
    defaultPersistentVolumeClaimSpec(ensureObj(pvc, "spec"));
  }
}

export function defaultReplicaSet(rs: Obj): void {
  const spec = ensureObj(rs, "spec");
  setDefault(spec, "replicas", 1);
  defaultPodTemplate(spec.template);
}
