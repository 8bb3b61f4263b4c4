import { describe, expect, it } from "vitest";
import {
  findUntoleratedTaint,
  type Taint,
  type Toleration,
  taintToString,
  tolerates,
  tolerationsTolerate,
} from "./tolerations.ts";

describe("tolerates (Toleration.ToleratesTaint, no Lt/Gt)", () => {
  const taint: Taint = { key: "k", value: "v", effect: "NoSchedule" };
  const bare: Taint = { key: "k", effect: "NoExecute" };
  const cases: Array<[string, Toleration, Taint, boolean]> = [
    ["Equal, same key and value", { key: "k", operator: "Equal", value: "v" }, taint, true],
    ["no operator means Equal", { key: "k", value: "v" }, taint, true],
    ["Equal, other value", { key: "k", operator: "Equal", value: "w" }, taint, false],
    ["Equal without value, taint with one", { key: "k", operator: "Equal" }, taint, false],
    ["Equal without value, taint without one", { key: "k", operator: "Equal" }, bare, true],
    ["Exists on the key, whatever the value", { key: "k", operator: "Exists", value: "x" }, taint, true],
    ["Exists with no key tolerates every taint", { operator: "Exists" }, taint, true],
    [
      "Exists with no key, restricted to an effect",
      { operator: "Exists", effect: "NoExecute" },
      taint,
      false,
    ],
    ["other key", { key: "x", operator: "Exists" }, taint, false],
    ["no effect matches every effect", { key: "k", operator: "Exists" }, bare, true],
    ["same effect", { key: "k", operator: "Exists", effect: "NoSchedule" }, taint, true],
    ["other effect", { key: "k", operator: "Exists", effect: "NoExecute" }, taint, false],
    ["Gt is not enabled", { key: "k", operator: "Gt", value: "1" }, taint, false],
    ["Lt is not enabled", { key: "k", operator: "Lt", value: "1" }, taint, false],
    ["an unknown operator tolerates nothing", { key: "k", operator: "equal", value: "v" }, taint, false],
  ];
  it.each(cases)("%s", (_, toleration, t, want) => {
    expect(tolerates(toleration, t)).toBe(want);
  });

  it("a list tolerates when any toleration does", () => {
    expect(
      tolerationsTolerate(
        [
          { key: "x", operator: "Exists" },
          { key: "k", value: "v" },
        ],
        taint,
      ),
    ).toBe(true);
    expect(tolerationsTolerate([{ key: "x", operator: "Exists" }], taint)).toBe(false);
    expect(tolerationsTolerate(undefined, taint)).toBe(false);
  });

  it("finds the first untolerated taint among those that apply", () => {
    const taints: Taint[] = [
      { key: "a", effect: "PreferNoSchedule" },
      { key: "b", effect: "NoSchedule" },
      { key: "c", value: "1", effect: "NoExecute" },
    ];
    const applies = (t: Taint) => t.effect !== "PreferNoSchedule";
    expect(findUntoleratedTaint(taints, [], applies)?.key).toBe("b");
    expect(findUntoleratedTaint(taints, [{ key: "b", operator: "Exists" }], applies)?.key).toBe("c");
    expect(findUntoleratedTaint(taints, [{ operator: "Exists" }], applies)).toBeUndefined();
    expect(findUntoleratedTaint(undefined, [], applies)).toBeUndefined();
  });

  it("prints taints as key=value:Effect", () => {
    expect(taintToString({ key: "k", value: "v", effect: "NoSchedule" })).toBe("k=v:NoSchedule");
    expect(taintToString({ key: "k", effect: "NoExecute" })).toBe("k:NoExecute");
  });
});
