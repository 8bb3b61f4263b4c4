import { describe, expect, it } from "vitest";
import { parseProxyPath } from "../search/proxy.ts";
import { parseClusterProxyPath } from "./cluster-proxy.ts";
import { memberHeaders } from "./member-proxy.ts";

describe("cluster proxy paths", () => {
  it.each([
    [
      "/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api/v1/nodes",
      { cluster: "member1", memberPath: "/api/v1/nodes" },
    ],
    ["/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/", { cluster: "member1", memberPath: "/" }],
    ["/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy", { cluster: "member1", memberPath: "/" }],
    ["/apis/cluster.karmada.io/v1alpha1/clusters/member1/status", undefined],
    ["/apis/cluster.karmada.io/v1alpha1/clusters/member1", undefined],
    ["/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxyx/api", undefined],
  ])("%s", (path, want) => {
    expect(parseClusterProxyPath(path)).toEqual(want);
  });

  it("reads the search proxy's name, subresource and native path", () => {
    expect(parseProxyPath("/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy/api/v1/pods")).toEqual({
      name: "karmada",
      subresource: "proxy",
      inner: "/api/v1/pods",
    });
    expect(parseProxyPath("/apis/search.karmada.io/v1alpha1/proxying/karmada")).toBeUndefined();
  });
});

describe("what a member receives", () => {
  it("the caller's headers without credentials or hop-by-hop ones, and the caller as impersonation", () => {
    const headers = memberHeaders(
      {
        authorization: "Bearer caller-token",
        "impersonate-user": "someone-else",
        connection: "keep-alive",
        host: "karmada:5443",
        accept: "application/json",
        "content-type": "application/json",
      },
      { name: "tom", groups: ["system:serviceaccounts", "system:authenticated"] },
    );
    expect(headers).toEqual({
      accept: "application/json",
      "content-type": "application/json",
      "Impersonate-User": "tom",
      "Impersonate-Group": ["system:serviceaccounts"],
    });
  });
});
