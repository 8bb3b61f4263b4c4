/**
 * CertificateSigningRequests as kube-apiserver's strategy and certificate admission plugins
 * treat them:
 * - on create, `spec.username`, `uid`, `groups` and `extra` become the requester's (a
 *   signer's approver trusts them), the status starts empty, and the request's
 *   self-signature must check out; the `kubernetes.io/kube-apiserver-client` signer will not
 *   take a `system:masters` subject (CertificateSubjectRestriction);
 * - the spec never changes after create;
 * - `/approval` needs `approve` on `signers` named the signer (or `<domain>/*`) besides the
 *   RBAC on the subresource (CertificateApproval).
 */
import { createPublicKey } from "node:crypto";
import { KUBE_APISERVER_CLIENT_SIGNER } from "../../api/csr.ts";
import { isObject, type StoredObject } from "../../api/meta.ts";
import { type FieldError, forbidden } from "../../machinery/errors.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { parseCertificateRequest } from "../../pki/x509.ts";
import { MASTERS_GROUP } from "../authz/authorizer.ts";
import type { AdmissionPlugin, RequestContext, ServerContext } from "../context.ts";

const CSR_RESOURCE = { group: "certificates.k8s.io", resource: "certificatesigningrequests" };

/** What Go's x509 says when a request's self-signature does not verify, by key type. */
function signatureFailure(publicKeyPem: string): string {
  const type = createPublicKey(publicKeyPem).asymmetricKeyType;
  if (type === "rsa") return "crypto/rsa: verification error";
  if (type === "ed25519") return "x509: Ed25519 verification failure";
  return "x509: ECDSA verification failure";
}

function specOf(obj: StoredObject): Record<string, unknown> {
  return isObject(obj.spec) ? obj.spec : {};
}

export function certificateSigningRequestAdmission(): AdmissionPlugin {
  return {
    name: "CertificateSigningRequest",
    handles: (rt) => rt.group === "certificates.k8s.io" && rt.kind === "CertificateSigningRequest",
    mutate(obj, old, op, ctx) {
      if (op === "UPDATE" && old) {
        obj.spec = cloneJson(old.spec);
        return;
      }
      if (op !== "CREATE") return;
      const spec = specOf(obj);
      spec.username = ctx.user.name;
      if (ctx.user.uid) spec.uid = ctx.user.uid;
      else delete spec.uid;
      spec.groups = [...ctx.user.groups];
      if (ctx.user.extra) spec.extra = cloneJson(ctx.user.extra);
      else delete spec.extra;
      obj.spec = spec;
      obj.status = {};
    },
    async validate(obj, _old, op) {
      if (op !== "CREATE") return [];
      const spec = specOf(obj);
      if (typeof spec.request !== "string") return [];
      const pem = Buffer.from(spec.request, "base64").toString("utf8");
      let subject: { organizations: string[]; signatureValid: boolean; publicKeyPem: string };
      try {
        subject = await parseCertificateRequest(pem);
      } catch {
        // The PEM shape itself is reported by the CSR's validation.
        return [];
      }
      const errors: FieldError[] = [];
      if (!subject.signatureValid) {
        errors.push({
          type: "FieldValueInvalid",
          field: "spec.request",
          value: spec.request,
          detail: signatureFailure(subject.publicKeyPem),
        });
      }
      if (spec.signerName === KUBE_APISERVER_CLIENT_SIGNER && subject.organizations.includes(MASTERS_GROUP)) {
        throw forbidden(
          CSR_RESOURCE,
          obj.metadata.name ?? "",
          "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed",
        );
      }
      return errors;
    },
  };
}

/** CertificateApproval: the approver must hold `approve` on the signer. */
export function authorizeApproval(server: ServerContext, ctx: RequestContext, csr: StoredObject): void {
  const authorizer = server.authorizer;
  if (!authorizer) return;
  const signer = String(specOf(csr).signerName ?? "");
  const ask = (name: string) =>
    authorizer.authorize({
      kind: "resource",
      user: ctx.user,
      verb: "approve",
      apiGroup: "certificates.k8s.io",
      apiVersion: "*",
      resource: "signers",
      subresource: "",
      namespace: "",
      name,
    }).allowed;
  const domain = signer.split("/")[0] ?? "";
  if (ask(signer) || ask(`${domain}/*`)) return;
  throw forbidden(
    CSR_RESOURCE,
    csr.metadata.name ?? "",
    `user not permitted to approve requests with signerName ${JSON.stringify(signer)}`,
  );
}
