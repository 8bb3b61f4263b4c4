/**
 * What the server knows about one served resource (a group/version/plural): names, scope,
 * verbs, schema, subresources, table columns, field selectors, and where it is stored.
 * Built-in kinds, Karmada's native kinds and CRDs all become ResourceTypes; the verbs are
 * written once against this shape.
 */
import type { StoredObject } from "../api/meta.ts";
import type { PrinterColumn, Schema } from "../api/schema.ts";
import type { FieldError } from "../machinery/errors.ts";

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface ExtraSubresource {
  name: string;
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

/** Where and in which version objects of a resource live in the store. */
export interface StorageLocation {
  /** `core/events`, `apps/deployments`, `policy.karmada.io/propagationpolicies`. */
  resource: string;
  /** The version objects are written in. */
  version: string;
}

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  schema: Schema;
  /** Built into the server (not from a CRD): strategic merge patch and protobuf bodies are accepted. */
  builtin: boolean;
  /** The CRD serving this resource, by name. */
  crd?: string;
  storage: StorageLocation;
  status: boolean;
  scale?: ScaleSubresource;
  extraSubresources: ExtraSubresource[];
  /** CRD `additionalPrinterColumns`; built-ins use the table printers by `group/kind`. */
  printerColumns?: PrinterColumn[];
  /** Field selector labels beyond `metadata.name` / `metadata.namespace`, with their value getters. */
  fieldSelectors: Record<string, (obj: StoredObject) => string | undefined>;
  /** Name validation rule for `metadata.name`. */
  nameRule: NameRule;
  /**
   * Kind-specific defaulting after schema defaults (`old` on updates, `subresource` for writes
   * through one, e.g. `finalize`); name and uid are set by then.
   */
  defaults?: (obj: StoredObject, old: StoredObject | undefined, subresource?: string) => void;
  /** Kind-specific validation, metadata included; `old` on updates. Without it, ObjectMeta rules by `nameRule` apply. */
  validate?: (obj: StoredObject, old: StoredObject | undefined) => FieldError[];
  /**
   * How `metadata.generation` is kept: `none` (kinds Kubernetes does not version, e.g. ConfigMap),
   * `spec` (built-in workloads: bumped when spec changes), `all-but-metadata-and-status` (CRs).
   */
  generationFrom: "none" | "spec" | "all-but-metadata-and-status";
  deprecationWarning?: string;
}

export type NameRule = "subdomain" | "label" | "dns1035" | "path-segment";

export function gvrKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

/** The store key prefix of a resource, optionally narrowed to one namespace. */
export function storagePrefix(rt: ResourceType, namespace?: string): string {
  const base = `/registry/${rt.storage.resource}/`;
  return rt.namespaced && namespace ? `${base}${namespace}/` : base;
}

export function storageKey(rt: ResourceType, namespace: string | undefined, name: string): string {
  return rt.namespaced
    ? `/registry/${rt.storage.resource}/${namespace}/${name}`
    : `/registry/${rt.storage.resource}/${name}`;
}

export function apiVersionOfType(rt: ResourceType): string {
  return rt.group ? `${rt.group}/${rt.version}` : rt.version;
}

/** `deployments.apps`, `pods`: how errors name a resource. */
export function resourceRef(rt: ResourceType): { group: string; resource: string } {
  return { group: rt.group, resource: rt.plural };
}

export const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
