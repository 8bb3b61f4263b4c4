/**
 * CustomResourceDefinition validation (apiextensions-apiserver `pkg/apis/apiextensions/validation`
 * and the structural-schema rules of `pkg/apiserver/schema`). Upstream validates the internal
 * form, where per-version schemas, subresources and printer columns that are identical across
 * versions are lifted to `spec.validation`, `spec.subresources` and `spec.additionalPrinterColumns`;
 * error paths here follow that form, as kubectl users see them.
 *
 * Not covered: CEL rule compilation and cost, default values checked against their schema,
 * and structural completeness of value validations.
 */

import { deepEqual } from "../../machinery/equality.ts";
import { type FieldError, fieldErrorMessage } from "../../machinery/errors.ts";
import { child, forbidden, index, invalid, key, notSupported, required } from "./field.ts";
import { bool, isObj, type Obj, obj, objs, str, strMap, strs } from "./json.ts";
import { validateImmutable } from "./metadata.ts";
import { isDNS1035Label, isDNS1123Subdomain } from "./names.ts";

const OPENAPI_TYPES = ["array", "boolean", "integer", "number", "object", "string"];
const COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"];
const COLUMN_FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];
const ROOT_ALLOWED_WITH_STATUS = new Set([
  "description",
  "type",
  "format",
  "title",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "multipleOf",
  "required",
  "items",
  "properties",
  "externalDocs",
  "example",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-validations",
]);

/** Where upstream's internal form puts a per-version field: top level when all versions agree. */
function lifted(versions: Obj[], field: string): boolean {
  if (versions.length === 0) return false;
  const first = versions[0]![field];
  return versions.every((v) => deepEqual(v[field] ?? null, first ?? null));
}

export function validateCustomResourceDefinition(crd: Obj, old?: Obj): FieldError[] {
  const spec = obj(crd.spec) ?? {};
  const meta = obj(crd.metadata) ?? {};
  const errs: FieldError[] = [];
  const group = str(spec.group) ?? "";
  const names = obj(spec.names) ?? {};
  const plural = str(names.plural) ?? "";
  const name = str(meta.name) ?? "";
  if (!old && name && name !== `${plural}.${group}`) {
    errs.push(invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'));
  }
  errs.push(...validateSpec(spec));
  const status = obj(crd.status) ?? {};
  errs.push(...validateNames(obj(status.acceptedNames) ?? {}, "status.acceptedNames"));
  errs.push(...validateStoredVersions(status.storedVersions, objs(spec.versions)));
  errs.push(...validateAPIApproval(crd, group));
  if (!old && spec.preserveUnknownFields === true) {
    errs.push(
      invalid(
        "spec.preserveUnknownFields",
        true,
        "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
      ),
    );
  }
  if (old) errs.push(...validateSpecUpdate(spec, obj(old.spec) ?? {}, obj(old.status) ?? {}));
  return errs;
}

function validateGroupAndScope(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const group = str(spec.group) ?? "";
  const msgs = isDNS1123Subdomain(group);
  if (!group) errs.push(required("spec.group"));
  else if (msgs.length > 0) errs.push(invalid("spec.group", group, msgs.join(",")));
  else if (group.split(".").length < 2)
    errs.push(invalid("spec.group", group, "should be a domain with at least one dot"));
  const scope = str(spec.scope) ?? "";
  if (!scope) errs.push(required("spec.scope"));
  else if (scope !== "Cluster" && scope !== "Namespaced") {
    errs.push(notSupported("spec.scope", scope, ["Cluster", "Namespaced"]));
  }
  return errs;
}

/** Which per-version fields upstream's internal form holds at the top level instead. */
interface Lifted {
  schema: boolean;
  subresources: boolean;
  columns: boolean;
}

function validateVersion(v: Obj, path: string, lift: Lifted): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(v.name) ?? "";
  const msgs = isDNS1035Label(name);
  if (msgs.length > 0) errs.push(invalid(child(path, "name"), name, msgs.join(",")));
  if (v.deprecated !== true && v.deprecationWarning != null) {
    errs.push(
      invalid(
        child(path, "deprecationWarning"),
        v.deprecationWarning,
        "can only be set for deprecated versions",
      ),
    );
  }
  const statusEnabled = isObj(obj(v.subresources)?.status);
  if (!lift.schema) errs.push(...validateSchemaHolder(v.schema, child(path, "schema"), statusEnabled));
  if (!lift.subresources) errs.push(...validateSubresources(v.subresources, child(path, "subresources")));
  if (!lift.columns)
    errs.push(...validateColumns(v.additionalPrinterColumns, child(path, "additionalPrinterColumns")));
  return errs;
}

