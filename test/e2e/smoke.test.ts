import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/kubectl.ts";

describe("smoke: kubectl against the API server", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
  });

  it("creates and reads a namespace and a configmap", async () => {
    expect((await s.kubectl(["create", "namespace", "smoke"])).code).toBe(0);
    expect((await s.kubectl(["-n", "smoke", "create", "configmap", "c", "--from-literal=a=b"])).code).toBe(0);
    const got = await s.kubectl(["-n", "smoke", "get", "configmap", "c", "-o", "jsonpath={.data.a}"]);
    expect(got.stdout).toBe("b");
  });
});
