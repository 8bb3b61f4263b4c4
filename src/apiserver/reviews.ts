/**
 * The review kinds (SelfSubjectAccessReview, SubjectAccessReview, TokenReview, ...) are
 * answered, not stored. Until authorization lands every request is allowed, and the answer
 * says so plainly.
 */
import type { StoredObject } from "../api/meta.ts";
import type { RequestContext } from "./context.ts";
import type { ResourceType } from "./resource-type.ts";

const ALLOW_REASON = "karmada-ts: authorization is not enabled; every request is allowed";

export function evaluateReview(rt: ResourceType, obj: StoredObject, ctx: RequestContext): StoredObject {
  const out: StoredObject = { ...obj, metadata: { ...obj.metadata, creationTimestamp: null } };
  switch (rt.kind) {
    case "SelfSubjectAccessReview":
    case "SubjectAccessReview":
    case "LocalSubjectAccessReview":
      out.status = { allowed: true, reason: ALLOW_REASON };
      break;
    case "SelfSubjectRulesReview":
      out.status = {
        resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
        nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
        incomplete: false,
      };
      break;
    case "SelfSubjectReview": {
      const userInfo: Record<string, unknown> = { username: ctx.user.name, groups: ctx.user.groups };
      if (ctx.user.uid) userInfo.uid = ctx.user.uid;
      if (ctx.user.extra) userInfo.extra = ctx.user.extra;
      out.status = { userInfo };
      break;
    }
    case "TokenReview":
      out.status = { authenticated: false, error: "token authentication is not enabled on this server" };
      break;
  }
  return out;
}
