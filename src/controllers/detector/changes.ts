/**
 * Which template updates count, and whose they are (pure). An update of status and bookkeeping
 * only is ignored. One that only touched what Karmada itself writes on templates is Karmada's
 * own: a Lazy policy does not refresh its binding for it.
 */
import type { StoredObject } from "../../api/meta.ts";
import { LABEL } from "../../karmada/names.ts";
import { deepEqual } from "../../machinery/equality.ts";

/** Whether an update changed more than status and bookkeeping (upstream's "specification changed"). */
export function specChanged(old: StoredObject, obj: StoredObject): boolean {
  const strip = (o: StoredObject) => {
    const { status: _s, ...rest } = o;
    const { managedFields: _m, resourceVersion: _r, ...meta } = o.metadata;
    return { ...rest, metadata: meta };
  };
  return !deepEqual(strip(old), strip(obj));
}

/** Label keys with Karmada's suffix that are the user's to set, not Karmada's. */
const USER_LABELS_WITH_KARMADA_KEYS = new Set<string>([LABEL.skipAutoPropagation]);

/**
 * Whether an update only touched what Karmada itself writes on templates (labels and
 * annotations whose key contains `.karmada.io`, and the generation that follows), upstream's
 * `ResourceChangeByKarmada`: such a change does not refresh a Lazy policy's binding.
 */
export function changedByKarmada(old: StoredObject, obj: StoredObject): boolean {
  const strip = (o: StoredObject) => {
    const { status: _s, ...rest } = o;
    const {
      managedFields: _m,
      resourceVersion: _r,
      generation: _g,
      labels,
      annotations,
      ...meta
    } = o.metadata;
    const ours = (k: string) => k.includes(".karmada.io") && !USER_LABELS_WITH_KARMADA_KEYS.has(k);
    const keepLabels = Object.entries(labels ?? {}).filter(([k]) => !ours(k));
    const keepAnnotations = Object.entries(annotations ?? {}).filter(
      ([k]) => k.includes(".karmada.io") === false,
    );
    return {
      ...rest,
      metadata: {
        ...meta,
        ...(keepLabels.length ? { labels: Object.fromEntries(keepLabels) } : {}),
        ...(keepAnnotations.length ? { annotations: Object.fromEntries(keepAnnotations) } : {}),
      },
    };
  };
  return deepEqual(strip(old), strip(obj));
}
