import { describe, expect, it } from "vitest";
import { faultFromArgs } from "./fault-client.ts";
import { type ActiveFault, FaultError, Faults, parseFault } from "./faults.ts";

describe("faults", () => {
  it.each<[unknown, unknown]>([
    [{ type: "unreachable" }, { type: "unreachable", mode: "reset" }],
    [
      { type: "unreachable", mode: "hang" },
      { type: "unreachable", mode: "hang" },
    ],
    [{ type: "unhealthy" }, { type: "unhealthy" }],
    [
      { type: "cordon", node: "n1" },
      { type: "cordon", node: "n1" },
    ],
    [
      { type: "delete-pods", namespace: "x", selector: "app=y" },
      { type: "delete-pods", namespace: "x", selector: "app=y" },
    ],
    [
      { type: "unhealthy-workload", namespace: "x", kind: "Deployment", name: "y" },
      { type: "unhealthy-workload", namespace: "x", kind: "Deployment", name: "y" },
    ],
    [{ type: "restore" }, { type: "restore" }],
  ])("parses %j", (input, want) => {
    expect(parseFault(input)).toEqual(want);
  });

  it.each<[unknown, string]>([
    ["unreachable", 'a fault is a JSON object like {"type":"unreachable"}'],
    [
      { type: "boom" },
      '"type" must be one of unreachable, unhealthy, cordon, node-not-ready, unhealthy-workload, delete-pods, restore',
    ],
    [{ type: "unreachable", mode: "slow" }, 'unreachable: "mode" must be reset or hang'],
    [{ type: "unhealthy", node: "x" }, 'unhealthy: unknown field "node"'],
    [{ type: "delete-pods", namespace: "x", selector: "a in (" }, 'delete-pods: "selector":'],
    [
      { type: "unhealthy-workload", namespace: "x", kind: "Pod", name: "y" },
      'unhealthy-workload: "kind" must be one of Deployment',
    ],
    [
      { type: "unhealthy-workload", kind: "Deployment", name: "y" },
      'unhealthy-workload: "namespace" is required',
    ],
    [{ type: "cordon", node: "" }, 'cordon: "node" must be a non-empty string'],
  ])("rejects %j", (input, message) => {
    expect(() => parseFault(input)).toThrow(FaultError);
    expect(() => parseFault(input)).toThrow(message);
  });

  it("keeps active faults, tells listeners, restores one or all", async () => {
    const faults = new Faults(() => Date.parse("2026-03-01T10:00:00Z"));
    let changes = 0;
    faults.onChange(() => changes++);
    const a = (await faults.set({ type: "unreachable", mode: "hang" })) as { fault: ActiveFault };
    await faults.set({ type: "unhealthy-workload", namespace: "ns", kind: "StatefulSet", name: "db" });
    expect(a).toEqual({
      fault: { type: "unreachable", mode: "hang", id: "f1", since: "2026-03-01T10:00:00Z" },
    });
    expect(faults.unreachable()).toBe("hang");
    expect(faults.workloadUnhealthy("ns", "StatefulSet", "db")).toBe(true);
    expect(faults.workloadUnhealthy("ns", "StatefulSet", "other")).toBe(false);
    expect(await faults.set({ type: "restore", id: "f1" })).toEqual({ restored: [a.fault] });
    expect(faults.unreachable()).toBeUndefined();
    await expect(faults.set({ type: "restore", id: "f1" })).rejects.toThrow('restore: no active fault "f1"');
    expect((await faults.restore()).map((f) => f.id)).toEqual(["f2"]);
    expect(changes).toBe(4);
    await expect(faults.set({ type: "cordon" })).rejects.toThrow("the cluster is not running");
  });

  it("uncordons only the nodes a cordon fault cordoned, and not while another holds them", async () => {
    const faults = new Faults(() => 0);
    const cordoned = new Set(["n0"]);
    faults.bind({
      cordon: async (node, on) => {
        const targets = node ? [node] : ["n0", "n1"];
        const changed = targets.filter((n) => cordoned.has(n) !== on);
        for (const n of changed) on ? cordoned.add(n) : cordoned.delete(n);
        return changed;
      },
      deletePods: async () => 0,
    });
    const all = await faults.set({ type: "cordon" });
    await faults.set({ type: "cordon", node: "n1" });
    expect([...cordoned].sort()).toEqual(["n0", "n1"]);
    await faults.restore("fault" in all ? all.fault.id : "");
    expect([...cordoned].sort()).toEqual(["n0", "n1"]);
    await faults.restore();
    expect([...cordoned]).toEqual(["n0"]);
  });

  it.each<[Parameters<typeof faultFromArgs>[0], unknown]>([
    [
      { type: "unreachable", hang: true },
      { type: "unreachable", mode: "hang" },
    ],
    [{ type: "cordon" }, { type: "cordon" }],
    [
      { type: "delete-pods", namespace: "x", selector: "app=y" },
      { type: "delete-pods", namespace: "x", selector: "app=y" },
    ],
    [
      { type: "unhealthy-workload", namespace: "x", target: "deployment/web" },
      { type: "unhealthy-workload", namespace: "x", kind: "Deployment", name: "web" },
    ],
    [
      { type: "unhealthy-workload", target: "StatefulSet/db" },
      { type: "unhealthy-workload", namespace: "default", kind: "StatefulSet", name: "db" },
    ],
    [
      { type: "restore", id: "f3" },
      { type: "restore", id: "f3" },
    ],
  ])("the fault command %j", (args, body) => {
    expect(faultFromArgs(args)).toEqual(body);
  });

  it("explains a bad KIND/NAME", () => {
    expect(() => faultFromArgs({ type: "unhealthy-workload", target: "web" })).toThrow(
      "unhealthy-workload needs KIND/NAME",
    );
  });
});
