import { describe, expect, it } from "vitest";
import { isAgentRequest } from "./agent-csr-approving.ts";

type Request = Parameters<typeof isAgentRequest>[0];

const agent: Request = {
  commonName: "system:karmada:agent:member1",
  organizations: ["system:karmada:agents"],
  dnsNames: [],
  ipAddresses: [],
  emailAddresses: [],
  uris: [],
};
const USAGES = ["digital signature", "key encipherment", "client auth"];

describe("isAgentRequest", () => {
  const cases: Array<{ name: string; request: Request; usages: string[]; want: boolean }> = [
    { name: "an agent's request", request: agent, usages: USAGES, want: true },
    {
      name: "the rbac-generator identity",
      request: { ...agent, commonName: "system:karmada:agent:rbac-generator" },
      usages: USAGES,
      want: true,
    },
    {
      name: "usages in any order",
      request: agent,
      usages: ["client auth", "key encipherment", "digital signature"],
      want: true,
    },
    {
      name: "without key encipherment",
      request: agent,
      usages: ["digital signature", "client auth"],
      want: true,
    },
    {
      name: "usages repeated",
      request: agent,
      usages: ["client auth", "digital signature", "client auth"],
      want: true,
    },
    { name: "client auth alone", request: agent, usages: ["client auth"], want: false },
    {
      name: "no digital signature",
      request: agent,
      usages: ["key encipherment", "client auth"],
      want: false,
    },
    {
      name: "no client auth",
      request: agent,
      usages: ["digital signature", "key encipherment"],
      want: false,
    },
    { name: "an extra usage", request: agent, usages: [...USAGES, "server auth"], want: false },
    { name: "no usages", request: agent, usages: [], want: false },
    {
      name: "another organization",
      request: { ...agent, organizations: ["system:nodes"] },
      usages: USAGES,
      want: false,
    },
    {
      name: "an extra organization",
      request: { ...agent, organizations: ["system:karmada:agents", "system:masters"] },
      usages: USAGES,
      want: false,
    },
    { name: "no organization", request: { ...agent, organizations: [] }, usages: USAGES, want: false },
    {
      name: "a common name outside the agent prefix",
      request: { ...agent, commonName: "system:admin" },
      usages: USAGES,
      want: false,
    },
    {
      name: "the prefix must start the common name",
      request: { ...agent, commonName: "x-system:karmada:agent:member1" },
      usages: USAGES,
      want: false,
    },
    { name: "a DNS name", request: { ...agent, dnsNames: ["member1.example"] }, usages: USAGES, want: false },
    { name: "an IP address", request: { ...agent, ipAddresses: ["10.0.0.1"] }, usages: USAGES, want: false },
    {
      name: "an email address",
      request: { ...agent, emailAddresses: ["a@example.com"] },
      usages: USAGES,
      want: false,
    },
    { name: "a URI", request: { ...agent, uris: ["spiffe://karmada/agent"] }, usages: USAGES, want: false },
  ];
  it.each(cases)("$name: $want", ({ request, usages, want }) => {
    expect(isAgentRequest(request, usages)).toBe(want);
  });
});
