/**
 * ObjectMeta validation: apimachinery's `ValidateObjectMeta` / `ValidateObjectMetaUpdate`
 * plus the finalizer-name rule the core API group adds for every built-in kind.
 */

import { deepEqual } from "../../machinery/equality.ts";
import type { FieldError } from "../../machinery/errors.ts";
import {
  child,
  FIELD_IMMUTABLE,
  forbidden,
  IS_NEGATIVE,
  index,
  invalid,
  required,
  tooLong,
} from "./field.ts";
import { bool, byteLength, num, obj, objs, str, strMap, strs } from "./json.ts";
import { checkName, isDNS1123Label, isQualifiedName, type NameRule } from "./names.ts";
import { validateLabels } from "./selectors.ts";

export interface ObjectMetaOptions {
  namespaced: boolean;
  nameRule: NameRule;
  /**
   * Built-in kinds reject finalizers without a `/` other than `kubernetes`, `orphan` and
   * `foregroundDeletion`; CRDs and custom resources do not. Default true.
   */
  kubeFinalizers?: boolean;
  /**
   * Reject updates without `metadata.resourceVersion`. The generic store fills it in for
   * unconditional updates before validating, so this is off by default.
   */
  requireResourceVersion?: boolean;
}

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);
const META = "metadata";

/**
 * Validates `metadata` on create, or on update when `old` (the stored object's metadata)
 * is given. Name format is only checked on create: names are immutable.
 */
export function validateObjectMeta(meta: unknown, opts: ObjectMetaOptions, old?: unknown): FieldError[] {
  const m = obj(meta) ?? {};
  if (old !== undefined) return validateObjectMetaUpdate(m, obj(old) ?? {}, opts);
  const errs: FieldError[] = [];
  const generateName = str(m.generateName) ?? "";
  if (generateName) {
    for (const msg of checkName(opts.nameRule, generateName, true))
      errs.push(invalid(child(META, "generateName"), generateName, msg));
  }
  const name = str(m.name) ?? "";
  if (!name) errs.push(required(child(META, "name"), "name or generateName is required"));
  else
    for (const msg of checkName(opts.nameRule, name, false))
      errs.push(invalid(child(META, "name"), name, msg));
  const namespace = str(m.namespace) ?? "";
  if (opts.namespaced) {
    if (!namespace) errs.push(required(child(META, "namespace")));
    else
      for (const msg of isDNS1123Label(namespace))
        errs.push(invalid(child(META, "namespace"), namespace, msg));
  } else if (namespace) {
    errs.push(forbidden(child(META, "namespace"), "not allowed on this type"));
  }
  const generation = num(m.generation) ?? 0;
  if (generation < 0) errs.push(invalid(child(META, "generation"), generation, IS_NEGATIVE));
  errs.push(...commonMetaChecks(m));
  errs.push(...validateFinalizers(m.finalizers, opts.kubeFinalizers ?? true));
  return errs;
}

