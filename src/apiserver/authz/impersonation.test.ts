import { describe, expect, it } from "vitest";
import { impersonatedUser } from "./request.ts";

const admin = { name: "system:admin", groups: ["system:masters", "system:authenticated"] };
// No authorizer: every impersonation is allowed; these cases are about the resulting groups.
const as = (headers: Record<string, string>) => impersonatedUser(headers, admin, undefined).groups;

describe("impersonated groups, as kube-apiserver's impersonation filter sets them", () => {
  it("a service account gets its own groups only when no group is named", () => {
    expect(as({ "impersonate-user": "system:serviceaccount:team:reader" })).toEqual([
      "system:serviceaccounts",
      "system:serviceaccounts:team",
      "system:authenticated",
    ]);
    expect(
      as({ "impersonate-user": "system:serviceaccount:team:reader", "impersonate-group": "auditors" }),
    ).toEqual(["auditors", "system:authenticated"]);
  });

  it("system:authenticated is added unless an everyone-group is named", () => {
    expect(as({ "impersonate-user": "alice" })).toEqual(["system:authenticated"]);
    expect(as({ "impersonate-user": "alice", "impersonate-group": "system:unauthenticated" })).toEqual([
      "system:unauthenticated",
    ]);
    expect(as({ "impersonate-user": "system:anonymous" })).toEqual(["system:unauthenticated"]);
  });
});
