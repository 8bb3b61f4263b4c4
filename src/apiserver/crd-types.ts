/**
 * A CustomResourceDefinition object → the ResourceTypes it serves (one per served version).
 */
import type { StoredObject } from "../api/meta.ts";
import type { CrdVersion, CustomResourceDefinition, Schema } from "../api/schema.ts";
import { ALL_VERBS, type ResourceType } from "./resource-type.ts";

/** Reads a simple dotted JSONPath like `.spec.foo.bar` from an object as a string. */
function fieldGetter(jsonPath: string): (obj: StoredObject) => string | undefined {
  const parts = jsonPath.replace(/^\./, "").split(".");
  return (obj) => {
    let cur: unknown = obj;
    for (const p of parts) {
      if (cur === null || typeof cur !== "object") return undefined;
      cur = (cur as Record<string, unknown>)[p];
    }
    return cur === undefined || cur === null ? undefined : String(cur);
  };
}

export function crdResourceTypes(
  crd: CustomResourceDefinition | StoredObject,
  opts: { native?: boolean } = {},
): ResourceType[] {
  const spec = (crd as CustomResourceDefinition).spec;
  const name = (crd as CustomResourceDefinition).metadata.name;
  const storageVersion = spec.versions.find((v) => v.storage)?.name ?? spec.versions[0]?.name ?? "v1";
  return spec.versions
    .filter((v: CrdVersion) => v.served)
    .map((v: CrdVersion): ResourceType => {
      const schema: Schema = v.schema?.openAPIV3Schema ?? {
        type: "object",
        "x-kubernetes-preserve-unknown-fields": true,
      };
      const rt: ResourceType = {
        group: spec.group,
        version: v.name,
        kind: spec.names.kind,
        listKind: spec.names.listKind || `${spec.names.kind}List`,
        plural: spec.names.plural,
        singular: spec.names.singular || spec.names.kind.toLowerCase(),
        namespaced: spec.scope === "Namespaced",
        shortNames: spec.names.shortNames ?? [],
        categories: spec.names.categories ?? [],
        verbs: ALL_VERBS,
        schema,
        builtin: false,
        storage: { resource: `${spec.group}/${spec.names.plural}`, version: storageVersion },
        status: v.subresources?.status !== undefined,
        extraSubresources: [],
        printerColumns: v.additionalPrinterColumns ?? [],
        fieldSelectors: Object.fromEntries(
          (v.selectableFields ?? []).map((f) => [f.jsonPath.replace(/^\./, ""), fieldGetter(f.jsonPath)]),
        ),
        nameRule: "subdomain",
        generationFrom: "all-but-metadata-and-status",
      };
      // Kinds we serve natively from a CRD-shaped definition (Cluster) are not tied to a CRD object.
      if (!opts.native) rt.crd = name;
      if (v.subresources?.scale) rt.scale = v.subresources.scale;
      if (v.deprecated)
        rt.deprecationWarning =
          v.deprecationWarning ?? `${spec.group}/${v.name} ${spec.names.kind} is deprecated`;
      return rt;
    });
}
