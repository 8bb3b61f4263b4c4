/**
 * Media types: what a client asked for in `Accept`, and what a request body is.
 */

export interface MediaType {
  type: string;
  params: Record<string, string>;
}

export function parseMediaTypes(header: string | undefined): MediaType[] {
  if (!header) return [];
  return header
    .split(",")
    .map((part) => {
      const [type, ...params] = part.split(";").map((p) => p.trim());
      const out: MediaType = { type: (type ?? "").toLowerCase(), params: {} };
      for (const p of params) {
        const eq = p.indexOf("=");
        if (eq > 0)
          out.params[p.slice(0, eq).trim().toLowerCase()] = p
            .slice(eq + 1)
            .trim()
            .replace(/^"|"$/g, "");
      }
      return out;
    })
    .filter((m) => m.type !== "");
}

export type ResponseShape = "object" | "table" | "partial-metadata" | "partial-metadata-list";

/**
 * The representation the client prefers among those we produce: a Table, PartialObjectMetadata,
 * or the plain object (JSON). Protobuf-only clients get JSON too; client-go decodes by the
 * response Content-Type.
 */
export function responseShape(accept: string | undefined): ResponseShape {
  for (const m of parseMediaTypes(accept)) {
    if (m.type !== "application/json" && m.type !== "*/*" && m.type !== "application/*") continue;
    const as = m.params.as;
    if (!as) return "object";
    if (m.params.g !== "meta.k8s.io") continue;
    if (m.params.v !== "v1" && m.params.v !== "v1beta1") continue;
    if (as === "Table") return "table";
    if (as === "PartialObjectMetadata") return "partial-metadata";
    if (as === "PartialObjectMetadataList") return "partial-metadata-list";
  }
  return "object";
}

export const AGGREGATED_DISCOVERY_TYPE =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
export const AGGREGATED_DISCOVERY_TYPE_BETA =
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

/** Which aggregated discovery version the client accepts first, if any. */
export function aggregatedDiscovery(accept: string | undefined): "v2" | "v2beta1" | undefined {
  for (const m of parseMediaTypes(accept)) {
    if (m.type !== "application/json") continue;
    if (m.params.as !== "APIGroupDiscoveryList" || m.params.g !== "apidiscovery.k8s.io") {
      if (!m.params.as) return undefined;
      continue;
    }
    if (m.params.v === "v2") return "v2";
    if (m.params.v === "v2beta1") return "v2beta1";
  }
  return undefined;
}

/** What a resource endpoint can answer with (kube-apiserver's serializers), for 406s. */
export const RESPONSE_TYPES = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/**
 * Whether an `Accept` header leaves us something to answer with: no header, a wildcard, or one
 * of RESPONSE_TYPES (JSON is sent for YAML and protobuf; clients decode by Content-Type).
 * Anything else (`text/html`) is kube-apiserver's 406.
 */
export function acceptsResponse(accept: string | undefined): boolean {
  const types = parseMediaTypes(accept);
  if (types.length === 0) return true;
  return types.some((m) => m.type === "*/*" || m.type === "application/*" || RESPONSE_TYPES.includes(m.type));
}

export type BodyFormat = "json" | "yaml" | "protobuf";

export const PATCH_TYPES = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
  applyCbor: "application/apply-patch+cbor",
} as const;

export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

export function bodyFormat(contentType: string | undefined): BodyFormat | undefined {
  const t = mediaTypeOf(contentType);
  if (t === "" || t === "application/json") return "json";
  if (t === "application/yaml" || t === "application/x-yaml" || t === "text/yaml") return "yaml";
  if (t === "application/vnd.kubernetes.protobuf") return "protobuf";
  return undefined;
}
