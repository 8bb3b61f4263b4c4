/**
 * `/openapi/v3`: one document per group version, built from our own schemas (built-in
 * model graphs with `$ref`s between named models; CRD schemas inline), with the PATCH
 * operations and the `fieldValidation` parameter kubectl's validation looks for. Each
 * document's URL carries a content hash so kubectl's HTTP cache never serves a stale one.
 */
import { createHash } from "node:crypto";
import { builtinSchema, namedSchemas, schemaName, variantBase } from "../api/builtin/schemas.ts";
import { isObject } from "../api/meta.ts";
import type { Schema } from "../api/schema.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import type { ApiResponse } from "./handler.ts";
import type { Registry } from "./registry.ts";
import type { ResourceType } from "./resource-type.ts";

const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
const PATCH = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
const STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
const DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";

interface Built {
  text: string;
  hash: string;
}

/** `apps` → `io.k8s.api.apps`-like reversed-domain prefix for CRD component names. */
function crdComponentName(rt: ResourceType): string {
  const reversed = rt.group.split(".").reverse().join(".");
  return `${reversed}.${rt.version}.${rt.kind}`;
}

function ref(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` } as unknown as Schema;
}

/** Renders a built-in model graph node: named children become `$ref`s. */
function renderBuiltin(node: Schema, top: boolean): unknown {
  if (!top) {
    const base = variantBase(node);
    const name = schemaName(base ?? node);
    if (name) {
      const extra: Record<string, unknown> = {};
      if (base) {
        for (const [k, v] of Object.entries(node))
          if (!(k in base) || (base as Record<string, unknown>)[k] !== v) extra[k] = v;
        delete extra.properties;
      }
      return { allOf: [ref(name)], ...extra };
    }
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "properties" && isObject(v)) {
      out.properties = Object.fromEntries(
        Object.entries(v as Record<string, Schema>).map(([pk, pv]) => [pk, renderBuiltin(pv, false)]),
      );
    } else if ((k === "items" || k === "not") && isObject(v)) {
      out[k] = renderBuiltin(v as Schema, false);
    } else if (k === "additionalProperties" && isObject(v)) {
      out[k] = renderBuiltin(v as Schema, false);
    } else if ((k === "allOf" || k === "anyOf" || k === "oneOf") && Array.isArray(v)) {
      out[k] = (v as Schema[]).map((x) => renderBuiltin(x, false));
    } else {
      out[k] = v;
    }
  }
  return out;
}

function gvPath(rt: ResourceType): string {
  return rt.group ? `apis/${rt.group}/${rt.version}` : `api/${rt.version}`;
}

function parameter(name: string, description: string): Record<string, unknown> {
  return { name, in: "query", description, schema: { type: "string", uniqueItems: true } };
}

const WRITE_PARAMETERS = [
  parameter("dryRun", "When present, indicates that modifications should not be persisted."),
  parameter(
    "fieldManager",
    "fieldManager is a name associated with the actor or entity that is making these changes.",
  ),
  parameter(
    "fieldValidation",
    "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (default) or Strict.",
  ),
];

function operations(rt: ResourceType, component: string): Record<string, unknown> {
  const gvk = { group: rt.group, version: rt.version, kind: rt.kind };
  const content = (schema: string): Record<string, unknown> => ({
    "application/json": { schema: ref(schema) },
    "application/yaml": { schema: ref(schema) },
  });
  const patchTypes = [
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
  ];
  if (rt.builtin) patchTypes.push("application/strategic-merge-patch+json");
  const op = (action: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    description: `${action} ${rt.kind}`,
    operationId: `${action}${rt.kind}`,
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": gvk,
    responses: { "200": { description: "OK", content: content(component) } },
    ...extra,
  });
  const base = `/${gvPath(rt)}${rt.namespaced ? "/namespaces/{namespace}" : ""}/${rt.plural}`;
  const paths: Record<string, unknown> = {
    [base]: {
      get: op("list"),
      post: op("post", {
        parameters: WRITE_PARAMETERS,
        requestBody: { content: content(component), required: true },
      }),
      delete: op("deletecollection", {
        responses: { "200": { description: "OK", content: content(STATUS) } },
      }),
    },
    [`${base}/{name}`]: {
      get: op("get"),
      put: op("put", {
        parameters: WRITE_PARAMETERS,
        requestBody: { content: content(component), required: true },
      }),
      patch: op("patch", {
        parameters: [...WRITE_PARAMETERS, parameter("force", 'Force is going to "force" Apply requests.')],
        requestBody: {
          content: Object.fromEntries(patchTypes.map((t) => [t, { schema: ref(PATCH) }])),
          required: true,
        },
      }),
      delete: op("delete", { requestBody: { content: content(DELETE_OPTIONS) } }),
    },
  };
  if (rt.status) {
    paths[`${base}/{name}/status`] = {
      get: op("get"),
      put: op("put", { parameters: WRITE_PARAMETERS }),
      patch: op("patch", { parameters: WRITE_PARAMETERS }),
    };
  }
  return paths;
}

export class OpenApi {
  #registry: Registry;
  #generation = -1;
  #docs = new Map<string, Built>();

  constructor(registry: Registry) {
    this.#registry = registry;
  }

  #refresh(): void {
    if (this.#generation === this.#registry.generation) return;
    this.#docs.clear();
    this.#generation = this.#registry.generation;
  }

  #gvPaths(): string[] {
    const out: string[] = [];
    for (const g of this.#registry.groups()) {
      for (const v of g.versions) out.push(g.group ? `apis/${g.group}/${v}` : `api/${v}`);
    }
    return out;
  }

  #build(path: string): Built | undefined {
    this.#refresh();
    const cached = this.#docs.get(path);
    if (cached) return cached;
    const parts = path.split("/");
    const [group, version] = parts[0] === "api" ? ["", parts[1] ?? ""] : [parts[1] ?? "", parts[2] ?? ""];
    const types = this.#registry.resources(group, version);
    if (types.length === 0) return undefined;
    const schemas: Record<string, unknown> = {};
    const paths: Record<string, unknown> = {};
    const addNamed = (root: Schema): void => {
      for (const [name, node] of namedSchemas(root))
        if (!(name in schemas)) schemas[name] = renderBuiltin(node, true);
    };
    addNamed(builtinSchema("V1ObjectMeta"));
    addNamed(builtinSchema("V1ListMeta"));
    addNamed(builtinSchema("V1Status"));
    addNamed(builtinSchema("V1DeleteOptions"));
    schemas[PATCH] = {
      type: "object",
      description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
    };
    for (const rt of types) {
      let component: string;
      if (rt.builtin) {
        component = schemaName(rt.schema) ?? crdComponentName(rt);
        addNamed(rt.schema);
      } else {
        component = crdComponentName(rt);
        const rendered = cloneJson(rt.schema) as Record<string, unknown>;
        const props = isObject(rendered.properties) ? { ...rendered.properties } : {};
        rendered.properties = props;
        props.metadata = {
          allOf: [ref(OBJECT_META)],
          description: "Standard object's metadata.",
        };
        rendered["x-kubernetes-group-version-kind"] = [
          { group: rt.group, version: rt.version, kind: rt.kind },
        ];
        schemas[component] = rendered;
        schemas[`${component}List`] = {
          type: "object",
          required: ["items"],
          properties: {
            apiVersion: { type: "string" },
            kind: { type: "string" },
            metadata: { allOf: [ref(LIST_META)] },
            items: { type: "array", items: ref(component) },
          },
          "x-kubernetes-group-version-kind": [{ group: rt.group, version: rt.version, kind: rt.listKind }],
        };
      }
      Object.assign(paths, operations(rt, component));
    }
    const doc = {
      openapi: "3.0.0",
      info: { title: "Kubernetes", version: "v1.32.0" },
      paths,
      components: { schemas },
    };
    const text = JSON.stringify(doc);
    const built = { text, hash: createHash("sha512").update(text).digest("hex").toUpperCase() };
    this.#docs.set(path, built);
    return built;
  }

  root(): unknown {
    const paths: Record<string, unknown> = {};
    for (const p of this.#gvPaths()) {
      const built = this.#build(p);
      if (built) paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${built.hash}` };
    }
    return { paths };
  }

  document(path: string, hash: string | null): ApiResponse {
    const built = this.#build(path);
    if (!built) {
      return {
        status: 404,
        headers: { "Content-Type": "application/json" },
        body: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "the server could not find the requested resource",
          reason: "NotFound",
          code: 404,
        },
      };
    }
    if (hash && hash !== built.hash) {
      return { status: 301, headers: { Location: `/openapi/v3/${path}?hash=${built.hash}` }, text: "" };
    }
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      ETag: `"${built.hash}"`,
      Vary: "Accept",
    };
    if (hash) {
      headers["Cache-Control"] = "public, immutable";
      headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
    } else {
      headers["Cache-Control"] = "no-cache, private";
    }
    return { status: 200, headers, text: built.text };
  }
}

