/**
 * A component's `/metrics` on `--metrics-bind-address`, as Kubernetes components serve it
 * securely: HTTPS (the given certificate, else a self-signed one made at start), every scrape
 * authenticated and authorized by the control plane it talks to (delegated-auth.ts), so
 * Prometheus scrapes with a service account token allowed `get` on `/metrics` (the
 * `system:monitoring` ClusterRole). Upstream's karmada components serve plain HTTP here; ours
 * never serve anything unauthenticated but probes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { TLSSocket } from "node:tls";
import { forbiddenError } from "../apiserver/authz/authorizer.ts";
import type { Logger } from "../log.ts";
import { type ApiError, internalError, pathNotFound, unauthorized } from "../machinery/errors.ts";
import { exposition, type Registry } from "../metrics/registry.ts";
import type { DelegatedAuth } from "./delegated-auth.ts";
import { type HealthServer, listen, selfSignedServing } from "./health.ts";

export interface MetricsServerOptions {
  host: string;
  port: number;
  registry: Registry;
  auth: DelegatedAuth;
  /** `--tls-cert-file`/`--tls-private-key-file`; default: self-signed. */
  tls?: { certPem: string; keyPem: string };
  /** `--client-ca-file`: client certificates signed by it authenticate too. */
  clientCaPem?: string;
  log: Logger;
}

/** A Status, worded as kube-apiserver words it. */
function reply(res: ServerResponse, err: ApiError): void {
  res.writeHead(err.code, { "Content-Type": "application/json" }).end(JSON.stringify(err.status));
}

function credentialsOf(req: IncomingMessage): Parameters<DelegatedAuth["check"]>[0] {
  const header = req.headers.authorization ?? "";
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (m) return { token: m[1]! };
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) return {};
  const subject = socket.getPeerCertificate()?.subject as unknown as
    | Record<string, string | string[]>
    | undefined;
  if (!subject?.CN) return {};
  const cn = Array.isArray(subject.CN) ? subject.CN[0]! : subject.CN;
  const o = subject.O === undefined ? [] : Array.isArray(subject.O) ? subject.O : [subject.O];
  return { certificate: { commonName: cn, organizations: o } };
}

export async function startMetricsServer(opts: MetricsServerOptions): Promise<HealthServer> {
  const tls = opts.tls ?? (await selfSignedServing());
  const server = createServer(
    {
      cert: tls.certPem,
      key: tls.keyPem,
      minVersion: "TLSv1.2",
      ...(opts.clientCaPem ? { ca: opts.clientCaPem, requestCert: true, rejectUnauthorized: false } : {}),
    },
    (req, res) => {
      void (async () => {
        const path = new URL(req.url ?? "/", "https://x").pathname;
        if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD"))
          return reply(res, pathNotFound());
        const verdict = await opts.auth.check(credentialsOf(req), path);
        if (!verdict.user) return reply(res, unauthorized());
        if (!verdict.allowed) {
          opts.log.debug("metrics scrape refused", { user: verdict.user.name });
          const user = { name: verdict.user.name, groups: verdict.user.groups };
          return reply(res, forbiddenError({ kind: "nonresource", verb: "get", path, user }, ""));
        }
        const { contentType, text } = await exposition(opts.registry);
        res.writeHead(200, { "Content-Type": contentType }).end(req.method === "HEAD" ? undefined : text);
      })().catch((err: unknown) => {
        opts.log.error(err, "metrics request failed");
        if (!res.headersSent) reply(res, internalError(err));
        else res.end();
      });
    },
  );
  return listen(server, opts.host, opts.port, true);
}
