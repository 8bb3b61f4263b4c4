/**
 * Authorization: who may do what, asked once per request (and per in-process client call)
 * with the request's attributes. `system:masters` is always allowed, as kube-apiserver's
 * privileged-group authorizer does before RBAC; everyone else is asked of RBAC. A denial is
 * a 403 with kube-apiserver's message.
 */
import { ApiError } from "../../machinery/errors.ts";
import type { UserInfo } from "../context.ts";
import type { RbacIndex } from "./rbac.ts";
import type { Attributes, Decision, PolicyRule } from "./rules.ts";

export const MASTERS_GROUP = "system:masters";

export interface Authorizer {
  authorize(a: Attributes): Decision;
  /** Every rule the user holds in a namespace (SelfSubjectRulesReview, escalation checks). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] };
}

export const EVERYTHING: PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

export function isMaster(user: UserInfo): boolean {
  return user.groups.includes(MASTERS_GROUP);
}

/** `--authorization-mode=AlwaysAllow`: for `--insecure` servers and tests of other things. */
export const alwaysAllow: Authorizer = {
  authorize: () => ({ allowed: true, reason: "" }),
  rulesFor: () => ({ rules: EVERYTHING, errors: [] }),
};

/** `--authorization-mode=RBAC`, with `system:masters` let through first. */
export function rbacAuthorizer(index: RbacIndex): Authorizer {
  return {
    authorize(a) {
      if (isMaster(a.user)) return { allowed: true, reason: "" };
      return index.authorize(a);
    },
    rulesFor(user, namespace) {
      if (isMaster(user)) return { rules: EVERYTHING, errors: [] };
      return index.rulesFor(user, namespace);
    },
  };
}

/** kube-apiserver's wording of what a user may not do. */
export function forbiddenMessage(a: Attributes): string {
  const user = a.user.name;
  if (a.kind === "nonresource")
    return `User ${JSON.stringify(user)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : "at the cluster scope";
  return `User ${JSON.stringify(user)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
}

/** kube-apiserver escapes these in its own part of a 403 message (not in the authorizer's reason). */
function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The 403 for a denied request, as kube-apiserver words it. */
export function forbiddenError(a: Attributes, reason: string): ApiError {
  const base = escapeHtml(forbiddenMessage(a));
  const why = reason ? `${base}: ${reason}` : base;
  if (a.kind === "nonresource") {
    return new ApiError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `forbidden: ${why}`,
      reason: "Forbidden",
      details: {},
      code: 403,
    });
  }
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  return new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: a.name
      ? `${qualified} ${JSON.stringify(a.name)} is forbidden: ${why}`
      : `${qualified} is forbidden: ${why}`,
    reason: "Forbidden",
    details: {
      ...(a.name ? { name: a.name } : {}),
      ...(a.apiGroup ? { group: a.apiGroup } : {}),
      kind: a.resource,
    },
    code: 403,
  });
}

/** Throws the 403 when the request is not allowed. */
export function authorizeOrThrow(authorizer: Authorizer | undefined, a: Attributes): void {
  if (!authorizer) return;
  const d = authorizer.authorize(a);
  if (!d.allowed) throw forbiddenError(a, d.reason);
}