function validateColumns(columns: unknown, path: string): FieldError[] {
  return objs(columns).flatMap((c, i) => validateColumn(c, index(path, i)));
}

function validateVersionList(versions: Obj[]): FieldError[] {
  const errs: FieldError[] = [];
  const names = versions.map((v) => str(v.name) ?? "");
  if (new Set(names).size !== names.length)
    errs.push(invalid("spec.versions", versions, "must contain unique version names"));
  if (versions.filter((v) => v.storage === true).length !== 1) {
    errs.push(invalid("spec.versions", versions, "must have exactly one version marked as storage version"));
  }
  return errs;
}

function validateSpec(spec: Obj): FieldError[] {
  const errs = validateGroupAndScope(spec);
  const versions = objs(spec.versions);
  const lift: Lifted = {
    schema: lifted(versions, "schema"),
    subresources: lifted(versions, "subresources"),
    columns: lifted(versions, "additionalPrinterColumns"),
  };
  const first = versions[0];
  if (!lift.schema || !obj(obj(first?.schema)?.openAPIV3Schema)) {
    versions.forEach((v, i) => {
      if (!obj(obj(v.schema)?.openAPIV3Schema)) {
        errs.push(
          required(child(index("spec.versions", i), "schema", "openAPIV3Schema"), "schemas are required"),
        );
      }
    });
  }
  versions.forEach((v, i) => {
    errs.push(...validateVersion(v, index("spec.versions", i), lift));
  });
  errs.push(...validateVersionList(versions));
  errs.push(...requireNames(obj(spec.names) ?? {}));
  errs.push(...validateNames(obj(spec.names) ?? {}, "spec.names"));
  if (first) {
    const statusEnabled = versions.some((v) => isObj(obj(v.subresources)?.status));
    if (lift.schema) errs.push(...validateSchemaHolder(first.schema, "spec.validation", statusEnabled));
    if (lift.subresources) errs.push(...validateSubresources(first.subresources, "spec.subresources"));
    if (lift.columns)
      errs.push(...validateColumns(first.additionalPrinterColumns, "spec.additionalPrinterColumns"));
  }
  errs.push(...validateConversion(obj(spec.conversion)));
  return errs;
}

function requireNames(names: Obj): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ["plural", "singular", "kind", "listKind"])
    if (!str(names[f])) errs.push(required(`spec.names.${f}`));
  return errs;
}

function validateNames(names: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ["plural", "singular"]) {
    const v = str(names[f]) ?? "";
    const msgs = isDNS1035Label(v);
    if (v && msgs.length > 0) errs.push(invalid(child(path, f), v, msgs.join(",")));
  }
  for (const f of ["kind", "listKind"]) {
    const v = str(names[f]) ?? "";
    const msgs = isDNS1035Label(v.toLowerCase());
    if (v && msgs.length > 0) {
      errs.push(
        invalid(child(path, f), v, `may have mixed case, but should otherwise match: ${msgs.join(",")}`),
      );
    }
  }
  for (const f of ["shortNames", "categories"]) {
    strs(names[f]).forEach((v, i) => {
      const msgs = isDNS1035Label(v);
      if (msgs.length > 0) errs.push(invalid(index(child(path, f), i), v, msgs.join(",")));
    });
  }
  const kind = str(names.kind) ?? "";
  if (kind && kind === str(names.listKind))
    errs.push(invalid(child(path, "listKind"), kind, "kind and listKind may not be the same"));
  return errs;
}

