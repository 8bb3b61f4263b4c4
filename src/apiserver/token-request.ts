/**
 * TokenRequest (`POST .../serviceaccounts/<name>/token`, what `kubectl create token` calls):
 * a bound service-account token for the account, as kube-apiserver issues it: audiences
 * default to the API audiences, `expirationSeconds` to 3600 (at least 600, clamped to
 * `--service-account-max-token-expiration` with a warning), optionally bound to a Pod or
 * Secret of the same namespace.
 */
import { isObject, rfc3339 } from "../api/meta.ts";
import {
  badRequest,
  conflict,
  type FieldError,
  invalid,
  methodNotAllowed,
  pathNotFound,
} from "../machinery/errors.ts";
import { issueBoundToken } from "./authn/service-account.ts";
import { decodeObjectBody } from "./codec.ts";
import type { SubresourceHandler } from "./subresources.ts";
import { getObject } from "./verbs/read.ts";

const MIN_EXPIRATION_S = 600;
const MAX_EXPIRATION_S = 2 ** 32;
const DEFAULT_EXPIRATION_S = 3600;

export const tokenRequest: SubresourceHandler = {
  supports: (rt) => rt.group === "" && rt.kind === "ServiceAccount",
  async handle(h, req, ctx, rt, info) {
    // Without a signing key kube-apiserver installs no serviceaccounts/token at all.
    const settings = h.server.serviceAccountTokens;
    if (!settings?.signer) throw pathNotFound();
    if (info.verb !== "create") {
      throw methodNotAllowed(info.verb, { group: "", resource: `${rt.plural}/${info.subresource}` });
    }
    const namespace = info.namespace!;
    const name = info.name!;
    const tokenType = {
      ...rt,
      kind: "TokenRequest",
      group: "authentication.k8s.io",
      version: "v1",
      builtin: true,
    };
    const body = decodeObjectBody(tokenType, req.headers["content-type"], req.body ?? Buffer.alloc(0));
    const spec = isObject(body.spec) ? body.spec : {};
    const errors: FieldError[] = [];
    if (body.metadata?.name && body.metadata.name !== name) {
      errors.push({
        type: "FieldValueInvalid",
        field: "metadata.name",
        value: body.metadata.name,
        detail: "must match the service account name if specified",
      });
    }
    if (body.metadata?.namespace && body.metadata.namespace !== namespace) {
      errors.push({
        type: "FieldValueInvalid",
        field: "metadata.namespace",
        value: body.metadata.namespace,
        detail: "must match the service account namespace if specified",
      });
    }
    let expirationSeconds =
      typeof spec.expirationSeconds === "number" ? spec.expirationSeconds : DEFAULT_EXPIRATION_S;
    if (expirationSeconds < MIN_EXPIRATION_S) {
      errors.push({
        type: "FieldValueInvalid",
        field: "spec.expirationSeconds",
        value: expirationSeconds,
        detail: "may not specify a duration less than 10 minutes",
      });
    } else if (expirationSeconds > MAX_EXPIRATION_S) {
      errors.push({
        type: "FieldValueInvalid",
        field: "spec.expirationSeconds",
        value: expirationSeconds,
        detail: "may not specify a duration larger than 2^32 seconds",
      });
    }
    if (errors.length > 0)
      throw invalid({ group: "authentication.k8s.io", kind: "TokenRequest" }, "", errors);
    const sa = await getObject(h.server, rt, namespace, name);
    const max = settings.maxExpirationSeconds;
    if (max > 0 && expirationSeconds > max) {
      ctx.warnings.push(`requested expiration of ${expirationSeconds} seconds shortened to ${max} seconds`);
      expirationSeconds = max;
    }
    const requested = Array.isArray(spec.audiences)
      ? spec.audiences.filter((a): a is string => typeof a === "string")
      : [];
    const audiences = requested.length > 0 ? requested : [...settings.audiences];
    const ref = isObject(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
    let bound: { kind: "Pod" | "Secret"; name: string; uid: string } | undefined;
    if (ref) {
      const kind = ref.kind;
      if (kind !== "Pod" && kind !== "Secret")
        throw badRequest(`cannot bind token to object of type ${String(kind)}`);
      const target = h.server.registry.get("", "v1", kind === "Pod" ? "pods" : "secrets")!;
      const obj = await getObject(h.server, target, namespace, String(ref.name ?? ""));
      if (ref.uid && ref.uid !== obj.metadata.uid) {
        throw conflict(
          { group: "", resource: kind },
          String(ref.name),
          `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
        );
      }
      if (kind === "Pod") {
        const podSa = isObject(obj.spec) ? obj.spec.serviceAccountName : undefined;
        if ((podSa ?? "default") !== name) {
          throw badRequest(
            `cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`,
          );
        }
      }
      bound = { kind, name: obj.metadata.name, uid: obj.metadata.uid };
    }
    const now = h.server.clock.now();
    const { token, expiresAt } = issueBoundToken(
      { ...settings, signer: settings.signer },
      {
        namespace,
        serviceAccount: { name, uid: sa.metadata.uid },
        audiences,
        expirationSeconds,
        now,
        ...(bound ? { boundObject: bound } : {}),
      },
    );
    return {
      status: 201,
      headers: { "Content-Type": "application/json" },
      body: {
        kind: "TokenRequest",
        apiVersion: "authentication.k8s.io/v1",
        metadata: { name, namespace, creationTimestamp: rfc3339(now) },
        spec: { audiences, expirationSeconds, boundObjectRef: ref ?? null },
        status: { token, expirationTimestamp: rfc3339(expiresAt) },
      },
    };
  },
};
