import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../../test/support/api.ts";

const SVC = "/api/v1/namespaces/default/services";

function svc(name: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } };
}

describe("service IP and node port allocation", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
  });

  it("gives each service its own cluster IP in 10.96.0.0/12 and keeps it on update", async () => {
    const a = await api.call("POST", SVC, svc("a"));
    const b = await api.call("POST", SVC, svc("b"));
    const ipA = (a.body.spec as { clusterIP: string }).clusterIP;
    const ipB = (b.body.spec as { clusterIP: string }).clusterIP;
    expect(ipA).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect(ipA).not.toBe(ipB);
    expect(a.body.spec).toMatchObject({
      clusterIPs: [ipA],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
    });
    const updated = await api.call("PUT", `${SVC}/a`, { ...svc("a", { ports: [{ port: 81 }] }) });
    expect((updated.body.spec as { clusterIP: string }).clusterIP).toBe(ipA);
  });

  it("refuses an address already taken or outside the range, and takes a free one asked for", async () => {
    const a = await api.call("GET", `${SVC}/a`);
    const taken = (a.body.spec as { clusterIP: string }).clusterIP;
    const dup = await api.call("POST", SVC, svc("dup", { clusterIP: taken }));
    expect(dup.status).toBe(422);
    expect(dup.body.message).toContain("provided IP is already allocated");
    const out = await api.call("POST", SVC, svc("out", { clusterIP: "192.168.1.1" }));
    expect(out.status).toBe(422);
    const chosen = await api.call("POST", SVC, svc("chosen", { clusterIP: "10.96.200.7" }));
    expect((chosen.body.spec as { clusterIP: string }).clusterIP).toBe("10.96.200.7");
  });

  it("frees an address when its service goes", async () => {
    await api.call("POST", SVC, svc("tmp", { clusterIP: "10.96.200.8" }));
    await api.call("DELETE", `${SVC}/tmp`);
    for (let i = 0; i < 100; i++) {
      const again = await api.call("POST", SVC, svc("tmp2", { clusterIP: "10.96.200.8" }));
      if (again.status === 201) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error("address was not freed");
  });

  it("leaves headless and ExternalName services without an address, and allocates node ports", async () => {
    const headless = await api.call("POST", SVC, svc("headless", { clusterIP: "None" }));
    expect(headless.body.spec).toMatchObject({ clusterIP: "None", clusterIPs: ["None"] });
    const ext = await api.call("POST", SVC, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "ext" },
      spec: { type: "ExternalName", externalName: "example.com" },
    });
    expect((ext.body.spec as { clusterIP?: string }).clusterIP).toBeUndefined();
    const np = await api.call("POST", SVC, svc("np", { type: "NodePort" }));
    const port = (np.body.spec as { ports: Array<{ nodePort: number }> }).ports[0]!.nodePort;
    expect(port).toBeGreaterThanOrEqual(30000);
    expect(port).toBeLessThanOrEqual(32767);
    const clash = await api.call(
      "POST",
      SVC,
      svc("np2", { type: "NodePort", ports: [{ port: 80, nodePort: port }] }),
    );
    expect(clash.status).toBe(422);
  });
});
