/**
 * URL → what the request is about, in the Kubernetes URL grammar:
 *   /api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]
 *   /apis/{group}/{version}[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]
 * A pure function, table-tested.
 */

export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

export interface ResourceRequest {
  kind: "resource";
  verb: Verb;
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string;
  name: string | undefined;
  subresource: string | undefined;
}

export interface NonResourceRequest {
  kind: "nonresource";
  path: string;
}

export type RequestInfo = ResourceRequest | NonResourceRequest;

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/**
 * A boolean query parameter as the issue asks and Go's `strconv.ParseBool` reads it
 * (`1 t T TRUE true True`, `0 f F FALSE false False`); anything else as kube-apiserver's
 * parameter conversion reads it: false only for a case-insensitive "false" or "0", true
 * otherwise (so `?watch` and `?watch=yes` watch). The two differ only for `f`/`F`, which
 * kube-apiserver's conversion would take as true.
 */
export function parseQueryBool(value: string): boolean {
  switch (value) {
    case "1":
    case "t":
    case "T":
    case "TRUE":
    case "true":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "FALSE":
    case "false":
    case "False":
      return false;
    default:
      return value.toLowerCase() !== "false";
  }
}

function isWatch(query: URLSearchParams): boolean {
  const w = query.get("watch");
  return w !== null && parseQueryBool(w);
}

export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const parts = path.split("/").filter((p) => p !== "");
  let rest: string[];
  let group: string;
  let version: string;
  if (parts[0] === "api" && parts.length >= 3) {
    group = "";
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 4) {
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else {
    return { kind: "nonresource", path };
  }
  let watchPrefix = false;
  if (rest[0] === "watch") {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length > 1) {
    namespace = rest[1]!;
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  }
  const resource = rest[0];
  if (!resource) return { kind: "nonresource", path };
  const name = rest[1];
  const subresource = rest.length > 2 ? rest.slice(2).join("/") : undefined;
  // `/api/v1/namespaces/foo` names the namespace itself, not a namespaced collection.
  if (resource === "namespaces") namespace = undefined;
  const verb = verbOf(method, name !== undefined, watchPrefix || isWatch(query));
  return { kind: "resource", verb, group, version, namespace, resource, name, subresource };
}

function verbOf(method: string, hasName: boolean, watch: boolean): Verb {
  switch (method) {
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return hasName ? "delete" : "deletecollection";
    default:
      if (watch) return "watch";
      return hasName ? "get" : "list";
  }
}
