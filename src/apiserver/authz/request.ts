/**
 * From an HTTP request to what authorization asks about: the attributes of a resource or
 * non-resource request, and impersonation (`Impersonate-User`, `-Group`, `-Uid`,
 * `-Extra-<key>`, as `kubectl --as/--as-group` send them), which needs the `impersonate`
 * verb on each thing impersonated and then makes the request the impersonated user's.
 */
import { badRequest } from "../../machinery/errors.ts";
import { ANONYMOUS, AUTHENTICATED, UNAUTHENTICATED } from "../authn/authenticator.ts";
import { parseServiceAccountUsername, serviceAccountGroups } from "../authn/service-account.ts";
import type { UserInfo } from "../context.ts";
import type { RequestInfo } from "../request-info.ts";
import { type Authorizer, authorizeOrThrow } from "./authorizer.ts";
import type { Attributes } from "./rules.ts";

export function requestAttributes(method: string, info: RequestInfo, user: UserInfo): Attributes {
  if (info.kind === "nonresource") {
    return { kind: "nonresource", user, verb: method.toLowerCase(), path: info.path };
  }
  // `/api/v1/namespaces/<n>` is about namespace <n> itself: a RoleBinding there may grant it.
  const namespace =
    info.namespace ?? (info.group === "" && info.resource === "namespaces" && info.name ? info.name : "");
  return {
    kind: "resource",
    user,
    verb: info.verb,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource ?? "",
    namespace,
    name: info.name ?? "",
  };
}

const EXTRA_PREFIX = "impersonate-extra-";

/** Repeated `Impersonate-*` headers arrive joined with newlines (values may hold commas). */
function values(v: string | undefined): string[] {
  return v === undefined
    ? []
    : v
        .split("\n")
        .map((x) => x.trim())
        .filter((x) => x !== "");
}

/** Whether the request asks to act as someone else. */
export function wantsImpersonation(headers: Record<string, string | undefined>): boolean {
  for (const name of Object.keys(headers)) if (name.startsWith("impersonate-")) return true;
  return false;
}

/**
 * The user a request acts as after impersonation, each impersonated part authorized for
 * `requester`; throws 403 (or 400 for groups, uid or extras without a user).
 */
export function impersonatedUser(
  headers: Record<string, string | undefined>,
  requester: UserInfo,
  authorizer: Authorizer | undefined,
): UserInfo {
  const userName = values(headers["impersonate-user"])[0];
  const groups = values(headers["impersonate-group"]);
  const uid = values(headers["impersonate-uid"])[0];
  const extra: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    const key = decodeURIComponent(name.slice(EXTRA_PREFIX.length)).toLowerCase();
    extra[key] = values(value);
  }
  if (userName === undefined) {
    throw badRequest(
      "requested impersonation of groups, a uid or extra fields without impersonating a user (set Impersonate-User too)",
    );
  }
  const check = (
    resource: string,
    name: string,
    opts: { group?: string; namespace?: string; subresource?: string } = {},
  ) =>
    authorizeOrThrow(authorizer, {
      kind: "resource",
      user: requester,
      verb: "impersonate",
      apiGroup: opts.group ?? "",
      resource,
      subresource: opts.subresource ?? "",
      namespace: opts.namespace ?? "",
      name,
    });
  const sa = parseServiceAccountUsername(userName);
  if (sa) check("serviceaccounts", sa.name, { namespace: sa.namespace });
  else check("users", userName);
  for (const g of groups) check("groups", g);
  if (uid !== undefined) check("uids", uid, { group: "authentication.k8s.io" });
  for (const [key, vals] of Object.entries(extra)) {
    for (const v of vals) check("userextras", v, { group: "authentication.k8s.io", subresource: key });
  }
  // As kube-apiserver: a service account's own groups only when no group is named, and
  // system:authenticated unless either everyone-group is named already.
  const all = sa && groups.length === 0 ? serviceAccountGroups(sa.namespace) : [...groups];
  if (userName === ANONYMOUS) {
    if (!all.includes(UNAUTHENTICATED)) all.push(UNAUTHENTICATED);
  } else if (!all.includes(AUTHENTICATED) && !all.includes(UNAUTHENTICATED)) {
    all.push(AUTHENTICATED);
  }
  const user: UserInfo = { name: userName, groups: all };
  if (uid !== undefined) user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}