function validateStoredVersions(stored: unknown, versions: Obj[]): FieldError[] {
  const path = "status.storedVersions";
  const list = strs(stored);
  if (list.length === 0) return [invalid(path, list, "must have at least one stored version")];
  const errs: FieldError[] = [];
  const remaining = new Map(list.map((v, i) => [v, i]));
  for (const v of versions) {
    const n = str(v.name) ?? "";
    if (v.storage === true && !remaining.has(n))
      errs.push(invalid(path, list, `must have the storage version ${n}`));
    remaining.delete(n);
  }
  for (const [v, i] of remaining) errs.push(invalid(index(path, i), v, "must appear in spec.versions"));
  return errs;
}

function isProtectedGroup(group: string): boolean {
  return ["k8s.io", "kubernetes.io"].some((d) => group === d || group.endsWith(`.${d}`));
}

function validateAPIApproval(crd: Obj, group: string): FieldError[] {
  if (!isProtectedGroup(group)) return [];
  const annotations = strMap(obj(crd.metadata)?.annotations) ?? {};
  const k = "api-approved.kubernetes.io";
  if (k in annotations) return [];
  return [
    required(
      key("metadata.annotations", k),
      `protected groups must have approval annotation "${k}", see https://github.com/kubernetes/enhancements/pull/1111`,
    ),
  ];
}

function validateConversion(conversion: Obj | undefined): FieldError[] {
  if (!conversion) return [];
  const path = "spec.conversion";
  const strategy = str(conversion.strategy) ?? "";
  const errs: FieldError[] = [];
  if (!strategy) errs.push(required(child(path, "strategy")));
  else if (strategy !== "None" && strategy !== "Webhook") {
    errs.push(notSupported(child(path, "strategy"), strategy, ["None", "Webhook"]));
  }
  const webhook = obj(conversion.webhook);
  if (strategy === "Webhook") {
    const clientConfig = obj(webhook?.clientConfig);
    if (!clientConfig) {
      errs.push(required(child(path, "webhookClientConfig"), "required when strategy is set to Webhook"));
    } else if ((clientConfig.url == null) === (clientConfig.service == null)) {
      errs.push(required(child(path, "webhookClientConfig"), "exactly one of url or service is required"));
    } else if (isObj(clientConfig.service)) {
      const svc = clientConfig.service;
      if (!str(svc.name))
        errs.push(
          required(child(path, "webhookClientConfig", "service", "name"), "service name is required"),
        );
      if (!str(svc.namespace)) {
        errs.push(
          required(
            child(path, "webhookClientConfig", "service", "namespace"),
            "service namespace is required",
          ),
        );
      }
    }
    const reviewVersions = strs(webhook?.conversionReviewVersions);
    const rp = child(path, "conversionReviewVersions");
    if (reviewVersions.length === 0) errs.push(required(rp));
    else if (!reviewVersions.some((v) => v === "v1" || v === "v1beta1")) {
      errs.push(invalid(rp, reviewVersions, "must include at least one of v1, v1beta1"));
    }
  } else if (webhook) {
    if (webhook.clientConfig != null) {
      errs.push(
        forbidden(
          child(path, "webhookClientConfig"),
          "should not be set when strategy is not set to Webhook",
        ),
      );
    }
    if (strs(webhook.conversionReviewVersions).length > 0) {
      errs.push(
        forbidden(
          child(path, "conversionReviewVersions"),
          "should not be set when strategy is not set to Webhook",
        ),
      );
    }
  }
  return errs;
}

function validateSimpleJSONPath(s: string, field: string): FieldError[] {
  if (s.length === 0) return [invalid(field, s, "must not be empty")];
  if (!s.startsWith(".")) return [invalid(field, s, "must be a simple json path starting with .")];
  return [];
}

