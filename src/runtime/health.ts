/**
 * The health endpoints of a component (controller manager, scheduler): `/healthz`, `/livez`
 * and `/readyz`, as probes read them. Upstream's current flag `--health-probe-bind-address`
 * serves them over plain HTTP (controller-runtime's probe server); its older
 * `--bind-address`/`--secure-port` served them over HTTPS with a self-signed certificate made
 * at start, which `secure` does here. They say "ok" and nothing else, so they need no
 * authentication.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { createCertificateAuthority, issueCertificate } from "../pki/x509.ts";

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

const PATHS = new Set(["/healthz", "/livez", "/readyz", "/healthz/ping", "/livez/ping", "/readyz/ping"]);

/** `host:port`, `:port` (every interface) or `port`, as Go's listen addresses read. */
export function parseListenAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[?([^\]]*?)\]?:)?(\d+)$/.exec(address.trim());
  if (!m) throw new Error(`${JSON.stringify(address)} is not host:port (e.g. 127.0.0.1:10357 or :10357)`);
  const port = Number(m[2]);
  if (port > 65535) throw new Error(`${JSON.stringify(address)}: the port must be at most 65535`);
  return { host: m[1] ? m[1] : "0.0.0.0", port };
}

export async function startHealthServer(opts: {
  host: string;
  port: number;
  /** HTTPS with a self-signed certificate (the older `--secure-port`). */
  secure: boolean;
  /** False makes `/readyz` fail (e.g. while the component is still starting). */
  ready?: () => boolean;
}): Promise<HealthServer> {
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if ((req.method !== "GET" && req.method !== "HEAD") || !PATHS.has(path)) {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("404 page not found\n");
      return;
    }
    const ok = !path.startsWith("/readyz") || (opts.ready?.() ?? true);
    res
      .writeHead(ok ? 200 : 500, { "Content-Type": "text/plain; charset=utf-8" })
      .end(req.method === "HEAD" ? undefined : ok ? "ok" : "[-]ready failed\nreadyz check failed\n");
  };
  let server: Server;
  if (opts.secure) {
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
    server = createHttpsServer({ cert: cert.certPem + ca.certPem, key: cert.keyPem }, listener);
  } else {
    server = createServer(listener);
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  return {
    url: `${opts.secure ? "https" : "http"}://${host}:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
