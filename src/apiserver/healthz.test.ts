import { describe, expect, it } from "vitest";
import { type HealthCheck, healthAnswer, healthPath, PING } from "./healthz.ts";

const failing = (name: string, reason = "broken"): HealthCheck => ({ name, check: () => reason });
const throwing: HealthCheck = {
  name: "etcd",
  check: async () => {
    throw new Error("connection refused");
  },
};
const q = (s = "") => new URLSearchParams(s);
const log: HealthCheck = { name: "log", check: () => undefined };

describe("health answers as k8s.io/apiserver's healthz writes them", () => {
  it.each([
    ["all pass, terse", [PING], undefined, "", 200, "ok"],
    [
      "all pass, verbose",
      [PING, log],
      undefined,
      "verbose",
      200,
      "[+]ping ok\n[+]log ok\nhealthz check passed\n",
    ],
    [
      "a failure lists every check, reasons withheld",
      [PING, failing("etcd")],
      undefined,
      "",
      500,
      "[+]ping ok\n[-]etcd failed: reason withheld\nhealthz check failed\n",
    ],
    [
      "a check that throws fails",
      [PING, throwing],
      undefined,
      "",
      500,
      "[+]ping ok\n[-]etcd failed: reason withheld\nhealthz check failed\n",
    ],
    ["excluded checks do not count", [PING, failing("etcd")], undefined, "exclude=etcd", 200, "ok"],
    [
      "an exclusion matching nothing warns",
      [PING],
      undefined,
      "exclude=nope&verbose",
      200,
      '[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nhealthz check passed\n',
    ],
    ["one check by name", [PING, failing("etcd")], "ping", "", 200, "ok"],
    [
      "one failing check says why",
      [PING, throwing],
      "etcd",
      "",
      500,
      "internal server error: connection refused\n",
    ],
    ["an unknown check", [PING], "nope", "", 404, "404 page not found\n"],
  ] as const)("%s", async (_name, checks, check, query, status, text) => {
    expect(await healthAnswer("healthz", check, q(query), checks)).toEqual({ status, text });
  });

  it("names the endpoint in the last line", async () => {
    expect((await healthAnswer("readyz", undefined, q("verbose"), [PING])).text).toBe(
      "[+]ping ok\nreadyz check passed\n",
    );
  });

  it.each([
    ["/healthz", { endpoint: "healthz", check: undefined }],
    ["/livez/ping", { endpoint: "livez", check: "ping" }],
    [
      "/readyz/poststarthook/karmada-bootstrap",
      { endpoint: "readyz", check: "poststarthook/karmada-bootstrap" },
    ],
    ["/metrics", undefined],
    ["/healthzz", undefined],
  ] as const)("%s", (path, want) => {
    expect(healthPath(path)).toEqual(want);
  });
});
