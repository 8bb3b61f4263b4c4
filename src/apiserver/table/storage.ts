/** The StorageClass table (`storage.k8s.io`). */

import { AGE_COLUMN, ageOf, fieldColumn, NAME_COLUMN, nameOf } from "./cells.ts";
import { bool, obj, str } from "./read.ts";
import type { KindPrinter, KubeObject } from "./types.ts";

const DEFAULT_CLASS_ANNOTATIONS = [
  "storageclass.kubernetes.io/is-default-class",
  "storageclass.beta.kubernetes.io/is-default-class",
];

function isDefaultClass(storageClass: KubeObject): boolean {
  const annotations = obj(storageClass, "metadata", "annotations");
  return DEFAULT_CLASS_ANNOTATIONS.some((key) => annotations[key] === "true");
}

export const storageClassPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("Provisioner", "string", "StorageClass.provisioner"),
    fieldColumn("ReclaimPolicy", "string", "StorageClass.reclaimPolicy"),
    fieldColumn("VolumeBindingMode", "string", "StorageClass.volumeBindingMode"),
    fieldColumn("AllowVolumeExpansion", "string", "StorageClass.allowVolumeExpansion"),
    AGE_COLUMN,
  ],
  row: (sc, now) => [
    isDefaultClass(sc) ? `${nameOf(sc)} (default)` : nameOf(sc),
    str(sc, "provisioner"),
    str(sc, "reclaimPolicy") || "Delete",
    str(sc, "volumeBindingMode") || "Immediate",
    bool(sc, "allowVolumeExpansion"),
    ageOf(sc, now),
  ],
};