const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

/** A protobuf length-delimited field (wire type 2) holding `bytes`. */
function pbField(field: number, bytes: Buffer): Buffer {
  const len: number[] = [];
  let n = bytes.length;
  do {
    len.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...len]), bytes]);
}

/**
 * `/openapi/v2`: a valid Swagger 2.0 document that lists no paths or definitions. Our schemas
 * are published per group version under `/openapi/v3`, which is what kubectl uses; kubectl
 * still reads v2 to validate a `kind: List` file client-side, where types it finds no schema
 * for are skipped, and the server then validates each item as it is applied. In gnostic's
 * protobuf (what kubectl asks for) or JSON.
 */
export function openApiV2(accept: string | undefined): {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
  bytes?: Buffer;
} {
  const title = "karmada-ts";
  const version = "v1.32.0";
  if (accept?.includes(OPENAPI_V2_PROTOBUF)) {
    // Document { swagger = 1; info = 2 { title = 1; version = 2 }; paths = 8 {} }
    const info = Buffer.concat([pbField(1, Buffer.from(title)), pbField(2, Buffer.from(version))]);
    const doc = Buffer.concat([
      pbField(1, Buffer.from("2.0")),
      pbField(2, info),
      pbField(8, Buffer.alloc(0)),
    ]);
    // The media type kubectl asks for does not parse as a Content-Type (its "@"); any that does will do.
    return { status: 200, headers: { "Content-Type": "application/octet-stream" }, bytes: doc };
  }
  return {
    status: 200,
    headers: { "Content-Type": "application/json" },
    body: { swagger: "2.0", info: { title, version }, paths: {} },
  };
}
