/**
 * Requests passed on to a member cluster as the user who sent them, the way upstream's
 * cluster proxy (`clusters/<name>/proxy`) and karmada-search's cluster plugin do it: to the
 * Cluster's `apiEndpoint`, trusting the CA of its credentials secret, authenticated with the
 * token of its impersonator secret, carrying `Impersonate-User` and one `Impersonate-Group`
 * per group of the caller (without `system:authenticated`/`system:unauthenticated`, which
 * the member adds back itself). The member's RBAC then decides, for that user. The body and
 * the response are streamed, so watches and `logs -f` pass through.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { isObject, type StoredObject } from "../api/meta.ts";
import { AUTHENTICATED, UNAUTHENTICATED } from "../apiserver/authn/authenticator.ts";
import type { UserInfo } from "../apiserver/context.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import { HttpClient } from "../client/http.ts";
import { type ApiError, errorMessage, internalError, serviceUnavailable } from "../machinery/errors.ts";
import { unb64 } from "./connections.ts";

/** Headers that belong to one hop, or that the proxy sets itself. */
const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "authorization",
]);

function failure(message: string): ApiError {
  const err = internalError(new Error(message));
  err.status.message = message;
  return err;
}

interface Cached {
  version: string;
  client: HttpClient;
}

/** One streaming client per member, rebuilt when the Cluster's endpoint or its secrets change. */
export class MemberProxies {
  #controlPlane: Client;
  #cache = new Map<string, Cached>();

  /** `controlPlane` reads Clusters and their secrets (the aggregated API server's or karmada-search's identity). */
  constructor(controlPlane: Client) {
    this.#controlPlane = controlPlane;
  }

  /** The client for this cluster; errors say what the Cluster lacks, as upstream's. */
  async clientFor(clusterName: string): Promise<HttpClient> {
    const cluster = await this.#controlPlane.get(RESOURCES.clusters, undefined, clusterName);
    const spec = isObject(cluster.spec) ? cluster.spec : {};
    const endpoint = typeof spec.apiEndpoint === "string" ? spec.apiEndpoint : "";
    if (!endpoint) throw failure(`API endpoint of cluster ${clusterName} should not be empty`);
    const impRef = isObject(spec.impersonatorSecretRef) ? spec.impersonatorSecretRef : undefined;
    if (!impRef) throw failure(`the impersonatorSecretRef of cluster ${clusterName} is nil`);
    const impersonator = await this.#secret(impRef);
    const token = unb64(isObject(impersonator.data) ? impersonator.data.token : undefined);
    if (!token) throw failure(`the impersonator token of cluster ${clusterName} is empty`);
    const caRef = isObject(spec.secretRef) ? spec.secretRef : undefined;
    const caSecret = caRef ? await this.#secret(caRef) : undefined;
    const caData = unb64(isObject(caSecret?.data) ? caSecret.data.caBundle : undefined);
    const insecure = spec.insecureSkipTLSVerification === true;
    const proxyUrl = typeof spec.proxyURL === "string" && spec.proxyURL ? spec.proxyURL : undefined;
    const version = JSON.stringify([
      cluster.metadata.uid,
      endpoint,
      insecure,
      proxyUrl ?? "",
      impersonator.metadata.resourceVersion,
      caSecret?.metadata.resourceVersion ?? "",
    ]);
    const cached = this.#cache.get(clusterName);
    if (cached?.version === version) return cached.client;
    cached?.client.close();
    const client = new HttpClient({
      server: endpoint,
      token,
      ...(caData ? { caData } : {}),
      ...(insecure ? { insecureSkipTLSVerify: true } : {}),
      ...(proxyUrl ? { proxyUrl } : {}),
      userAgent: "karmada-proxy",
    });
    this.#cache.set(clusterName, { version, client });
    return client;
  }

  async #secret(ref: Record<string, unknown>): Promise<StoredObject> {
    return this.#controlPlane.get(RESOURCES.secrets, String(ref.namespace ?? ""), String(ref.name ?? ""));
  }

  close(): void {
    for (const c of this.#cache.values()) c.client.close();
    this.#cache.clear();
  }
}

/** The request headers a member receives: the caller's, minus hop-by-hop and credentials, plus impersonation. */
export function memberHeaders(
  incoming: IncomingMessage["headers"],
  user: UserInfo,
  bodyLength?: number,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_HEADERS.has(name) || name.startsWith("impersonate-")) continue;
    out[name] = value;
  }
  if (bodyLength !== undefined) out["content-length"] = String(bodyLength);
  else if (incoming["transfer-encoding"]) out["transfer-encoding"] = incoming["transfer-encoding"];
  out["Impersonate-User"] = user.name;
  const groups = user.groups.filter((g) => g !== AUTHENTICATED && g !== UNAUTHENTICATED);
  if (groups.length > 0) out["Impersonate-Group"] = groups;
  return out;
}

export interface ForwardRequest {
  cluster: string;
  method: string;
  /** The member path and raw query (`/api/v1/nodes?watch=true`). */
  pathAndQuery: string;
  incoming: IncomingMessage;
  /** A body read (and perhaps rewritten) already; otherwise the incoming stream is piped. */
  body?: Buffer;
  user: UserInfo;
}

/** Streams the member's answer to `res`; a member that cannot be reached is a 503 Status. */
export async function forwardToMember(
  client: HttpClient,
  req: ForwardRequest,
  res: ServerResponse,
): Promise<void> {
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  const headers = memberHeaders(req.incoming.headers, req.user, req.body?.length);
  const hasBody =
    req.body !== undefined ||
    req.incoming.headers["content-length"] !== undefined ||
    req.incoming.headers["transfer-encoding"] !== undefined;
  let upstream: IncomingMessage;
  try {
    upstream = await client.open(
      req.method,
      req.pathAndQuery,
      headers,
      req.body ?? (hasBody ? (req.incoming as Readable) : undefined),
      abort.signal,
    );
  } catch (err) {
    if (abort.signal.aborted) return;
    throw serviceUnavailable(`the member cluster ${req.cluster} could not be reached: ${errorMessage(err)}`);
  }
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value;
  }
  res.writeHead(upstream.statusCode ?? 502, out);
  // Streams (watches, follow) reach the client as they come.
  res.flushHeaders();
  await new Promise<void>((resolve) => {
    upstream.on("data", (chunk: Buffer) => res.write(chunk));
    upstream.on("end", () => {
      res.end();
      resolve();
    });
    upstream.on("error", () => {
      res.destroy();
      resolve();
    });
    upstream.on("close", () => {
      if (!res.writableEnded) res.end();
      resolve();
    });
  });
}