function validateSubresources(subresources: unknown, path: string): FieldError[] {
  const scale = obj(obj(subresources)?.scale);
  if (!scale) return [];
  const errs: FieldError[] = [];
  for (const [f, prefix, what] of [
    ["specReplicasPath", ".spec.", "should be a json path under .spec"],
    ["statusReplicasPath", ".status.", "should be a json path under .status"],
  ] as const) {
    const p = child(path, `scale.${f}`);
    const v = str(scale[f]) ?? "";
    if (!v) {
      errs.push(required(p));
      continue;
    }
    const pathErrs = validateSimpleJSONPath(v, p);
    if (pathErrs.length > 0) errs.push(...pathErrs);
    else if (!v.startsWith(prefix)) errs.push(invalid(p, v, what));
  }
  const selectorPath = str(scale.labelSelectorPath);
  if (selectorPath) {
    const p = child(path, "scale.labelSelectorPath");
    const pathErrs = validateSimpleJSONPath(selectorPath, p);
    if (pathErrs.length > 0) errs.push(...pathErrs);
    else if (!selectorPath.startsWith(".spec.") && !selectorPath.startsWith(".status.")) {
      errs.push(invalid(p, selectorPath, "should be a json path under either .spec or .status"));
    }
  }
  return errs;
}

function validateColumn(col: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(col.name)) errs.push(required(child(path, "name")));
  const type = str(col.type) ?? "";
  const typeMsg = `must be one of ${COLUMN_TYPES.join(",")}`;
  if (!type) errs.push(required(child(path, "type"), typeMsg));
  else if (!COLUMN_TYPES.includes(type)) errs.push(invalid(child(path, "type"), type, typeMsg));
  const format = str(col.format) ?? "";
  if (format && !COLUMN_FORMATS.includes(format)) {
    errs.push(invalid(child(path, "format"), format, `must be one of ${COLUMN_FORMATS.join(",")}`));
  }
  const jsonPath = str(col.jsonPath) ?? "";
  if (!jsonPath) errs.push(required(child(path, "JSONPath")));
  else errs.push(...validateSimpleJSONPath(jsonPath, child(path, "JSONPath")));
  return errs;
}

function validateSchemaHolder(holder: unknown, path: string, statusEnabled: boolean): FieldError[] {
  const schema = obj(obj(holder)?.openAPIV3Schema);
  if (!schema) return [];
  const p = child(path, "openAPIV3Schema");
  const errs: FieldError[] = [];
  if (statusEnabled) {
    for (const [k, v] of Object.entries(schema)) {
      if (v === undefined || v === null || v === false || v === "" || (Array.isArray(v) && v.length === 0))
        continue;
      if (k === "type") {
        if (v !== "object") {
          errs.push(
            invalid(
              `${path}.openAPIV3Schema.type`,
              v,
              'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
            ),
          );
          break;
        }
        continue;
      }
      if (!ROOT_ALLOWED_WITH_STATUS.has(k)) {
        errs.push(
          invalid(
            p,
            schema,
            "only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled",
          ),
        );
        break;
      }
    }
  }
  if (schema.nullable === true)
    errs.push(forbidden(`${path}.openAPIV3Schema.nullable`, "nullable cannot be true at the root"));
  const structural: FieldError[] = [];
  validateStructural(schema, "root", p, structural);
  structural.sort((a, b) =>
    fieldErrorMessage(a) < fieldErrorMessage(b) ? -1 : fieldErrorMessage(a) > fieldErrorMessage(b) ? 1 : 0,
  );
  errs.push(...structural);
  validateOpenAPISchema(schema, p, errs);
  return errs;
}

type Level = "root" | "item" | "field";

/** The structural-schema invariants (`validateStructuralInvariants`). */
interface Extensions {
  intOrString: boolean;
  preserve: boolean;
  embedded: boolean;
}

