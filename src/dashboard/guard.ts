/**
 * The dashboard's request guards, as pure functions over headers.
 *
 * Bound to loopback, the dashboard acts as the kubeconfig's user for whoever reaches it, as
 * `kubectl proxy` does; so, like kubectl proxy's `--accept-hosts`, it refuses a Host header
 * that is not loopback (a DNS-rebinding page would send its own name), and its API refuses
 * cross-site requests: it needs the `X-Karmada-Dashboard` header (which a page of another site
 * cannot send without a CORS preflight we never grant), and an `Origin` or `Sec-Fetch-Site`,
 * when the browser sends one, must say same-origin.
 *
 * Bound elsewhere, every API call carries the user's own bearer token.
 */
import { isIP } from "node:net";

/** The header every API call of the dashboard's own page sends. */
export const CSRF_HEADER = "x-karmada-dashboard";

/** Whether a bind address is loopback only: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackAddress(address: string): boolean {
  const host = address.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1";
  return false;
}

/** How the dashboard signs users in for a bind address: loopback → the kubeconfig's user; else tokens. */
export function modeFor(bindAddress: string): "local" | "token" {
  return isLoopbackAddress(bindAddress) ? "local" : "token";
}

/** The host name of a Host header (`127.0.0.1:8000` → `127.0.0.1`, `[::1]:8000` → `::1`); undefined when malformed. */
export function hostOfHeader(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+))(?::(\d{1,5}))?$/.exec(host.trim());
  if (!m) return undefined;
  return (m[1] ?? m[2])!.toLowerCase();
}

/** Loopback mode: only requests that name a loopback host (kubectl proxy's default `--accept-hosts`). */
export function hostAllowed(host: string | undefined): boolean {
  const name = hostOfHeader(host);
  return name !== undefined && isLoopbackAddress(name);
}

type Headers = Record<string, string | string[] | undefined>;

function one(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

/**
 * Why an API request may come from another site (undefined: it may not). `ownOrigin` is the
 * origin the page was served from, e.g. `http://127.0.0.1:8000`.
 */
export function crossSiteProblem(headers: Headers, ownOrigin: string): string | undefined {
  if (one(headers[CSRF_HEADER]) !== "1") {
    return `API requests need the ${CSRF_HEADER} header (the dashboard's page sends it; other sites cannot)`;
  }
  const site = one(headers["sec-fetch-site"]);
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    return `cross-site request refused (Sec-Fetch-Site: ${site})`;
  }
  const origin = one(headers.origin);
  if (origin !== undefined && origin !== "null" && origin.toLowerCase() !== ownOrigin.toLowerCase()) {
    return `cross-origin request from ${origin} refused`;
  }
  if (origin === "null") return "requests from an opaque origin are refused";
  return undefined;
}

/** The bearer token of an Authorization header, or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return m?.[1];
}

/** A namespace name as Kubernetes allows it (DNS-1123 label), for query parameters. */
export function validNamespace(ns: string): boolean {
  return ns.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns);
}

/**
 * Why the read-only proxy refuses a target path (undefined: it passes): only the Kubernetes
 * API and `/version`; no watches (pages stream their own views); and, as kubectl proxy
 * rejects exec and attach by default, none of the subresources that reach into workloads or
 * through to other servers (exec, attach, portforward, proxy), even as GETs.
 */
export function proxyTargetProblem(target: string, query: URLSearchParams): string | undefined {
  if (!/^\/(api|apis)(\/|$)|^\/version$/.test(target)) return "only /api, /apis and /version are proxied";
  const watch = query.get("watch");
  if (watch === "true" || watch === "1") return "the proxy serves reads, not watches";
  if (/\/(exec|attach|portforward|proxy)(\/|$)/.test(target)) {
    return "exec, attach, port-forward and proxy subresources are not passed";
  }
  return undefined;
}

/**
 * Why the API refuses a method on a path (405), or undefined: the proxy passes GET only (the
 * dashboard never writes), the what-if takes a POST of its changes, the rest are GETs.
 */
export function methodProblem(path: string, method: string): { allow: string; message: string } | undefined {
  if (path === "/api/k8s" || path.startsWith("/api/k8s/")) {
    return method === "GET"
      ? undefined
      : { allow: "GET", message: "the dashboard is read-only: only GET passes" };
  }
  if (path === "/api/whatif") {
    return method === "POST" ? undefined : { allow: "POST", message: "POST the what-if's changes" };
  }
  return method === "GET" ? undefined : { allow: "GET", message: `${method} is not served here` };
}
