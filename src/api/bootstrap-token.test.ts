import { describe, expect, it } from "vitest";
import { bootstrapTokenExpired, readBootstrapToken, secretExpiration } from "./bootstrap-token.ts";
import type { StoredObject } from "./meta.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const secret = (data: Record<string, string>): StoredObject => ({
  apiVersion: "v1",
  kind: "Secret",
  type: "bootstrap.kubernetes.io/token",
  metadata: { name: "bootstrap-token-abcdef", namespace: "kube-system", uid: "uid-bootstrap-token" },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});
const NOW = Date.parse("2026-11-26T12:00:00Z");

describe("bootstrap token expiration, as kube's bootstrap helpers read it", () => {
  it.each([
    { expiration: undefined, expired: false },
    { expiration: "", expired: false },
    { expiration: "2026-11-26T13:00:00Z", expired: false },
    { expiration: "2026-11-26T13:00:00+02:00", expired: true },
    { expiration: "2026-11-26T11:59:59.5Z", expired: true },
    // Not RFC 3339 (a bare date, no zone): unreadable, so expired.
    { expiration: "2027-01-01", expired: true },
    { expiration: "2027-01-01T00:00:00", expired: true },
  ])("expiration $expiration: expired $expired", ({ expiration, expired }) => {
    const s = secret({
      "token-id": "abcdef",
      "token-secret": "0123456789abcdef",
      ...(expiration === undefined ? {} : { expiration }),
    });
    expect(bootstrapTokenExpired(secretExpiration(s), NOW)).toBe(expired);
    expect(bootstrapTokenExpired(readBootstrapToken(s)!, NOW)).toBe(expired);
  });
});
