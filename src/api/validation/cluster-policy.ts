/**
 * Validation of the small cluster-policy kinds: PriorityClass (`scheduling.k8s.io/v1`),
 * StorageClass (`storage.k8s.io/v1`) and Lease (`coordination.k8s.io/v1`).
 */

import { deepEqual } from "../../machinery/equality.ts";
import type { FieldError } from "../../machinery/errors.ts";
import { forbidden, invalid, notSupported, required, tooLong, tooMany } from "./field.ts";
import { byteLength, num, type Obj, obj, str } from "./json.ts";
import { validateImmutable } from "./metadata.ts";
import { isQualifiedName } from "./names.ts";
import { validateEnum } from "./pod.ts";

const HIGHEST_USER_PRIORITY = 1000000000;
const SYSTEM_PRIORITY_CLASSES: Record<string, number> = {
  "system-node-critical": 2000001000,
  "system-cluster-critical": 2000000000,
};

export function validatePriorityClass(pc: Obj, old?: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(obj(pc.metadata)?.name) ?? "";
  const value = num(pc.value) ?? 0;
  if (name.startsWith("system-")) {
    const known = SYSTEM_PRIORITY_CLASSES[name];
    let why = "";
    if (known === undefined) why = `${name} is not a known system priority class`;
    else if (known !== value) why = `value of ${name} PriorityClass must be ${known}`;
    else if (pc.globalDefault === true) why = `globalDefault of ${name} PriorityClass must be false`;
    if (why) {
      errs.push(
        forbidden(
          "metadata.name",
          `priority class names with 'system-' prefix are reserved for system use only. error: ${why}`,
        ),
      );
    }
  } else if (value > HIGHEST_USER_PRIORITY) {
    errs.push(
      forbidden("value", `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`),
    );
  }
  if (pc.preemptionPolicy != null) {
    errs.push(...validateEnum(pc.preemptionPolicy, "preemptionPolicy", ["PreemptLowerPriority", "Never"]));
  }
  if (old) {
    if (value !== (num(old.value) ?? 0)) errs.push(forbidden("value", "may not be changed in an update."));
    errs.push(...validateImmutable(pc.preemptionPolicy, old.preemptionPolicy, "preemptionPolicy"));
  }
  return errs;
}

const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

export function validateStorageClass(sc: Obj, old?: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = str(sc.provisioner) ?? "";
  if (!provisioner) errs.push(required("provisioner", provisioner));
  else
    for (const m of isQualifiedName(provisioner.toLowerCase()))
      errs.push(invalid("provisioner", provisioner.toLowerCase(), m));
  const params = obj(sc.parameters) ?? {};
  const entries = Object.entries(params);
  if (entries.length > MAX_PARAMETERS) errs.push(tooMany("parameters", entries.length, MAX_PARAMETERS));
  let size = 0;
  for (const [k, v] of entries) {
    if (!k) errs.push(invalid("parameters", k, "field can not be empty."));
    size += byteLength(k) + byteLength(str(v) ?? "");
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(tooLong("parameters", MAX_PARAMETERS_SIZE));
  const reclaim = sc.reclaimPolicy;
  if (reclaim != null && reclaim !== "Delete" && reclaim !== "Retain") {
    errs.push(notSupported("reclaimPolicy", reclaim, ["Delete", "Retain"]));
  }
  const mode = sc.volumeBindingMode;
  if (mode == null) errs.push(required("volumeBindingMode"));
  else if (mode !== "Immediate" && mode !== "WaitForFirstConsumer") {
    errs.push(notSupported("volumeBindingMode", mode, ["Immediate", "WaitForFirstConsumer"]));
  }
  if (old) {
    if (!deepEqual(obj(sc.parameters) ?? {}, obj(old.parameters) ?? {})) {
      errs.push(forbidden("parameters", "updates to parameters are forbidden."));
    }
    if (provisioner !== (str(old.provisioner) ?? ""))
      errs.push(forbidden("provisioner", "updates to provisioner are forbidden."));
    if (sc.reclaimPolicy !== old.reclaimPolicy)
      errs.push(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
    errs.push(...validateImmutable(sc.volumeBindingMode, old.volumeBindingMode, "volumeBindingMode"));
  }
  return errs;
}

export function validateLease(lease: Obj): FieldError[] {
  const s = obj(lease.spec) ?? {};
  const errs: FieldError[] = [];
  const duration = num(s.leaseDurationSeconds);
  if (duration !== undefined && duration <= 0) {
    errs.push(invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"));
  }
  const transitions = num(s.leaseTransitions);
  if (transitions !== undefined && transitions < 0) {
    errs.push(invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"));
  }
  const strategy = str(s.strategy);
  if (strategy !== undefined && strategy !== "OldestEmulationVersion") {
    errs.push(notSupported("spec.strategy", strategy, ["OldestEmulationVersion"]));
  }
  if (str(s.preferredHolder) && !strategy) {
    errs.push(forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
  }
  return errs;
}