function extensionsOf(s: Obj): Extensions {
  return {
    intOrString: bool(s["x-kubernetes-int-or-string"]) === true,
    preserve: bool(s["x-kubernetes-preserve-unknown-fields"]) === true,
    embedded: bool(s["x-kubernetes-embedded-resource"]) === true,
  };
}

/** The structural-schema invariants (`validateStructuralInvariants`). */
function validateStructural(s: Obj, level: Level, path: string, errs: FieldError[]): void {
  const type = str(s.type) ?? "";
  const items = obj(s.items);
  if (type === "array" && !items) errs.push(required(child(path, "items"), "must be specified"));
  if (items) validateStructural(items, "item", child(path, "items"), errs);
  const props = obj(s.properties) ?? {};
  for (const [k, v] of Object.entries(props)) {
    if (isObj(v)) validateStructural(v, "field", key(child(path, "properties"), k), errs);
  }
  if (s.additionalProperties != null) {
    if (level === "root")
      errs.push(forbidden(child(path, "additionalProperties"), "must not be used at the root"));
    if (isObj(s.additionalProperties)) {
      validateStructural(s.additionalProperties, "field", child(path, "additionalProperties"), errs);
    }
  }
  const ext = extensionsOf(s);
  validateExtensions(ext, path, errs);
  validateValueValidations(s, ext, path, errs);
  validateStructuralType(s, ext, level, path, errs);
  validateEmbeddedMeta(s, ext, level, path, errs);
}

function validateExtensions(ext: Extensions, path: string, errs: FieldError[]): void {
  const detail = "must be false if x-kubernetes-int-or-string is true";
  if (ext.intOrString && ext.preserve)
    errs.push(invalid(child(path, "x-kubernetes-preserve-unknown-fields"), true, detail));
  if (ext.intOrString && ext.embedded)
    errs.push(invalid(child(path, "x-kubernetes-embedded-resource"), true, detail));
}

function validateValueValidations(s: Obj, ext: Extensions, path: string, errs: FieldError[]): void {
  // The int-or-string pattern `anyOf: [{type: integer}, {type: string}]` is allowed as is.
  const skipAnyOf = ext.intOrString && isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOf = ext.intOrString && isIntOrStringAnyOf(obj(objs(s.allOf)[0])?.anyOf);
  if (!skipAnyOf) {
    objs(s.anyOf).forEach((v, i) => {
      validateNested(v, index(child(path, "anyOf"), i), errs);
    });
  }
  objs(s.allOf).forEach((v, i) => {
    validateNested(
      skipFirstAllOf && i === 0 ? { ...v, anyOf: undefined } : v,
      index(child(path, "allOf"), i),
      errs,
    );
  });
  objs(s.oneOf).forEach((v, i) => {
    validateNested(v, index(child(path, "oneOf"), i), errs);
  });
  if (isObj(s.not)) validateNested(s.not, child(path, "not"), errs);
  const pattern = str(s.pattern);
  if (!pattern) return;
  try {
    new RegExp(pattern, "u");
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    errs.push(
      invalid(child(path, "pattern"), pattern, `must be a valid regular expression, but isn't: ${msg}`),
    );
  }
}

const EMPTY_TYPE_WHERE: Record<Level, string> = {
  root: "at the root",
  item: "for specified array items",
  field: "for specified object fields",
};

function validateStructuralType(
  s: Obj,
  ext: Extensions,
  level: Level,
  path: string,
  errs: FieldError[],
): void {
  const type = str(s.type) ?? "";
  const embeddedType = "must be object if x-kubernetes-embedded-resource is true";
  if (ext.embedded && type !== "object") {
    errs.push(
      type ? invalid(child(path, "type"), type, embeddedType) : required(child(path, "type"), embeddedType),
    );
  } else if (!type && !ext.intOrString && !ext.preserve) {
    errs.push(required(child(path, "type"), `must not be empty ${EMPTY_TYPE_WHERE[level]}`));
  }
  if (ext.embedded && s.additionalProperties != null) {
    errs.push(
      forbidden(
        child(path, "additionalProperties"),
        "must not be used if x-kubernetes-embedded-resource is set",
      ),
    );
  }
  if (level === "root" && type && type !== "object")
    errs.push(invalid(child(path, "type"), type, "must be object at the root"));
}

