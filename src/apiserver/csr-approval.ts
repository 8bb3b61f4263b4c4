/**
 * A CertificateSigningRequest's `/approval` (what `kubectl certificate approve|deny` and the
 * agent CSR approver write), for the HTTP handler and the in-process client alike: it takes
 * only the conditions (stamping their times; an unchanged condition keeps its transition
 * time), never drops Approved/Denied/Failed, and needs `approve` on the signer.
 */
import { csrConditions } from "../api/csr.ts";
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { invalid } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { authorizeApproval } from "./admission/certificates.ts";
import type { RequestContext, ServerContext } from "./context.ts";
import type { ResourceType } from "./resource-type.ts";
import { updateObject, type WriteOptions } from "./verbs/write.ts";

const LASTING_CONDITIONS = ["Approved", "Denied", "Failed"];

function approvedConditions(incoming: StoredObject, current: StoredObject, now: number): StoredObject {
  const stamp = rfc3339(now);
  const before = csrConditions(current);
  const after = csrConditions(incoming);
  for (const c of before) {
    if (LASTING_CONDITIONS.includes(String(c.type)) && !after.some((n) => n.type === c.type)) {
      throw invalid(
        { group: "certificates.k8s.io", kind: "CertificateSigningRequest" },
        current.metadata.name,
        [
          {
            type: "FieldValueForbidden",
            field: "status.conditions",
            detail: `updates may not remove a condition of type ${JSON.stringify(c.type)}`,
          },
        ],
      );
    }
  }
  const conditions = after.map((c) => {
    const old = before.find((o) => o.type === c.type);
    const out = { ...c };
    if (!out.lastUpdateTime) out.lastUpdateTime = stamp;
    if (!out.lastTransitionTime) {
      out.lastTransitionTime =
        old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : stamp;
    }
    return out;
  });
  const next = cloneJson(current);
  next.status = { ...(isObject(current.status) ? current.status : {}), conditions };
  if (incoming.metadata?.resourceVersion) next.metadata.resourceVersion = incoming.metadata.resourceVersion;
  return next;
}

/**
 * Writes a CSR's approval: `produce` gives the wanted object from the current one (a PUT's
 * body, or the current one patched); `precondition` makes a stale resourceVersion a 409.
 */
export async function updateApproval(
  server: ServerContext,
  ctx: RequestContext,
  rt: ResourceType,
  name: string,
  produce: (current: StoredObject) => StoredObject,
  precondition: boolean,
  opts: WriteOptions,
): Promise<StoredObject> {
  const now = server.clock.now();
  return updateObject(
    server,
    ctx,
    rt,
    {
      namespace: undefined,
      name,
      subresource: "status",
      preconditionFromObject: precondition,
      next: (cur) => {
        authorizeApproval(server, ctx, cur);
        return approvedConditions(produce(cloneJson(cur)), cur, now);
      },
    },
    opts,
  );
}
