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
    [
      { type: "unreachable", mode: "slow" },
      { type: "unreachable", mode: "slow", delayMs: 2000 },
    ],
    [
      { type: "unreachable", mode: "slow", delayMs: 500, exceptUsers: ["agent"] },
      { type: "unreachable", mode: "slow", delayMs: 500, exceptUsers: ["agent"] },
    ],
    [
      { type: "unreachable", exceptUsers: ["a", "b"] },
      { type: "unreachable", mode: "reset", exceptUsers: ["a", "b"] },
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
    [{ type: "unreachable", mode: "slower" }, 'unreachable: "mode" must be reset, hang, slow'],
    [{ type: "unreachable", delayMs: 10 }, 'unreachable: "delayMs" is only for mode slow'],
    [
      { type: "unreachable", mode: "slow", delayMs: -1 },
      'unreachable: "delayMs" must be an integer from 0 to 60000',
    ],
    [
      { type: "unreachable", mode: "slow", delayMs: "2s" },
      'unreachable: "delayMs" must be an integer from 0 to 60000',
    ],
    [
      { type: "unreachable", exceptUsers: [] },
      'unreachable: "exceptUsers" must be a non-empty list of user names',
    ],
    [
      { type: "unreachable", exceptUsers: "agent" },
      'unreachable: "exceptUsers" must be a non-empty list of user names',
    ],
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
    expect(faults.unreachable()).toEqual({ mode: "hang" });
    expect(faults.workloadUnhealthy("ns", "StatefulSet", "db")).toBe(true);
    expect(faults.workloadUnhealthy("ns", "StatefulSet", "other")).toBe(false);
    expect(await faults.set({ type: "restore", id: "f1" })).toEqual({ restored: [a.fault] });
    expect(faults.unreachable()).toBeUndefined();
    await expect(faults.set({ type: "restore", id: "f1" })).rejects.toThrow('restore: no active fault "f1"');
    expect((await faults.restore()).map((f) => f.id)).toEqual(["f2"]);
    expect(changes).toBe(4);
    await expect(faults.set({ type: "cordon" })).rejects.toThrow("the cluster is not running");
  });

  it("spares the users a partition excepts, and lets the first fault set win", async () => {
    const faults = new Faults(() => 0);
    expect(faults.unreachableDependsOnUser()).toBe(false);
    await faults.set({ type: "unreachable", exceptUsers: ["agent", "observer"] });
    expect(faults.unreachableDependsOnUser()).toBe(true);
    expect(faults.unreachable("agent")).toBeUndefined();
    expect(faults.unreachable("observer")).toBeUndefined();
    expect(faults.unreachable("controller-manager")).toEqual({ mode: "reset" });
    // Not known yet: under the fault.
    expect(faults.unreachable()).toEqual({ mode: "reset" });
    await faults.set({ type: "unreachable", mode: "slow", delayMs: 1500 });
    expect(faults.unreachable("agent")).toEqual({ mode: "slow", delayMs: 1500 });
    expect(faults.unreachable("controller-manager")).toEqual({ mode: "reset" });
    await faults.restore("f1");
    expect(faults.unreachableDependsOnUser()).toBe(false);
    expect(faults.unreachable("controller-manager")).toEqual({ mode: "slow", delayMs: 1500 });
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
    [
      { type: "unreachable", slow: "1500", exceptUser: ["system:admin"] },
      { type: "unreachable", mode: "slow", delayMs: 1500, exceptUsers: ["system:admin"] },
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

  it.each<[Parameters<typeof faultFromArgs>[0], string]>([
    [{ type: "unreachable", hang: true, slow: "10" }, "unreachable: choose one of --hang and --slow"],
    [{ type: "unreachable", slow: "soon" }, 'unreachable: "delayMs" must be an integer from 0 to 60000'],
  ])("refuses the fault command %j", (args, message) => {
    expect(() => faultFromArgs(args)).toThrow(message);
  });

  it("explains a bad KIND/NAME", () => {
    expect(() => faultFromArgs({ type: "unhealthy-workload", target: "web" })).toThrow(
      "unhealthy-workload needs KIND/NAME",
    );
  });
});
