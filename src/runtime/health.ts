/**
 * The probe endpoints of a component (controller manager, scheduler, agent, operator):
 * `/healthz`, `/livez` and `/readyz` with their checks (`?verbose`, `?exclude=`, one check at
 * `/<endpoint>/<name>`; see apiserver/healthz.ts). Upstream's current flag
 * `--health-probe-bind-address` serves them over plain HTTP (controller-runtime's probe
 * server); its older `--bind-address`/`--secure-port` served them over HTTPS with a
 * self-signed certificate made at start, which `secure` does here. Probes carry no
 * credentials, and these endpoints say only which checks pass, so they need none (kube's
 * `--authorization-always-allow-paths` default).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import {
  type HealthCheck,
  type HealthEndpoint,
  healthAnswer,
  healthPath,
  PING,
} from "../apiserver/healthz.ts";
import { createCertificateAuthority, issueCertificate } from "../pki/x509.ts";

export type { HealthCheck, HealthEndpoint };

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

/** The checks of each endpoint; `ping` is always there. */
export type HealthChecks = Partial<Record<HealthEndpoint, readonly HealthCheck[]>>;

/** `host:port`, `:port` (every interface) or `port`, as Go's listen addresses read. */
export function parseListenAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[?([^\]]*?)\]?:)?(\d+)$/.exec(address.trim());
  if (!m) throw new Error(`${JSON.stringify(address)} is not host:port (e.g. 127.0.0.1:10357 or :10357)`);
  const port = Number(m[2]);
  if (port > 65535) throw new Error(`${JSON.stringify(address)}: the port must be at most 65535`);
  return { host: m[1] ? m[1] : "0.0.0.0", port };
}

/** A serving certificate for `localhost`, this host and 127.0.0.1, signed by a CA made now (what Kubernetes components do without `--tls-cert-file`). */
export async function selfSignedServing(): Promise<{ certPem: string; keyPem: string }> {
  const now = new Date();
  const ca = await createCertificateAuthority({
    commonName: `${hostname()}-ca@${Math.floor(now.getTime() / 1000)}`,
    now,
  });
  const cert = await issueCertificate(ca, {
    commonName: `${hostname()}@${Math.floor(now.getTime() / 1000)}`,
    hosts: ["127.0.0.1", "localhost", hostname()],
    usage: "server",
    notAfter: new Date(now.getTime() + 365 * 24 * 3600_000),
  });
  return { certPem: cert.certPem + ca.certPem, keyPem: cert.keyPem };
}

/** Listens; the URL it serves at (`https://` when `tls`). */
export async function listen(
  server: Server,
  host: string,
  port: number,
  tls: boolean,
): Promise<HealthServer> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `${tls ? "https" : "http"}://${shown}:${bound}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

export async function startHealthServer(opts: {
  host: string;
  port: number;
  /** HTTPS with a self-signed certificate (the older `--secure-port`). */
  secure: boolean;
  checks?: HealthChecks;
}): Promise<HealthServer> {
  const checks = (endpoint: HealthEndpoint): HealthCheck[] => [PING, ...(opts.checks?.[endpoint] ?? [])];
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://x");
    const path = healthPath(url.pathname);
    if ((req.method !== "GET" && req.method !== "HEAD") || !path) {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("404 page not found\n");
      return;
    }
    void healthAnswer(path.endpoint, path.check, url.searchParams, checks(path.endpoint)).then((answer) => {
      res
        .writeHead(answer.status, {
          "Content-Type": "text/plain; charset=utf-8",
          "X-Content-Type-Options": "nosniff",
        })
        .end(req.method === "HEAD" ? undefined : answer.text);
    });
  };
  let server: Server;
  if (opts.secure) {
    const tls = await selfSignedServing();
    server = createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, listener);
  } else server = createServer(listener);
  return listen(server, opts.host, opts.port, opts.secure);
}
