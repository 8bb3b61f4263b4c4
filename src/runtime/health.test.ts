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
  it("answers ok, lists its checks with ?verbose, and a failing check as kube-apiserver words it", async () => {
    let synced = false;
    const s = await startHealthServer({
      host: "127.0.0.1",
      port: 0,
      secure: false,
      checks: { readyz: [{ name: "informer-sync", check: () => (synced ? undefined : "not synced") }] },
    });
    try {
      expect(await (await fetch(`${s.url}/healthz`)).text()).toBe("ok");
      expect(await (await fetch(`${s.url}/livez?verbose`)).text()).toBe("[+]ping ok\nlivez check passed\n");
      const notReady = await fetch(`${s.url}/readyz`);
      expect(notReady.status).toBe(500);
      expect(await notReady.text()).toBe(
        "[+]ping ok\n[-]informer-sync failed: reason withheld\nreadyz check failed\n",
      );
      const one = await fetch(`${s.url}/readyz/informer-sync`);
      expect([one.status, await one.text()]).toEqual([500, "internal server error: not synced\n"]);
      synced = true;
      expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${s.url}/readyz/nope`)).status).toBe(404);
      expect((await fetch(`${s.url}/metrics`)).status).toBe(404);
    } finally {
      await s.close();
    }
  });
});
