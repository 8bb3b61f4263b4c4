/**
 * agentcsrapproving, as upstream's karmada-controller-manager runs it: a pending
 * `kubernetes.io/kube-apiserver-client` CSR that is an agent's (subject O exactly
 * `system:karmada:agents`, CN `system:karmada:agent:...`, no SANs, usages digital signature
 * [+ key encipherment] + client auth) is approved (`AutoApproved`) when a SubjectAccessReview
 * says its requester may create `certificatesigningrequests/selfclusteragent` (renewing its
 * own certificate) or `certificatesigningrequests/clusteragent` (a bootstrap token
 * registering a cluster). Anything else is left for a person (`kubectl certificate approve`).
 */
import { csrCertificate, csrConditions, csrUsages, KUBE_APISERVER_CLIENT_SIGNER } from "../api/csr.ts";
import { isObject, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { AGENT_USER_PREFIX, AGENTS_GROUP } from "../karmada/rbac.ts";
import { parseCertificateRequest } from "../pki/x509.ts";
import { type Controller, done, TerminalError } from "../runtime/controller.ts";
import type { ControllerContext } from "./context.ts";

const USAGE_SETS = [
  ["client auth", "digital signature", "key encipherment"],
  ["client auth", "digital signature"],
];

function specOf(csr: StoredObject): Record<string, unknown> {
  return isObject(csr.spec) ? csr.spec : {};
}

function pending(csr: StoredObject): boolean {
  if (csrCertificate(csr) !== "") return false;
  return !csrConditions(csr).some((c) => c.type === "Approved" || c.type === "Denied");
}

/** Whether a parsed request is an agent's, as upstream's ValidateAgentCSR decides. */
export function isAgentRequest(
  request: {
    commonName: string;
    organizations: string[];
    dnsNames: string[];
    ipAddresses: string[];
    emailAddresses: string[];
    uris: string[];
  },
  usages: readonly string[],
): boolean {
  if (request.organizations.length !== 1 || request.organizations[0] !== AGENTS_GROUP) return false;
  if (
    request.dnsNames.length +
      request.ipAddresses.length +
      request.emailAddresses.length +
      request.uris.length >
    0
  )
    return false;
  if (!request.commonName.startsWith(AGENT_USER_PREFIX)) return false;
  const set = [...new Set(usages)].sort();
  return USAGE_SETS.some((u) => u.length === set.length && u.every((x, i) => x === set[i]));
}

export function agentCsrApprovingController(ctx: ControllerContext): Controller {
  const csrs = ctx.informers.informer(RESOURCES.certificatesigningrequests);

  const allowed = async (csr: StoredObject, subresource: string): Promise<boolean> => {
    const spec = specOf(csr);
    const review = await ctx.client.create(RESOURCES.subjectaccessreviews, {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user: spec.username,
        ...(spec.uid ? { uid: spec.uid } : {}),
        groups: spec.groups,
        ...(spec.extra ? { extra: spec.extra } : {}),
        resourceAttributes: {
          verb: "create",
          group: "certificates.k8s.io",
          version: "*",
          resource: "certificatesigningrequests",
          subresource,
        },
      },
    });
    return isObject(review.status) && review.status.allowed === true;
  };

  return {
    name: "agent-csr-approving-controller",
    for: csrs,
    async reconcile(rc, key) {
      const csr = csrs.getByKey(key);
      if (!csr || csr.metadata.deletionTimestamp || !pending(csr)) return done;
      const spec = specOf(csr);
      if (spec.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return done;
      let request: Awaited<ReturnType<typeof parseCertificateRequest>>;
      try {
        request = await parseCertificateRequest(
          Buffer.from(String(spec.request ?? ""), "base64").toString("utf8"),
        );
      } catch (err) {
        throw new TerminalError(`unable to parse csr "${key}": ${(err as Error).message}`);
      }
      const usages = csrUsages(csr);
      if (!isAgentRequest(request, usages)) return done;
      let message: string | undefined;
      if (spec.username === request.commonName && (await allowed(csr, "selfclusteragent"))) {
        message = "Auto approving self karmada agent certificate after SubjectAccessReview.";
      } else if (await allowed(csr, "clusteragent")) {
        message = "Auto approving karmada agent certificate after SubjectAccessReview.";
      }
      if (!message) {
        rc.log.info("recognized CSR but SAR was not approved");
        return done;
      }
      const status = isObject(csr.status) ? csr.status : {};
      const conditions = Array.isArray(status.conditions) ? status.conditions : [];
      // Not through `commit`: approval is a subresource of its own, which `/status` cannot set.
      await ctx.client.patch(
        RESOURCES.certificatesigningrequests,
        undefined,
        csr.metadata.name,
        "merge",
        {
          status: {
            conditions: [
              ...conditions,
              { type: "Approved", status: "True", reason: "AutoApproved", message },
            ],
          },
        },
        { subresource: "approval" },
      );
      return done;
    },
  };
}
