/** Validation of `certificates.k8s.io/v1` CertificateSigningRequest. */

import type { FieldError } from "../../machinery/errors.ts";
import { child, duplicate, index, invalid, notSupported, required, sorted, tooLong } from "./field.ts";
import { num, type Obj, obj, objs, str, strs } from "./json.ts";
import { isDNS1123Label } from "./names.ts";

const USAGES = sorted([
  "signing",
  "digital signature",
  "content commitment",
  "key encipherment",
  "key agreement",
  "data encipherment",
  "cert sign",
  "crl sign",
  "encipher only",
  "decipher only",
  "any",
  "server auth",
  "client auth",
  "code signing",
  "email protection",
  "s/mime",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "timestamping",
  "ocsp signing",
  "microsoft sgc",
  "netscape sgc",
]);
const TRUE_ONLY_CONDITIONS = new Set(["Approved", "Denied", "Failed"]);

/** The PEM check of `certificates.ParseCSR`; the signature itself is not verified here. */
function csrRequestError(request: string): string | undefined {
  const pem = Buffer.from(request, "base64").toString("utf8");
  const m = /-----BEGIN ([A-Z ]+)-----/.exec(pem);
  if (m?.[1] !== "CERTIFICATE REQUEST" || !pem.includes("-----END CERTIFICATE REQUEST-----")) {
    return "PEM block type must be CERTIFICATE REQUEST";
  }
  return undefined;
}

/** `ValidateSignerName`: `<domain>/<path>` with DNS-label segments. */
export function validateSignerName(field: string, signerName: string): FieldError[] {
  if (!signerName) return [required(field)];
  const segments = signerName.split("/");
  if (segments.length !== 2) {
    return [
      invalid(
        field,
        signerName,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'",
      ),
    ];
  }
  const [domain = "", path = ""] = segments;
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(tooLong(field, 253));
  const domainLabels = domain.split(".");
  for (const label of domainLabels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length > 0) {
      for (const m of msgs)
        errs.push(invalid(field, domain, `validating label ${JSON.stringify(label)}: ${m}`));
      break;
    }
  }
  if (domainLabels.length < 2)
    errs.push(invalid(field, domain, "should be a domain with at least two segments separated by dots"));
  for (const label of path.split(".")) {
    const msgs = isDNS1123Label(label);
    if (msgs.length > 0) {
      for (const m of msgs)
        errs.push(invalid(field, path, `validating label ${JSON.stringify(label)}: ${m}`));
      break;
    }
  }
  return errs;
}

export function validateCertificateSigningRequest(csr: Obj): FieldError[] {
  const s = obj(csr.spec) ?? {};
  const errs: FieldError[] = [];
  const requestErr = csrRequestError(str(s.request) ?? "");
  if (requestErr) errs.push(invalid("spec.request", s.request ?? "", requestErr));
  const usages = strs(s.usages);
  if (usages.length === 0) errs.push(required("spec.usages"));
  const seen = new Set<string>();
  usages.forEach((u, i) => {
    if (!USAGES.includes(u)) errs.push(notSupported(index("spec.usages", i), u, USAGES));
    if (seen.has(u)) errs.push(duplicate(index("spec.usages", i), u));
    seen.add(u);
  });
  const signerName = str(s.signerName) ?? "";
  if (signerName === "kubernetes.io/legacy-unknown") {
    errs.push(
      invalid("spec.signerName", signerName, "the legacy signerName is not allowed via this API version"),
    );
  } else {
    errs.push(...validateSignerName("spec.signerName", signerName));
  }
  const expiration = num(s.expirationSeconds);
  if (expiration !== undefined && expiration < 600) {
    errs.push(
      invalid(
        "spec.expirationSeconds",
        expiration,
        "may not specify a duration less than 600 seconds (10 minutes)",
      ),
    );
  }
  errs.push(...validateConditions(obj(csr.status)?.conditions));
  return errs;
}

function validateConditions(conditions: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  objs(conditions).forEach((c, i) => {
    const p = index("status.conditions", i);
    const type = str(c.type) ?? "";
    const status = str(c.status) ?? "";
    if (!type) errs.push(required(child(p, "type")));
    const allowed = TRUE_ONLY_CONDITIONS.has(type) ? ["True"] : ["False", "True", "Unknown"];
    if (!status) errs.push(required(child(p, "status")));
    else if (!allowed.includes(status)) errs.push(notSupported(child(p, "status"), status, allowed));
    if (type === "Approved") {
      approved = true;
      if (denied)
        errs.push(invalid(child(p, "type"), type, "Approved and Denied conditions are mutually exclusive"));
    }
    if (type === "Denied") {
      denied = true;
      if (approved)
        errs.push(invalid(child(p, "type"), type, "Approved and Denied conditions are mutually exclusive"));
    }
    if (seen.has(type)) errs.push(duplicate(child(p, "type"), type));
    seen.add(type);
  });
  return errs;
}
