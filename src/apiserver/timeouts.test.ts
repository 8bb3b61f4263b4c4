import { describe, expect, it } from "vitest";
import { ApiError } from "../machinery/errors.ts";
import { requestDeadlineMs, requestTimeoutStatus } from "./timeouts.ts";

describe("the request deadline, as kube-apiserver's request-deadline filter sets it", () => {
  it.each([
    // query, --request-timeout (ms), deadline (ms)
    ["", 60_000, 60_000],
    ["timeout=", 60_000, 60_000],
    ["timeout=5s", 60_000, 5_000],
    ["timeout=1m30s", 60_000, 60_000],
    ["timeout=1m", 60_000, 60_000],
    ["timeout=250ms", 60_000, 250],
    ["timeout=0", 60_000, 60_000],
    ["timeout=-5s", 60_000, 60_000],
    ["timeout=1.5s", 60_000, 1_500],
    ["timeout=10s", 0, 10_000],
    ["", 0, 0],
  ])("?%s with --request-timeout %i ms: %i ms", (query, max, want) => {
    expect(requestDeadlineMs(new URLSearchParams(query), max)).toBe(want);
  });

  it.each([
    ["timeout=abc", 'time: invalid duration "abc"'],
    ["timeout=5", 'time: missing unit in duration "5"'],
    ["timeout=5y", 'time: unknown unit "y" in duration "5y"'],
  ])("?%s is kube's 400", (query, why) => {
    let thrown: unknown;
    try {
      requestDeadlineMs(new URLSearchParams(query), 60_000);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).status).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: `invalid timeout specified in the request URL - ${why}`,
    });
  });

  it("answers a late request with kube's 504 Status", () => {
    expect(requestTimeoutStatus()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Timeout: request did not complete within the allotted timeout",
      reason: "Timeout",
      details: {},
      code: 504,
    });
  });
});
