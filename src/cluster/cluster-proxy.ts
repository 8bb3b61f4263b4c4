/**
 * `/apis/cluster.karmada.io/v1alpha1/clusters/<name>/proxy/<path>`: any request to one member
 * through the control plane, as upstream's karmada-aggregated-apiserver serves it. The
 * caller needs RBAC on `clusters/proxy` (with `resourceNames` to narrow it to clusters); the
 * member then authorizes the caller's own identity, which reaches it by impersonation (the
 * unified-auth controller grants the member's impersonator exactly the subjects allowed to
 * proxy).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Authorizer } from "../apiserver/authz/authorizer.ts";
import { type ExtensionRequest, type HttpExtension, serveConnect } from "../apiserver/extensions.ts";
import { forwardToMember, type MemberProxies } from "./member-proxy.ts";

const PREFIX = "/apis/cluster.karmada.io/v1alpha1/clusters/";
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

/** `<name>` and the member path of a cluster proxy URL, or undefined for any other path. */
export function parseClusterProxyPath(path: string): { cluster: string; memberPath: string } | undefined {
  if (!path.startsWith(PREFIX)) return undefined;
  const rest = path.slice(PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash <= 0) return undefined;
  const cluster = rest.slice(0, slash);
  const after = rest.slice(slash + 1);
  if (after !== "proxy" && !after.startsWith("proxy/")) return undefined;
  const memberPath = after.slice("proxy".length);
  return { cluster, memberPath: memberPath === "" ? "/" : memberPath };
}

export function clusterProxy(deps: {
  authorizer: () => Authorizer | undefined;
  members: MemberProxies;
}): HttpExtension {
  return {
    async serve(req: IncomingMessage, res: ServerResponse, ext: ExtensionRequest): Promise<boolean> {
      // The raw path: the member gets it encoded as the client sent it.
      const target = parseClusterProxyPath(ext.url.pathname);
      if (!target) return false;
      const method = req.method ?? "GET";
      if (!METHODS.has(method)) {
        await ext.respond({
          status: 405,
          headers: { "Content-Type": "text/plain" },
          text: `${method} is not supported on clusters/proxy\n`,
        });
        return true;
      }
      const rbac = {
        group: "cluster.karmada.io",
        version: "v1alpha1",
        resource: "clusters",
        name: target.cluster,
        subresource: "proxy",
      };
      await serveConnect(req, res, ext, deps.authorizer(), rbac, async (user) => {
        const client = await deps.members.clientFor(target.cluster);
        await forwardToMember(
          client,
          {
            cluster: target.cluster,
            method,
            pathAndQuery: target.memberPath + ext.url.search,
            incoming: req,
            user,
          },
          res,
        );
      });
      return true;
    },
  };
}
