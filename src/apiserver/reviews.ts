/**
 * The review kinds are answered, not stored: SubjectAccessReview (for anyone), its local and
 * self variants, SelfSubjectRulesReview (`kubectl auth can-i --list`), SelfSubjectReview
 * (`kubectl auth whoami`) and TokenReview, as kube-apiserver answers them.
 */
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { badRequest, type FieldError, invalid } from "../machinery/errors.ts";
import { alwaysAllow } from "./authz/authorizer.ts";
import type { Attributes, PolicyRule } from "./authz/rules.ts";
import type { RequestContext, ServerContext, UserInfo } from "./context.ts";
import type { ResourceType } from "./resource-type.ts";

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

function extraOf(v: unknown): Record<string, string[]> | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, vals] of Object.entries(v)) out[k] = strings(vals);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The spec's attributes, or the field errors kube-apiserver reports. */
function accessAttributes(
  kind: string,
  spec: Record<string, unknown>,
  user: UserInfo,
  namespace: string | undefined,
): { attrs?: Attributes; errors: FieldError[] } {
  const ra = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nra = isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  const errors: FieldError[] = [];
  if (ra && nra) {
    errors.push({
      type: "FieldValueInvalid",
      field: "spec.nonResourceAttributes",
      value: nra,
      detail: "cannot be specified in combination with resourceAttributes",
    });
  } else if (!ra && !nra) {
    errors.push({
      type: "FieldValueInvalid",
      field: "spec.resourceAttributes",
      value: null,
      detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified",
    });
  }
  if (kind === "LocalSubjectAccessReview") {
    if (nra) {
      errors.push({
        type: "FieldValueInvalid",
        field: "spec.nonResourceAttributes",
        value: nra,
        detail: "disallowed on this kind of request",
      });
    }
    if (ra && str(ra.namespace) !== (namespace ?? "")) {
      errors.push({
        type: "FieldValueInvalid",
        field: "spec.resourceAttributes.namespace",
        value: str(ra.namespace),
        detail: "must match metadata.namespace",
      });
    }
  }
  if (
    (kind === "SubjectAccessReview" || kind === "LocalSubjectAccessReview") &&
    user.name === "" &&
    user.groups.length === 0
  ) {
    errors.push({
      type: "FieldValueInvalid",
      field: "spec.user",
      value: "",
      detail: "at least one of user or group must be specified",
    });
  }
  if (errors.length > 0) return { errors };
  if (nra) return { attrs: { kind: "nonresource", user, verb: str(nra.verb), path: str(nra.path) }, errors };
  return {
    attrs: {
      kind: "resource",
      user,
      verb: str(ra!.verb),
      apiGroup: str(ra!.group),
      apiVersion: str(ra!.version) || "*",
      resource: str(ra!.resource),
      subresource: str(ra!.subresource),
      namespace: str(ra!.namespace),
      name: str(ra!.name),
    },
    errors,
  };
}

function ruleJson(r: PolicyRule): Record<string, string[]> {
  const out: Record<string, string[]> = { verbs: r.verbs };
  if (r.apiGroups?.length) out.apiGroups = r.apiGroups;
  if (r.resources?.length) out.resources = r.resources;
  if (r.resourceNames?.length) out.resourceNames = r.resourceNames;
  if (r.nonResourceURLs?.length) out.nonResourceURLs = r.nonResourceURLs;
  return out;
}

function userInfoJson(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.name };
  if (user.uid) out.uid = user.uid;
  out.groups = user.groups;
  if (user.extra) out.extra = user.extra;
  return out;
}

export async function evaluateReview(
  server: ServerContext,
  rt: ResourceType,
  obj: StoredObject,
  ctx: RequestContext,
  namespace: string | undefined,
): Promise<StoredObject> {
  const authorizer = server.authorizer ?? alwaysAllow;
  const spec = isObject(obj.spec) ? obj.spec : {};
  const out: StoredObject = { ...obj, metadata: { ...obj.metadata, creationTimestamp: null } };
  switch (rt.kind) {
    case "SelfSubjectAccessReview":
    case "SubjectAccessReview":
    case "LocalSubjectAccessReview": {
      const user: UserInfo =
        rt.kind === "SelfSubjectAccessReview"
          ? ctx.user
          : {
              name: str(spec.user),
              groups: strings(spec.groups),
              ...(str(spec.uid) ? { uid: str(spec.uid) } : {}),
              ...(extraOf(spec.extra) ? { extra: extraOf(spec.extra)! } : {}),
            };
      const { attrs, errors } = accessAttributes(rt.kind, spec, user, namespace);
      if (!attrs) throw invalid({ group: rt.group, kind: rt.kind }, "", errors);
      const d = authorizer.authorize(attrs);
      out.status = { allowed: d.allowed, ...(d.reason ? { reason: d.reason } : {}) };
      return out;
    }
    case "SelfSubjectRulesReview": {
      const ns = str(spec.namespace);
      if (!ns) throw badRequest("no namespace on request");
      const { rules, errors } = authorizer.rulesFor(ctx.user, ns);
      out.spec = {};
      out.status = {
        resourceRules: rules.filter((r) => r.resources?.length).map(ruleJson),
        nonResourceRules: rules.filter((r) => r.nonResourceURLs?.length).map(ruleJson),
        incomplete: false,
        ...(errors.length
          ? { evaluationError: errors.length === 1 ? errors[0] : `[${errors.join(", ")}]` }
          : {}),
      };
      return out;
    }
    case "SelfSubjectReview":
      out.metadata = {
        ...out.metadata,
        creationTimestamp: rfc3339(server.clock.now()),
      };
      out.status = { userInfo: userInfoJson(ctx.user) };
      return out;
    case "TokenReview": {
      if (namespace) throw badRequest(`namespace is not allowed on this type: ${namespace}`);
      const token = str(spec.token);
      if (!token) throw badRequest("token is required for TokenReview in authentication");
      if (!server.authenticateToken) {
        out.status = { user: {}, error: "token authentication is not enabled on this server" };
        return out;
      }
      const result = await server.authenticateToken(token, strings(spec.audiences));
      out.status =
        "user" in result
          ? {
              authenticated: true,
              user: userInfoJson(result.user),
              ...(result.audiences ? { audiences: result.audiences } : {}),
            }
          : { user: {}, error: result.error };
      return out;
    }
    default:
      return out;
  }
}
