/**
 * Schemas of every kind we serve, in the OpenAPI v3 shape CRDs use (`JSONSchemaProps`),
 * plus a small builder so that hand-written schemas read like the Go types they mirror.
 *
 * One representation serves validation, defaulting, pruning, strategic merge patch,
 * server-side apply and the `/openapi/v3` documents.
 */

export type SchemaType = "object" | "array" | "string" | "integer" | "number" | "boolean";

export interface Schema {
  type?: SchemaType;
  format?: string;
  description?: string;
  title?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  example?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  not?: Schema;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "atomic" | "granular";
  "x-kubernetes-validations"?: Array<{
    rule: string;
    message?: string;
    messageExpression?: string;
    reason?: string;
    fieldPath?: string;
  }>;
  /** Strategic-merge-patch strategy of built-in fields: `merge`, `retainKeys`, `merge,retainKeys`, `replace`. */
  "x-kubernetes-patch-strategy"?: string;
  /** Strategic-merge-patch key of built-in lists of objects. */
  "x-kubernetes-patch-merge-key"?: string;
  /** Only on top-level schemas: the kinds this schema describes. */
  "x-kubernetes-group-version-kind"?: Array<{ group: string; version: string; kind: string }>;
}

type Opts = Omit<Schema, "type" | "properties" | "items" | "additionalProperties">;

/** The builder. Every function returns a fresh plain Schema object. */
export const s = {
  string(opts: Opts = {}): Schema {
    return { type: "string", ...opts };
  },
  /** `string` restricted to a list of values (a Go string enum). */
  enum(values: string[], opts: Opts = {}): Schema {
    return { type: "string", enum: values, ...opts };
  },
  integer(opts: Opts = {}): Schema {
    return { type: "integer", ...opts };
  },
  int32(opts: Opts = {}): Schema {
    return { type: "integer", format: "int32", ...opts };
  },
  int64(opts: Opts = {}): Schema {
    return { type: "integer", format: "int64", ...opts };
  },
  number(opts: Opts = {}): Schema {
    return { type: "number", ...opts };
  },
  boolean(opts: Opts = {}): Schema {
    return { type: "boolean", ...opts };
  },
  /** RFC 3339 timestamp (`metav1.Time`). */
  time(opts: Opts = {}): Schema {
    return { type: "string", format: "date-time", ...opts };
  },
  object(properties: Record<string, Schema>, opts: Opts = {}): Schema {
    return { type: "object", properties, ...opts };
  },
  /** `map[string]V`. */
  map(values: Schema, opts: Opts = {}): Schema {
    return { type: "object", additionalProperties: values, ...opts };
  },
  array(items: Schema, opts: Opts = {}): Schema {
    return { type: "array", items, ...opts };
  },
  /** `intstr.IntOrString`. */
  intOrString(opts: Opts = {}): Schema {
    return { "x-kubernetes-int-or-string": true, ...opts };
  },
  /** `resource.Quantity` as controller-gen renders it. */
  quantity(opts: Opts = {}): Schema {
    return {
      anyOf: [{ type: "integer" }, { type: "string" }],
      pattern: QUANTITY_PATTERN,
      "x-kubernetes-int-or-string": true,
      ...opts,
    };
  },
  /** An object whose content is kept as sent (`runtime.RawExtension`, free-form JSON). */
  preserve(opts: Opts = {}): Schema {
    return { type: "object", "x-kubernetes-preserve-unknown-fields": true, ...opts };
  },
  /** Any JSON value: object, array, string, number, boolean (`apiextensionsv1.JSON`). */
  json(opts: Opts = {}): Schema {
    return { "x-kubernetes-preserve-unknown-fields": true, ...opts };
  },
  /** A whole Kubernetes object embedded in another (`x-kubernetes-embedded-resource`). */
  embedded(opts: Opts = {}): Schema {
    return {
      type: "object",
      "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
      ...opts,
    };
  },
};

/** controller-gen's pattern for `resource.Quantity`. */
export const QUANTITY_PATTERN =
  "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

/** The part of a CustomResourceDefinition we build our own kinds from. */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: Schema };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: Array<{ jsonPath: string }>;
}

export interface PrinterColumn {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  jsonPath: string;
  format?: string;
  description?: string;
  priority?: number;
}

export interface CrdNames {
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CustomResourceDefinition {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    names: CrdNames;
    scope: "Namespaced" | "Cluster";
    versions: CrdVersion[];
    conversion?: { strategy: "None" | "Webhook" };
    preserveUnknownFields?: boolean;
  };
}

/** Builds a CRD object from its parts; `metadata.name` is `<plural>.<group>`. */
export function crd(spec: CustomResourceDefinition["spec"]): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${spec.names.plural}.${spec.group}` },
    spec,
  };
}

/** The same schema with a description for the place it is used at (reused structs carry none). */
export function described(schema: Schema, description: string): Schema {
  return { ...schema, description };
}

/** `apiVersion`, `kind`, `metadata` as every top-level CRD schema starts. */
export function topLevel(properties: Record<string, Schema>, opts: Opts = {}): Schema {
  return s.object(
    {
      apiVersion: s.string(),
      kind: s.string(),
      metadata: { type: "object" },
      ...properties,
    },
    opts,
  );
}
