/** Defaults of `storage.k8s.io/v1` and `scheduling.k8s.io/v1`. */

import { type Obj, setDefault } from "../validation/json.ts";

export function defaultStorageClass(sc: Obj): void {
  setDefault(sc, "reclaimPolicy", "Delete");
  setDefault(sc, "volumeBindingMode", "Immediate");
}

export function defaultPriorityClass(pc: Obj): void {
  setDefault(pc, "preemptionPolicy", "PreemptLowerPriority");
}