function validateObjectMetaUpdate(
  m: Record<string, unknown>,
  o: Record<string, unknown>,
  opts: ObjectMetaOptions,
) {
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    const before = new Set(strs(o.finalizers));
    const added = [...new Set(strs(m.finalizers).filter((f) => !before.has(f)))].sort();
    if (added.length > 0) {
      errs.push(
        forbidden(
          child(META, "finalizers"),
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}`,
        ),
      );
    }
  }
  if (opts.requireResourceVersion && !str(m.resourceVersion)) {
    errs.push(invalid(child(META, "resourceVersion"), "", "must be specified for an update"));
  }
  const generation = num(m.generation) ?? 0;
  if (generation < (num(o.generation) ?? 0)) {
    errs.push(invalid(child(META, "generation"), generation, "must not be decremented"));
  }
  for (const f of [
    "name",
    "namespace",
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
  ]) {
    if (deepEqual(emptyAsUndefined(m[f]), emptyAsUndefined(o[f]))) continue;
    // Go reports the new value: "" for unset strings, null for unset pointers.
    const stringField = f !== "deletionTimestamp" && f !== "deletionGracePeriodSeconds";
    errs.push(invalid(child(META, f), stringField ? (m[f] ?? "") : m[f], FIELD_IMMUTABLE));
  }
  errs.push(...commonMetaChecks(m));
  if (opts.kubeFinalizers ?? true) errs.push(...validateKubeFinalizerNames(m.finalizers));
  return errs;
}

function emptyAsUndefined(v: unknown): unknown {
  return v === "" || v === null ? undefined : v;
}

function commonMetaChecks(m: Record<string, unknown>): FieldError[] {
  return [
    ...validateLabels(m.labels, child(META, "labels")),
    ...validateAnnotations(m.annotations, child(META, "annotations")),
    ...validateOwnerReferences(m.ownerReferences, child(META, "ownerReferences")),
    ...validateManagedFields(m.managedFields, child(META, "managedFields")),
  ];
}

export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(strMap(annotations) ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(field, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

export function validateOwnerReferences(refs: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = "";
  const list = objs(refs);
  for (const ref of list) {
    const apiVersion = str(ref.apiVersion) ?? "";
    const kind = str(ref.kind) ?? "";
    const slash = apiVersion.indexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (!version) errs.push(invalid(child(field, "apiVersion"), apiVersion, "version must not be empty"));
    if (!kind) errs.push(invalid(child(field, "kind"), kind, "kind must not be empty"));
    if (!str(ref.name))
      errs.push(invalid(child(field, "name"), str(ref.name) ?? "", "name must not be empty"));
    if (!str(ref.uid)) errs.push(invalid(child(field, "uid"), str(ref.uid) ?? "", "uid must not be empty"));
    if (group === "" && version === "v1" && kind === "Event") {
      errs.push(invalid(field, ref, "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (bool(ref.controller) === true) {
      const current = `${kind}/${str(ref.name) ?? ""}`;
      if (firstController) {
        errs.push(
          invalid(
            field,
            list,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

function validateFinalizers(finalizers: unknown, kubeRule: boolean): FieldError[] {
  const list = strs(finalizers);
  const field = child(META, "finalizers");
  const errs: FieldError[] = [];
  for (const f of list) for (const msg of isQualifiedName(f)) errs.push(invalid(field, f, msg));
  if (list.includes("orphan") && list.includes("foregroundDeletion")) {
    errs.push(invalid(field, list, "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  if (kubeRule) errs.push(...validateKubeFinalizerNames(finalizers));
  return errs;
}

function validateKubeFinalizerNames(finalizers: unknown): FieldError[] {
  const errs: FieldError[] = [];
  strs(finalizers).forEach((f, i) => {
    if (!f.includes("/") && !STANDARD_FINALIZERS.has(f)) {
      errs.push(
        invalid(
          index(child(META, "finalizers"), i),
          f,
          "name is neither a standard finalizer name nor is it fully qualified",
        ),
      );
    }
  });
  return errs;
}

/** A finalizer name in spec (Namespace `spec.finalizers`): qualified and standard-or-prefixed. */
export function validateFinalizerName(name: string, field: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(field, name, m));
  if (!name.includes("/") && !STANDARD_FINALIZERS.has(name)) {
    errs.push(invalid(field, name, "name is neither a standard finalizer name nor is it fully qualified"));
  }
  return errs;
}

function validateManagedFields(entries: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(entries).forEach((e, i) => {
    const p = index(field, i);
    const op = str(e.operation) ?? "";
    if (op !== "Apply" && op !== "Update")
      errs.push(invalid(child(p, "operation"), op, "must be `Apply` or `Update`"));
    const fieldsType = str(e.fieldsType) ?? "";
    if (fieldsType && fieldsType !== "FieldsV1")
      errs.push(invalid(child(p, "fieldsType"), fieldsType, "must be `FieldsV1`"));
    const manager = str(e.manager) ?? "";
    if (manager.length > 128) errs.push(tooLong(child(p, "manager"), 128));
  });
  return errs;
}

export function validateNonnegative(value: number | undefined, field: string): FieldError[] {
  return value !== undefined && value < 0 ? [invalid(field, value, IS_NEGATIVE)] : [];
}

/** apimachinery's `ValidateImmutableField`: the new value is reported. */
export function validateImmutable(now: unknown, before: unknown, field: string): FieldError[] {
  return deepEqual(now ?? null, before ?? null) ? [] : [invalid(field, now, FIELD_IMMUTABLE)];
}
