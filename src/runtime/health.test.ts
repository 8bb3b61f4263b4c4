import { describe, expect, it } from "vitest";
import { parseListenAddress, startHealthServer } from "./health.ts";

describe("listen addresses as Go reads them", () => {
  it.each([
    [":10357", { host: "0.0.0.0", port: 10357 }],
    ["127.0.0.1:0", { host: "127.0.0.1", port: 0 }],
    ["[::1]:8080", { host: "::1", port: 8080 }],
    ["10351", { host: "0.0.0.0", port: 10351 }],
  ])("%s", (text, want) => {
    expect(parseListenAddress(text)).toEqual(want);
  });

  it.each(["localhost", "1.2.3.4:", ":99999"])("%s is refused", (text) => {
    expect(() => parseListenAddress(text)).toThrow();
  });
});

describe("the probe server", () => {
  it("answers ok, and a failing readiness as kube-apiserver words it", async () => {
    let ready = false;
    const s = await startHealthServer({ host: "127.0.0.1", port: 0, secure: false, ready: () => ready });
    try {
      expect(await (await fetch(`${s.url}/healthz`)).text()).toBe("ok");
      const notReady = await fetch(`${s.url}/readyz`);
      expect(notReady.status).toBe(500);
      ready = true;
      expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${s.url}/metrics`)).status).toBe(404);
    } finally {
      await s.close();
    }
  });
});
