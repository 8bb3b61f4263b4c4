/**
 * metadata checks on every write. (Interim: replaced by the full ObjectMeta validation in
 * src/api/validation once it lands.)
 */
import type { StoredObject } from "../api/meta.ts";
import type { FieldError } from "../machinery/errors.ts";
import { validateLabelKey, validateLabelValue } from "../machinery/labels.ts";
import type { ResourceType } from "./resource-type.ts";

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export function validateMetadata(
  rt: ResourceType,
  obj: StoredObject,
  old: StoredObject | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  const meta = obj.metadata;
  const name = meta.name ?? "";
  if (!name) {
    errors.push({
      type: "FieldValueRequired",
      field: "metadata.name",
      detail: "name or generateName is required",
    });
  } else {
    const problem = nameProblem(rt, name);
    if (problem)
      errors.push({ type: "FieldValueInvalid", field: "metadata.name", value: name, detail: problem });
  }
  if (rt.namespaced && !meta.namespace)
    errors.push({ type: "FieldValueRequired", field: "metadata.namespace" });
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    const keyProblem = validateLabelKey(k);
    if (keyProblem)
      errors.push({ type: "FieldValueInvalid", field: "metadata.labels", value: k, detail: keyProblem });
    const valueProblem = typeof v === "string" ? validateLabelValue(v) : "must be a string";
    if (valueProblem)
      errors.push({ type: "FieldValueInvalid", field: "metadata.labels", value: v, detail: valueProblem });
  }
  for (const k of Object.keys(meta.annotations ?? {})) {
    const keyProblem = validateLabelKey(k);
    if (keyProblem)
      errors.push({ type: "FieldValueInvalid", field: "metadata.annotations", value: k, detail: keyProblem });
  }
  if (old?.metadata.deletionTimestamp) {
    const before = new Set(old.metadata.finalizers ?? []);
    for (const f of meta.finalizers ?? []) {
      if (!before.has(f)) {
        errors.push({
          type: "FieldValueForbidden",
          field: "metadata.finalizers",
          detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${JSON.stringify(f)}}`,
        });
      }
    }
  }
  return errors;
}

function nameProblem(rt: ResourceType, name: string): string | undefined {
  switch (rt.nameRule) {
    case "label":
      return name.length > 63 || !LABEL.test(name)
        ? "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
        : undefined;
    case "dns1035":
      return name.length > 63 || !DNS1035.test(name)
        ? "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
        : undefined;
    case "path-segment":
      if (name === "." || name === "..") return `may not be '${name}'`;
      if (name.includes("/") || name.includes("%")) return `may not contain '/' or '%'`;
      return undefined;
    default:
      return name.length > 253 || !SUBDOMAIN.test(name)
        ? "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        : undefined;
  }
}
