/**
 * Reaching an interpreter webhook: where it is (clientConfig.url or clientConfig.service), how
 * its certificate is checked (clientConfig.caBundle), and one HTTPS POST with a deadline.
 *
 * Upstream facts (karmada `configmanager/accessor.go`, k8s.io/apiserver
 * `pkg/util/webhook/client.go`, karmada `customized.go`, `pkg/webhook/configuration/validating.go`):
 * - a service reference is dialed as `https://<name>.<namespace>.svc:<port><path>`, port 443
 *   by default, and the certificate is checked for `<name>.<namespace>.svc`. Upstream first looks
 *   the Service up in the Karmada API server and dials its cluster IP; we only do the DNS
 *   fallback, which resolves only where cluster DNS does. When both url and service are set,
 *   the service wins (the validating webhook allows only one).
 * - the caBundle (PEM) replaces the system roots; without it the system roots are used.
 * - the timeout covers the whole call; it is also sent as the `timeout` query parameter.
 *   timeoutSeconds must be 1–30 (the validating webhook's rule), default 10 (the API docs).
 *   Upstream applies no per-webhook timeout when it is unset and falls back to its REST
 *   client's 30 s; we use the documented 10 s.
 * - only https URLs are accepted (the validating webhook's rule).
 */
import https from "node:https";

import type { InterpreterHook, WebhookClientConfig } from "./hooks.ts";

export const DEFAULT_TIMEOUT_SECONDS = 10;
export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 30;
export const DEFAULT_SERVICE_PORT = 443;

/** Where a webhook is, as a URL; throws when clientConfig names no usable endpoint. */
export function webhookUrl(config: WebhookClientConfig): URL {
  const { service } = config;
  if (service) {
    if (!service.name || !service.namespace) {
      throw new Error("clientConfig.service needs both a name and a namespace");
    }
    const port = service.port ?? DEFAULT_SERVICE_PORT;
    const path = service.path ?? "";
    if (path !== "" && !path.startsWith("/"))
      throw new Error(`clientConfig.service.path "${path}" must start with /`);
    return new URL(`https://${service.name}.${service.namespace}.svc:${port}${path}`);
  }
  if (config.url === undefined || config.url === "") {
    throw new Error("clientConfig has neither a url nor a service");
  }
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw new Error(`clientConfig.url "${config.url}" is not a valid URL`);
  }
  if (url.protocol !== "https:") throw new Error(`clientConfig.url "${config.url}" must use https`);
  return url;
}

/** The hook's timeout in seconds; throws when it is out of the allowed range. */
export function timeoutSecondsOf(hook: Pick<InterpreterHook, "timeoutSeconds">): number {
  const t = hook.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  if (!Number.isInteger(t) || t < MIN_TIMEOUT_SECONDS || t > MAX_TIMEOUT_SECONDS) {
    throw new Error(
      `timeoutSeconds is ${t}; it must be between ${MIN_TIMEOUT_SECONDS} and ${MAX_TIMEOUT_SECONDS} seconds`,
    );
  }
  return t;
}

/** The PEM certificates of a caBundle (base64 of PEM on the wire; PEM text is accepted too). */
export function caCertificates(caBundle: string | undefined): string | undefined {
  if (caBundle === undefined || caBundle === "") return undefined;
  const pem = caBundle.includes("-----BEGIN") ? caBundle : Buffer.from(caBundle, "base64").toString("utf8");
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new Error(
      "clientConfig.caBundle holds no PEM certificate (it must be base64 of PEM CA certificates)",
    );
  }
  return pem;
}

export interface PostOptions {
  /** PEM CA certificates to verify the server with; the system roots when undefined. */
  ca: string | undefined;
  timeoutSeconds: number;
  agent?: https.Agent;
}

export interface HttpAnswer {
  status: number;
  body: string;
}

/** Codes of Node's certificate verification failures (OpenSSL's X509_V_ERR names). */
const CERTIFICATE_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "CERT_SIGNATURE_FAILURE",
  "INVALID_CA",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** Why a request got no HTTP answer, in words that say what to check. */
export function describeNetworkError(err: NodeJS.ErrnoException, url: URL, hasCa: boolean): string {
  const code = err.code ?? "";
  const host = url.hostname;
  const hostPort = `${host}:${url.port || "443"}`;
  if (CERTIFICATE_CODES.has(code)) {
    const hint = hasCa
      ? "is clientConfig.caBundle the CA that signed the webhook's certificate, and is the certificate valid for this host?"
      : "no clientConfig.caBundle is set, so the system roots were used";
    return `TLS verification of the server certificate failed (${code}: ${err.message}); ${hint}`;
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    const hint = host.endsWith(".svc") ? " (service names resolve only where cluster DNS does)" : "";
    return `cannot resolve host "${host}" (${code})${hint}`;
  }
  if (code === "ECONNREFUSED") return `connection to ${hostPort} refused`;
  if (code.startsWith("ERR_SSL") || code.startsWith("ERR_TLS") || /SSL|TLS/.test(err.message)) {
    return `TLS handshake with ${hostPort} failed (${code || "error"}: ${err.message})`;
  }
  return `cannot reach ${hostPort}: ${err.message}${code ? ` (${code})` : ""}`;
}

/** The request could not be completed; `message` says why (timeout, TLS, network). */
export class CallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CallError";
  }
}

/**
 * POSTs a JSON body and reads the whole answer, all within `timeoutSeconds`. Resolves with any
 * HTTP answer; rejects with CallError when there is none.
 */
export function postJson(url: URL, body: string, options: PostOptions): Promise<HttpAnswer> {
  const target = new URL(url);
  target.searchParams.set("timeout", `${options.timeoutSeconds}s`);
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    const settle = (err: Error | undefined, answer?: HttpAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(answer!);
    };
    const request = https.request(
      target,
      {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, */*",
          "Content-Length": Buffer.byteLength(body),
        },
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
        ...(options.agent ? { agent: options.agent } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          settle(undefined, {
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", (err) => settle(new CallError(`reading the answer failed: ${err.message}`)));
      },
    );
    const timer = setTimeout(() => {
      settle(new CallError(`no answer within the ${options.timeoutSeconds}s timeout (timeoutSeconds)`));
      request.destroy();
    }, options.timeoutSeconds * 1000);
    request.on("error", (err: NodeJS.ErrnoException) =>
      settle(new CallError(describeNetworkError(err, target, options.ca !== undefined))),
    );
    request.end(body);
  });
}
