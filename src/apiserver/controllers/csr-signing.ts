/**
 * The `kubernetes.io/kube-apiserver-client` signer and the CSR cleaner (kube-controller-
 * manager's csrsigning and csrcleaner), run next to the API server, which holds the CA.
 *
 * Signing: an Approved, not Failed request for this signer without a certificate gets one,
 * signed by the cluster CA, with the request's subject and names, for its usages, for
 * `expirationSeconds` clamped to [10 min, the signing duration (1 year)], backdated 5
 * minutes (and ending 5 minutes early unless shorter than 8 hours), never past the CA's own
 * expiry. Usages other than digital signature, key encipherment and client auth, or no
 * client auth, make the request Failed (SignerValidationFailure).
 *
 * Cleaning, hourly: approved-and-issued, denied and failed requests an hour after their last
 * update, pending ones after a day, and issued ones whose certificate has expired.
 */
import { csrCertificate, csrConditions, csrUsages, KUBE_APISERVER_CLIENT_SIGNER } from "../../api/csr.ts";
import { isObject, rfc3339, type StoredObject } from "../../api/meta.ts";
import {
  type CertificateAndKey,
  certificateInfo,
  issueCertificate,
  parseCertificateRequest,
} from "../../pki/x509.ts";
import type { ReconcileContext, ReconcileResult } from "../../runtime/controller.ts";
import { requestContext, type ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { storageKey, storagePrefix } from "../resource-type.ts";
import { deleteObject } from "../verbs/delete.ts";
import { runStoreController, unlessGoneOrChanged } from "./follow.ts";
import { systemWriter } from "./writer.ts";

export interface CsrSigningOptions {
  /** The CA that signs (`--cluster-signing-cert-file`, `--cluster-signing-key-file`). */
  ca: CertificateAndKey;
  /** `--cluster-signing-duration` (default one year). */
  signingDurationMs?: number;
  /** How often old requests are removed (default one hour). */
  cleanIntervalMs?: number;
}

const YEAR_MS = 365 * 24 * 3_600_000;
const BACKDATE_MS = 5 * 60_000;
const HOUR_MS = 3_600_000;
const ALLOWED_CLIENT_USAGES = ["digital signature", "key encipherment", "client auth"];

const has = (csr: StoredObject, type: string) =>
  csrConditions(csr).some((c) => c.type === type && c.status === "True");

/** Why a client-certificate request cannot be signed, or undefined. */
export function clientUsageProblem(usages: readonly string[]): string | undefined {
  const bad = usages.find((u) => !ALLOWED_CLIENT_USAGES.includes(u));
  if (bad) return `invalid usage for client certificate: ${bad}`;
  if (!usages.includes("client auth")) return "missing required usage for client certificate: client auth";
  return undefined;
}

export function startCsrSigningController(server: ServerContext, opts: CsrSigningOptions): () => void {
  const rt = server.registry.get("certificates.k8s.io", "v1", "certificatesigningrequests")!;
  const writer = systemWriter(server, "csrsigning-controller");
  const signingDuration = opts.signingDurationMs ?? YEAR_MS;
  const caExpiry = certificateInfo(opts.ca.certPem).notAfter.getTime();

  const fail = (csr: StoredObject, message: string) =>
    writer.change(
      rt,
      csr,
      (cur) => ({
        ...cur,
        status: {
          ...(isObject(cur.status) ? cur.status : {}),
          conditions: [
            ...csrConditions(cur),
            {
              type: "Failed",
              status: "True",
              reason: "SignerValidationFailure",
              message,
              lastUpdateTime: rfc3339(server.clock.now()),
            },
          ],
        },
      }),
      "status",
    );

  const reconcile = async (_ctx: ReconcileContext, name: string): Promise<ReconcileResult> => {
    const { kv } = await server.store.get(storageKey(rt, undefined, name));
    if (!kv) return undefined;
    const csr = decodeStored(rt, kv);
    const spec = isObject(csr.spec) ? csr.spec : {};
    if (spec.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return undefined;
    if (!has(csr, "Approved") || has(csr, "Failed") || csrCertificate(csr)) return undefined;
    const usages = csrUsages(csr);
    const problem = clientUsageProblem(usages);
    let request: Awaited<ReturnType<typeof parseCertificateRequest>> | undefined;
    try {
      request = await parseCertificateRequest(
        Buffer.from(String(spec.request ?? ""), "base64").toString("utf8"),
      );
    } catch (err) {
      await fail(csr, (err as Error).message);
      return undefined;
    }
    if (problem) {
      await fail(csr, problem);
      return undefined;
    }
    const now = server.clock.now();
    const requested =
      typeof spec.expirationSeconds === "number" ? spec.expirationSeconds * 1000 : signingDuration;
    const ttl = Math.min(Math.max(requested, 10 * 60_000), signingDuration);
    const notAfter = Math.min(now + ttl - (ttl < 8 * HOUR_MS ? 0 : BACKDATE_MS), caExpiry);
    // As kube's signer: an expired CA is an error to retry (a renewed CA may come), not a verdict.
    if (notAfter <= now)
      throw new Error(`the signer has expired: NotAfter=${new Date(caExpiry).toISOString()}`);
    const issued = await issueCertificate(opts.ca, {
      commonName: request.commonName,
      organizations: request.organizations,
      hosts: [...request.dnsNames, ...request.ipAddresses],
      emailAddresses: request.emailAddresses,
      uris: request.uris,
      usage: "client",
      kubernetesUsages: usages,
      publicKeyPem: request.publicKeyPem,
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(notAfter),
    });
    await writer
      .change(
        rt,
        csr,
        (cur) => {
          if (csrCertificate(cur)) return cur;
          return {
            ...cur,
            status: {
              ...(isObject(cur.status) ? cur.status : {}),
              certificate: Buffer.from(issued.certPem).toString("base64"),
            },
          };
        },
        "status",
      )
      .catch(unlessGoneOrChanged);
    return undefined;
  };

  const stopSigning = runStoreController(server, {
    name: "csrsigning",
    sources: [
      { prefix: storagePrefix(rt), keys: (name, value) => (value?.includes('"Approved"') ? [name] : []) },
    ],
    reconcile,
  });

  const clean = async (): Promise<void> => {
    const now = server.clock.now();
    const { kvs } = await server.store.list(storagePrefix(rt));
    for (const kv of kvs) {
      const csr = decodeStored(rt, kv);
      if (!shouldClean(csr, now)) continue;
      await deleteObject(server, requestContext(), rt, undefined, csr.metadata.name, {}).catch(
        unlessGoneOrChanged,
      );
    }
  };
  // As kube's cleaner: a pass at start, then one per interval.
  let stopped = false;
  const cleanNow = () =>
    void clean().catch((err) => {
      if (!stopped) server.log.error(err, "csr cleaning failed");
    });
  cleanNow();
  const timer = setInterval(cleanNow, opts.cleanIntervalMs ?? HOUR_MS);
  timer.unref();

  return () => {
    stopped = true;
    clearInterval(timer);
    stopSigning();
  };
}

/** Whether the CSR cleaner removes this request now. */
export function shouldClean(csr: StoredObject, now: number): boolean {
  const olderThan = (t: unknown, ms: number) => typeof t === "string" && Date.parse(t) + ms < now;
  const conditions = csrConditions(csr);
  const cert = csrCertificate(csr);
  for (const c of conditions) {
    if (c.type === "Approved" && cert && olderThan(c.lastUpdateTime, HOUR_MS)) return true;
    if ((c.type === "Denied" || c.type === "Failed") && olderThan(c.lastUpdateTime, HOUR_MS)) return true;
  }
  if (conditions.length === 0 && olderThan(csr.metadata.creationTimestamp, 24 * HOUR_MS)) return true;
  if (cert && conditions.some((c) => c.type === "Approved")) {
    try {
      return certificateInfo(Buffer.from(cert, "base64").toString("utf8")).notAfter.getTime() < now;
    } catch {
      return false;
    }
  }
  return false;
}
