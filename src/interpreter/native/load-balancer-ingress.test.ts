import { describe, expect, it } from "vitest";
import { mergeIngressIngress, mergeServiceIngress } from "./load-balancer-ingress.ts";

describe("mergeServiceIngress", () => {
  const cases: Array<{ name: string; input: unknown[]; want: unknown[] }> = [
    { name: "empty", input: [], want: [] },
    {
      name: "duplicates collapse",
      input: [{ ip: "1.1.1.1" }, { ip: "1.1.1.1" }],
      want: [{ ip: "1.1.1.1" }],
    },
    {
      name: "hostnames before bare IPs, each sorted",
      input: [{ ip: "2.2.2.2" }, { hostname: "b" }, { ip: "1.1.1.1" }, { hostname: "a" }],
      want: [{ hostname: "a" }, { hostname: "b" }, { ip: "1.1.1.1" }, { ip: "2.2.2.2" }],
    },
    {
      name: "an IP mode makes a distinct entry, sorted before none",
      input: [{ ip: "1.1.1.1" }, { ip: "1.1.1.1", ipMode: "VIP" }, { ip: "1.1.1.1", ipMode: "Proxy" }],
      want: [{ ip: "1.1.1.1", ipMode: "Proxy" }, { ip: "1.1.1.1", ipMode: "VIP" }, { ip: "1.1.1.1" }],
    },
    {
      name: "ports of one address are united and sorted (no error first)",
      input: [
        {
          ip: "1.1.1.1",
          ports: [
            { port: 443, protocol: "TCP" },
            { port: 80, protocol: "UDP", error: "b" },
          ],
        },
        {
          ip: "1.1.1.1",
          ports: [
            { port: 80, protocol: "UDP", error: "a" },
            { port: 80, protocol: "UDP" },
            { port: 80, protocol: "TCP" },
            { port: 443, protocol: "TCP" },
          ],
        },
      ],
      want: [
        {
          ip: "1.1.1.1",
          ports: [
            { port: 80, protocol: "TCP" },
            { port: 80, protocol: "UDP" },
            { port: 80, protocol: "UDP", error: "a" },
            { port: 80, protocol: "UDP", error: "b" },
            { port: 443, protocol: "TCP" },
          ],
        },
      ],
    },
    {
      name: "unknown fields are not carried",
      input: [{ ip: "1.1.1.1", vendor: "x" }],
      want: [{ ip: "1.1.1.1" }],
    },
  ];
  for (const { name, input, want } of cases) {
    it(name, () => expect(mergeServiceIngress(input)).toEqual(want));
  }
});

describe("mergeIngressIngress", () => {
  it("keys by hostname and IP only", () => {
    expect(
      mergeIngressIngress([
        { ip: "1.1.1.1", ipMode: "VIP", ports: [{ port: 80, protocol: "TCP" }] },
        { ip: "1.1.1.1" },
        { hostname: "h", ip: "1.1.1.1" },
      ]),
    ).toEqual([
      { hostname: "h", ip: "1.1.1.1" },
      { ip: "1.1.1.1", ports: [{ port: 80, protocol: "TCP" }] },
    ]);
  });
});