/** Resource roots (the schema root and embedded resources) fix kind, apiVersion and metadata. */
function validateEmbeddedMeta(s: Obj, ext: Extensions, level: Level, path: string, errs: FieldError[]): void {
  const props = obj(s.properties) ?? {};
  const checkMetadata = level === "root" || ext.embedded;
  for (const f of ["kind", "apiVersion"]) {
    const fs = obj(props[f]);
    if (fs && checkMetadata && fs.type !== "string") {
      errs.push(
        invalid(child(key(child(path, "properties"), f), "type"), str(fs.type) ?? "", "must be string"),
      );
    }
  }
  const metadata = obj(props.metadata);
  if (metadata)
    validateMetadataSchema(metadata, checkMetadata, level, key(child(path, "properties"), "metadata"), errs);
  if (ext.embedded && !ext.preserve && Object.keys(props).length === 0) {
    errs.push(
      required(
        child(path, "properties"),
        "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
      ),
    );
  }
}

function isIntOrStringAnyOf(anyOf: unknown): boolean {
  const list = objs(anyOf);
  return (
    list.length === 2 && deepEqual(list[0], { type: "integer" }) && deepEqual(list[1], { type: "string" })
  );
}

function validateMetadataSchema(
  s: Obj,
  checkMetadata: boolean,
  level: Level,
  path: string,
  errs: FieldError[],
): void {
  if (checkMetadata && s.type !== "object")
    errs.push(invalid(child(path, "type"), str(s.type) ?? "", "must be object"));
  if (level !== "root") return;
  const props = Object.keys(obj(s.properties) ?? {});
  const onlyNames = props.every((p) => p === "name" || p === "generateName");
  const rest = Object.keys(s).filter((k) => !["type", "default", "properties", "description"].includes(k));
  const nameSchemasPlain = props.every((p) => {
    const ps = obj(obj(s.properties)?.[p]) ?? {};
    return Object.keys(ps).every(
      (k) => k === "type" || k === "description" || k === "pattern" || k === "maxLength",
    );
  });
  if (!onlyNames || rest.length > 0 || !nameSchemasPlain) {
    errs.push(
      forbidden(
        path,
        "must not specify anything other than name and generateName, but metadata is implicitly specified",
      ),
    );
  }
}

const NESTED_FORBIDDEN: Array<[string, (v: unknown) => boolean, string]> = [
  ["type", (v) => typeof v === "string" && v.length > 0, "must be empty to be structural"],
  ["default", (v) => v !== undefined && v !== null, "must be undefined to be structural"],
  ["title", (v) => typeof v === "string" && v.length > 0, "must be empty to be structural"],
  ["description", (v) => typeof v === "string" && v.length > 0, "must be empty to be structural"],
  ["nullable", (v) => v === true, "must be false to be structural"],
  ["x-kubernetes-preserve-unknown-fields", (v) => v === true, "must be false to be structural"],
  ["x-kubernetes-embedded-resource", (v) => v === true, "must be false to be structural"],
  ["x-kubernetes-int-or-string", (v) => v === true, "must be false to be structural"],
  ["x-kubernetes-list-map-keys", (v) => Array.isArray(v) && v.length > 0, "must be empty to be structural"],
  ["x-kubernetes-list-type", (v) => v !== undefined && v !== null, "must be undefined to be structural"],
  ["x-kubernetes-map-type", (v) => v !== undefined && v !== null, "must be undefined to be structural"],
  ["x-kubernetes-validations", (v) => Array.isArray(v) && v.length > 0, "must be empty to be structural"],
];

