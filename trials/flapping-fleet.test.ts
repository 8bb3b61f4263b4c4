import { describe, expect, it } from "vitest";
import { sumCounter } from "./flapping-fleet.ts";

const EXPOSITION = `# HELP apiserver_request_total Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{verb="GET",resource="nodes",code="200"} 12
apiserver_request_total{verb="LIST",resource="pods",code="200"} 3
apiserver_request_total_other 100
rest_client_requests_total{code="200",host="127.0.0.1:4000",method="GET"} 7
rest_client_requests_total{code="<error>",host="127.0.0.1:4000",method="GET"} 2
rest_client_requests_total{code="200",host="127.0.0.1:4001",method="PUT"} 5
`;

describe("sumCounter", () => {
  it.each<[string, Record<string, string>, number]>([
    ["apiserver_request_total", {}, 15],
    ["rest_client_requests_total", { host: "127.0.0.1:4000" }, 9],
    ["rest_client_requests_total", { host: "127.0.0.1:4000", code: "<error>" }, 2],
    ["rest_client_requests_total", { host: "127.0.0.1:9" }, 0],
    ["missing_total", {}, 0],
  ])("%s %j", (family, labels, want) => {
    expect(sumCounter(EXPOSITION, family, labels)).toBe(want);
  });
});
