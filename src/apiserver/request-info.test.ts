import { describe, expect, it } from "vitest";
import { requestInfo } from "./request-info.ts";

interface Case {
  method: string;
  url: string;
  want: Record<string, unknown>;
}

const cases: Case[] = [
  {
    method: "GET",
    url: "/api/v1/pods",
    want: { verb: "list", group: "", version: "v1", resource: "pods", namespace: undefined },
  },
  {
    method: "GET",
    url: "/api/v1/namespaces/default/pods/web",
    want: { verb: "get", resource: "pods", namespace: "default", name: "web" },
  },
  {
    method: "GET",
    url: "/api/v1/namespaces/default",
    want: { verb: "get", resource: "namespaces", name: "default", namespace: undefined },
  },
  {
    method: "PUT",
    url: "/api/v1/namespaces/x/finalize",
    want: { verb: "update", resource: "namespaces", name: "x", subresource: "finalize" },
  },
  {
    method: "PATCH",
    url: "/api/v1/namespaces/x/status",
    want: { verb: "patch", resource: "namespaces", name: "x", subresource: "status" },
  },
  {
    method: "GET",
    url: "/apis/apps/v1/namespaces/ns/deployments?watch=true",
    want: { verb: "watch", group: "apps", resource: "deployments", namespace: "ns" },
  },
  {
    method: "GET",
    url: "/apis/apps/v1/watch/namespaces/ns/deployments",
    want: { verb: "watch", group: "apps", resource: "deployments", namespace: "ns" },
  },
  {
    method: "PUT",
    url: "/apis/apps/v1/namespaces/ns/deployments/web/scale",
    want: { verb: "update", resource: "deployments", name: "web", subresource: "scale" },
  },
  {
    method: "DELETE",
    url: "/api/v1/namespaces/ns/configmaps",
    want: { verb: "deletecollection", resource: "configmaps" },
  },
  { method: "DELETE", url: "/api/v1/namespaces/ns/configmaps/a", want: { verb: "delete", name: "a" } },
  {
    method: "POST",
    url: "/apis/policy.karmada.io/v1alpha1/namespaces/ns/propagationpolicies",
    want: { verb: "create", group: "policy.karmada.io" },
  },
  {
    method: "GET",
    url: "/apis/cluster.karmada.io/v1alpha1/clusters",
    want: { verb: "list", resource: "clusters" },
  },
];

describe("requestInfo", () => {
  for (const c of cases) {
    it(`${c.method} ${c.url}`, () => {
      const u = new URL(c.url, "http://x");
      const info = requestInfo(c.method, u.pathname, u.searchParams);
      expect(info.kind).toBe("resource");
      expect(info).toMatchObject(c.want);
    });
  }
  for (const url of [
    "/api",
    "/apis",
    "/api/v1",
    "/apis/apps",
    "/apis/apps/v1",
    "/version",
    "/openapi/v3",
    "/healthz",
  ]) {
    it(`${url} is not a resource request`, () => {
      expect(requestInfo("GET", url, new URLSearchParams()).kind).toBe("nonresource");
    });
  }
});