/** Value validations (inside anyOf/allOf/oneOf/not) may not carry structural information. */
function validateNested(s: Obj, path: string, errs: FieldError[]): void {
  objs(s.anyOf).forEach((v, i) => {
    validateNested(v, index(child(path, "anyOf"), i), errs);
  });
  objs(s.allOf).forEach((v, i) => {
    validateNested(v, index(child(path, "allOf"), i), errs);
  });
  objs(s.oneOf).forEach((v, i) => {
    validateNested(v, index(child(path, "oneOf"), i), errs);
  });
  if (isObj(s.not)) validateNested(s.not, child(path, "not"), errs);
  if (isObj(s.items)) validateNested(s.items, child(path, "items"), errs);
  for (const [k, v] of Object.entries(obj(s.properties) ?? {})) {
    if (isObj(v)) validateNested(v, key(child(path, "properties"), k), errs);
  }
  for (const [field, bad, detail] of NESTED_FORBIDDEN) {
    if (bad(s[field])) errs.push(forbidden(child(path, field), detail));
  }
  if (s.additionalProperties != null) {
    errs.push(forbidden(child(path, "additionalProperties"), "must be undefined to be structural"));
  }
  if (isObj(obj(s.properties)?.metadata)) {
    errs.push(
      forbidden(key(child(path, "properties"), "metadata"), "must not be specified in a nested context"),
    );
  }
}

