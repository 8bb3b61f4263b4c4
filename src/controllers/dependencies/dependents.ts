/**
 * Who depends on whom, read from the ResourceBinding cache: RBs are indexed by the
 * dependencies their annotation records and by the depended-by labels they carry, so that a
 * dependency object's change finds the independent bindings it concerns, an independent
 * binding finds its attached bindings, and an attached binding the bindings requiring it.
 */
import type { StoredObject } from "../../api/meta.ts";
import type { Binding } from "../../karmada/bindings.ts";
import { DEPENDED_BY_LABEL_PREFIX, LABEL } from "../../karmada/names.ts";
import type { Logger } from "../../log.ts";
import type { Informer } from "../../runtime/informer.ts";
import { objectKey } from "../../runtime/keys.ts";
import { recordedDependencies } from "./annotation.ts";
import { type BindingSnapshot, dependedByLabelKey, sameBinding } from "./attached.ts";
import { matchesDependencies, type ObjectIdentity } from "./match.ts";

/** RBs by the attached-binding labels they carry: `<namespace>|<label key>=<value>`. */
const DEPENDED_BY_INDEX = "dependedBy";
/** RBs by the dependencies their annotation records: `<apiVersion>|<kind>|<namespace>|<name>` (name empty: a selector). */
const DEPENDENCY_INDEX = "dependencies";

/** Index values of the dependencies a binding recorded. */
function dependencyIndexValues(b: StoredObject): string[] {
  try {
    return recordedDependencies(b).map(
      (d) => `${d.apiVersion}|${d.kind}|${d.namespace ?? ""}|${d.name ?? ""}`,
    );
  } catch {
    return [];
  }
}

function dependedByIndexValues(b: StoredObject): string[] {
  return Object.entries(b.metadata.labels ?? {})
    .filter(([k]) => k.startsWith(DEPENDED_BY_LABEL_PREFIX))
    .map(([k, v]) => `${b.metadata.namespace ?? ""}|${k}=${v}`);
}

/** The indexes the ResourceBinding informer needs. */
export const bindingIndexers = {
  [DEPENDED_BY_INDEX]: dependedByIndexValues,
  [DEPENDENCY_INDEX]: dependencyIndexValues,
};

/** The keys of the independent bindings whose recorded dependencies name or select `obj`. */
export function dependentsOf(
  rbs: Informer,
  log: Logger,
  apiVersion: string,
  kind: string,
  obj: StoredObject,
): string[] {
  const ns = obj.metadata.namespace ?? "";
  const candidates = [
    ...rbs.byIndex(DEPENDENCY_INDEX, `${apiVersion}|${kind}|${ns}|${obj.metadata.name}`),
    ...rbs.byIndex(DEPENDENCY_INDEX, `${apiVersion}|${kind}|${ns}|`),
  ];
  const identity: ObjectIdentity = {
    apiVersion,
    kind,
    namespace: obj.metadata.namespace,
    name: obj.metadata.name,
    labels: obj.metadata.labels,
  };
  const keys: string[] = [];
  for (const b of new Set(candidates)) {
    if (b.metadata.deletionTimestamp) continue;
    try {
      if (matchesDependencies(identity, recordedDependencies(b))) keys.push(objectKey(b));
    } catch (err) {
      log.warn("dependencies distributor: unreadable dependencies", {
        namespace: b.metadata.namespace,
        name: b.metadata.name,
        err: (err as Error).message,
      });
    }
  }
  return keys;
}

/** The attached bindings `b` requires. */
export function attachedOf(rbs: Informer, b: Binding): Binding[] {
  const ns = b.metadata.namespace!;
  const id = b.metadata.labels?.[LABEL.rbPermanentId] ?? "";
  return rbs.byIndex(
    DEPENDED_BY_INDEX,
    `${ns}|${dependedByLabelKey(ns, b.metadata.name)}=${id}`,
  ) as Binding[];
}

/** Upstream's resolveResourceBindingFromSnapshots: the bindings requiring an attached one. */
export function referencingResolver(rbs: Informer, independent: Binding): (s: BindingSnapshot) => Binding {
  return (s) => {
    if (sameBinding(s, independent.metadata.namespace, independent.metadata.name)) return independent;
    const b = rbs.get(s.namespace || undefined, s.name) as Binding | undefined;
    if (!b) throw new Error(`resourcebindings.work.karmada.io "${s.name}" not found (required by snapshot)`);
    return b;
  };
}
