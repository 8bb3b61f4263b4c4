import { describe, expect, it } from "vitest";
import {
  bearerToken,
  CSRF_HEADER,
  crossSiteProblem,
  hostAllowed,
  hostOfHeader,
  isLoopbackAddress,
  methodProblem,
  modeFor,
  proxyTargetProblem,
  validNamespace,
} from "./guard.ts";

describe("loopback", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["::1", true],
    ["[::1]", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.5", false],
    ["localhost.evil.example", false],
    ["128.0.0.1", false],
  ])("%s: %s", (address, want) => {
    expect(isLoopbackAddress(address)).toBe(want);
    expect(modeFor(address)).toBe(want ? "local" : "token");
  });
});

describe("the Host header (DNS rebinding)", () => {
  it.each([
    ["127.0.0.1:8000", true],
    ["localhost:8000", true],
    ["localhost", true],
    ["[::1]:8000", true],
    ["evil.example:8000", false],
    ["attacker.localhost.evil:8000", false],
    ["127.0.0.1.nip.io:8000", false],
    ["", false],
    [undefined, false],
    ["127.0.0.1:8000:9", false],
  ])("%s: %s", (host, want) => {
    expect(hostAllowed(host)).toBe(want);
  });

  it("reads host names", () => {
    expect(hostOfHeader("[::1]:80")).toBe("::1");
    expect(hostOfHeader("Example.COM")).toBe("example.com");
    expect(hostOfHeader("a b")).toBeUndefined();
  });
});

describe("cross-site requests (CSRF)", () => {
  const own = "http://127.0.0.1:8000";
  it.each([
    [
      "the page's own request",
      { [CSRF_HEADER]: "1", "sec-fetch-site": "same-origin", origin: own },
      undefined,
    ],
    ["a same-origin GET without Origin", { [CSRF_HEADER]: "1" }, undefined],
    ["no dashboard header", { "sec-fetch-site": "same-origin" }, /need the x-karmada-dashboard header/],
    ["another site", { [CSRF_HEADER]: "1", "sec-fetch-site": "cross-site" }, /cross-site request refused/],
    [
      "another origin",
      { [CSRF_HEADER]: "1", origin: "http://evil.example" },
      /cross-origin request from http:\/\/evil.example refused/,
    ],
    ["an opaque origin", { [CSRF_HEADER]: "1", origin: "null" }, /opaque origin/],
  ])("%s", (_, headers, want) => {
    const problem = crossSiteProblem(headers, own);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});

describe("small readers", () => {
  it("reads bearer tokens", () => {
    expect(bearerToken("Bearer abc.def")).toBe("abc.def");
    expect(bearerToken("bearer  abc ")).toBe("abc");
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it("checks namespace names", () => {
    expect(validNamespace("team-a")).toBe(true);
    expect(validNamespace("Team")).toBe(false);
    expect(validNamespace("../x")).toBe(false);
    expect(validNamespace("a".repeat(64))).toBe(false);
  });
});

describe("the read-only proxy's targets", () => {
  it.each([
    ["/api/v1/namespaces/default", "", undefined],
    ["/apis/cluster.karmada.io/v1alpha1/clusters", "", undefined],
    ["/version", "", undefined],
    ["/api/v1/namespaces/default/pods/web/log", "", undefined],
    ["/healthz", "", "only /api, /apis and /version are proxied"],
    ["/api/v1/pods", "watch=true", "the proxy serves reads, not watches"],
    [
      "/api/v1/namespaces/default/pods/web/exec",
      "command=sh",
      "exec, attach, port-forward and proxy subresources are not passed",
    ],
    [
      "/api/v1/namespaces/default/pods/web/attach",
      "",
      "exec, attach, port-forward and proxy subresources are not passed",
    ],
    [
      "/api/v1/namespaces/default/services/web/proxy/admin",
      "",
      "exec, attach, port-forward and proxy subresources are not passed",
    ],
    [
      "/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api/v1/secrets",
      "",
      "exec, attach, port-forward and proxy subresources are not passed",
    ],
  ])("%s?%s", (target, query, want) => {
    expect(proxyTargetProblem(target, new URLSearchParams(query))).toBe(want);
  });
});

describe("methods", () => {
  it.each([
    ["/api/k8s/api/v1/pods", "GET", undefined],
    ["/api/k8s/api/v1/pods", "POST", "GET"],
    ["/api/k8s/api/v1/pods", "DELETE", "GET"],
    ["/api/whatif", "POST", undefined],
    ["/api/whatif", "GET", "POST"],
    ["/api/stream/workloads", "GET", undefined],
    ["/api/whoami", "PUT", "GET"],
  ])("%s %s", (path, method, allow) => {
    expect(methodProblem(path, method)?.allow).toBe(allow);
  });
});