/** `ValidateCustomResourceDefinitionOpenAPISchema`: the OpenAPI subset CRDs may use. */
function validateOpenAPISchema(s: Obj, path: string, errs: FieldError[]): void {
  if (s.uniqueItems === true) {
    errs.push(
      forbidden(
        child(path, "uniqueItems"),
        "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
      ),
    );
  }
  const props = obj(s.properties) ?? {};
  const additional = s.additionalProperties;
  if (additional != null && Object.keys(props).length > 0 && (additional === false || isObj(additional))) {
    errs.push(
      forbidden(
        child(path, "additionalProperties"),
        "additionalProperties and properties are mutual exclusive",
      ),
    );
  }
  if (s["x-kubernetes-preserve-unknown-fields"] === false) {
    errs.push(
      invalid(child(path, "x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"),
    );
  }
  validateListAndMapTypes(s, path, errs);
  objs(s["x-kubernetes-validations"]).forEach((rule, i) => {
    const rp = index(child(path, "x-kubernetes-validations"), i);
    if (!str(rule.rule)) errs.push(required(child(rp, "rule"), "rule is not specified"));
    if (rule.message !== undefined && str(rule.message) === "") {
      errs.push(invalid(child(rp, "message"), rule.message, "message must be non-empty if specified"));
    }
  });
  const type = s.type;
  if (type === null)
    errs.push(forbidden(child(path, "type"), "type cannot be set to null, use nullable as an alternative"));
  else if (typeof type === "string" && type && !OPENAPI_TYPES.includes(type)) {
    errs.push(notSupported(child(path, "type"), type, OPENAPI_TYPES));
  }
  for (const [f, msg] of [
    ["id", "id is not supported"],
    ["additionalItems", "additionalItems is not supported"],
    ["patternProperties", "patternProperties is not supported"],
    ["definitions", "definitions is not supported"],
    ["dependencies", "dependencies is not supported"],
    ["$ref", "$ref is not supported"],
  ] as const) {
    if (s[f] !== undefined) errs.push(forbidden(child(path, f), msg));
  }
  if (Array.isArray(s.items))
    errs.push(forbidden(child(path, "items"), "items must be a schema object and not an array"));
  for (const [k, v] of Object.entries(props)) {
    if (isObj(v)) validateOpenAPISchema(v, key(child(path, "properties"), k), errs);
  }
  if (isObj(s.items)) validateOpenAPISchema(s.items, child(path, "items"), errs);
  if (isObj(additional)) validateOpenAPISchema(additional, child(path, "additionalProperties"), errs);
  for (const f of ["allOf", "anyOf", "oneOf"]) {
    objs(s[f]).forEach((v, i) => {
      validateOpenAPISchema(v, index(child(path, f), i), errs);
    });
  }
  if (isObj(s.not)) validateOpenAPISchema(s.not, child(path, "not"), errs);
}

function validateListAndMapTypes(s: Obj, path: string, errs: FieldError[]): void {
  validateMapType(s, path, errs);
  validateListType(s, path, errs);
  const listType = s["x-kubernetes-list-type"];
  const mapKeys = strs(s["x-kubernetes-list-map-keys"]);
  if (mapKeys.length > 0 && listType !== "map") {
    const detail = "must be map if x-kubernetes-list-map-keys is non-empty";
    const p = child(path, "x-kubernetes-list-type");
    errs.push(listType == null ? required(p, detail) : invalid(p, listType, detail));
  }
  if (listType === "map") validateListMapKeys(s, mapKeys, path, errs);
}

function validateMapType(s: Obj, path: string, errs: FieldError[]): void {
  const mapType = s["x-kubernetes-map-type"];
  if (mapType == null) return;
  if (s.type !== "object") {
    const detail = "must be object if x-kubernetes-map-type is specified";
    errs.push(s.type ? invalid(child(path, "type"), s.type, detail) : required(child(path, "type"), detail));
  }
  if (mapType !== "atomic" && mapType !== "granular") {
    errs.push(notSupported(child(path, "x-kubernetes-map-type"), mapType, ["atomic", "granular"]));
  }
}

function validateListType(s: Obj, path: string, errs: FieldError[]): void {
  const listType = s["x-kubernetes-list-type"];
  if (listType == null) return;
  if (s.type !== "array") {
    const detail = "must be array if x-kubernetes-list-type is specified";
    errs.push(s.type ? invalid(child(path, "type"), s.type, detail) : required(child(path, "type"), detail));
  }
  if (!["atomic", "set", "map"].includes(String(listType))) {
    errs.push(notSupported(child(path, "x-kubernetes-list-type"), listType, ["atomic", "set", "map"]));
  }
}

function validateListMapKeys(s: Obj, mapKeys: string[], path: string, errs: FieldError[]): void {
  if (mapKeys.length === 0) {
    errs.push(
      required(
        child(path, "x-kubernetes-list-map-keys"),
        "must not be empty if x-kubernetes-list-type is map",
      ),
    );
  }
  const items = obj(s.items);
  if (!items) {
    errs.push(required(child(path, "items"), "must have a schema if x-kubernetes-list-type is map"));
    return;
  }
  if (items.type !== "object") {
    errs.push(
      invalid(
        child(path, "items", "type"),
        items.type ?? "",
        "must be object if parent array's x-kubernetes-list-type is map",
      ),
    );
    return;
  }
  const itemProps = obj(items.properties) ?? {};
  if (mapKeys.some((k) => !(k in itemProps))) {
    errs.push(
      invalid(
        child(path, "x-kubernetes-list-map-keys"),
        mapKeys,
        "entries must all be names of item properties",
      ),
    );
  }
  if (new Set(mapKeys).size !== mapKeys.length) {
    errs.push(
      invalid(child(path, "x-kubernetes-list-map-keys"), mapKeys, "must not contain duplicate entries"),
    );
  }
}

function isEstablished(status: Obj): boolean {
  return objs(status.conditions).some((c) => c.type === "Established" && c.status === "True");
}

function validateSpecUpdate(now: Obj, before: Obj, oldStatus: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const nowNames = obj(now.names) ?? {};
  const beforeNames = obj(before.names) ?? {};
  if (isEstablished(oldStatus)) {
    errs.push(...validateImmutable(now.scope, before.scope, "spec.scope"));
    errs.push(...validateImmutable(nowNames.kind, beforeNames.kind, "spec.names.kind"));
  }
  errs.push(...validateImmutable(now.group, before.group, "spec.group"));
  errs.push(...validateImmutable(nowNames.plural, beforeNames.plural, "spec.names.plural"));
  return errs;
}
