/**
 * String formats Karmada's webhooks check, with the messages of the apimachinery release
 * karmada-webhook is built with (v0.36). That release words label keys and values slightly
 * differently from the Kubernetes 1.32 checks in `src/api/validation/names.ts` ("bytes"
 * instead of "characters", "a valid label key"), so the two are kept apart. DNS names read
 * the same in both and are reused.
 */

import type { FieldError } from "../../../machinery/errors.ts";
import { invalid, tooLong } from "../../validation/field.ts";
import { byteLength, strMap } from "../../validation/json.ts";
import { EMPTY_ERROR, regexError } from "../../validation/names.ts";

export { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from "../../validation/names.ts";

function maxBytesError(length: number): string {
  return `must be no more than ${length} bytes`;
}

const LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_RE = new RegExp(`^${LABEL_KEY_FMT}$`);

const SUBDOMAIN_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const SUBDOMAIN_RE = new RegExp(`^${SUBDOMAIN_FMT}$`);

function subdomainPrefixErrors(prefix: string): string[] {
  const errs: string[] = [];
  if (byteLength(prefix) > 253) errs.push(maxBytesError(253));
  if (!SUBDOMAIN_RE.test(prefix)) errs.push(regexError(SUBDOMAIN_ERR, SUBDOMAIN_FMT, "example.com"));
  return errs;
}

/** A label key (qualified name): an optional DNS-subdomain prefix and a name of at most 63 bytes. */
export function isLabelKey(value: string): string[] {
  const parts = value.split("/");
  if (parts.length > 2) {
    return [
      `a valid label key ${regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const errs: string[] = [];
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else for (const m of subdomainPrefixErrors(prefix)) errs.push(`prefix part ${m}`);
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > 63) errs.push(`name part ${maxBytesError(63)}`);
  if (!LABEL_KEY_RE.test(name)) {
    errs.push(`name part ${regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}`);
  }
  return errs;
}

const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxBytesError(63));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  }
  return errs;
}

export function validateLabelName(name: string, field: string): FieldError[] {
  return isLabelKey(name).map((m) => invalid(field, name, m));
}

/** A label map: every error names the map's path, as metav1 validation does. */
export function validateLabelMap(labels: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(strMap(labels) ?? {})) {
    errs.push(...validateLabelName(k, field));
    for (const m of isLabelValue(v)) errs.push(invalid(field, v, m));
  }
  return errs;
}

const TOTAL_ANNOTATION_SIZE = 256 * 1024;

/** An annotation map: keys are label keys ignoring case; keys and values together fit in 256 KiB. */
export function validateAnnotationMap(annotations: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(strMap(annotations) ?? {})) {
    for (const m of isLabelKey(k.toLowerCase())) errs.push(invalid(field, k, m));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE) errs.push(tooLong(field, TOTAL_ANNOTATION_SIZE));
  return errs;
}

/**
 * What go-openapi's `jsonpointer.New` says about a pointer: empty is the whole document,
 * anything else must start with "/". Its error joins two sentinels with a newline.
 */
export function jsonPointerError(pointer: string): string | undefined {
  if (pointer === "" || pointer.startsWith("/")) return undefined;
  return 'JSON pointer must be empty or start with a "/"\nJSON pointer error';
}
