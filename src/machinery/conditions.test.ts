import { describe, expect, it } from "vitest";
import {
  type Condition,
  type ConditionUpdate,
  findCondition,
  isConditionTrue,
  removeCondition,
  setCondition,
} from "./conditions.ts";

const t0 = "2026-01-01T00:00:00Z";
const t1 = "2026-01-01T00:01:00Z";
const t2 = "2026-01-01T00:02:00Z";

const ready: Condition = {
  type: "Ready",
  status: "True",
  reason: "Ok",
  message: "m",
  lastTransitionTime: t0,
};
const synced: Condition = {
  type: "Synced",
  status: "False",
  reason: "No",
  message: "",
  lastTransitionTime: t0,
};

describe("setCondition (meta.SetStatusCondition)", () => {
  const cases: Array<{
    name: string;
    before: Condition[];
    next: ConditionUpdate;
    changed: boolean;
    after: Condition[];
  }> = [
    {
      name: "a new type is appended, stamped now",
      before: [ready],
      next: { type: "Synced", status: "True", reason: "Yes", message: "" },
      changed: true,
      after: [ready, { type: "Synced", status: "True", reason: "Yes", message: "", lastTransitionTime: t1 }],
    },
    {
      name: "a new type keeps the transition time it comes with",
      before: [],
      next: { type: "Ready", status: "True", reason: "Ok", message: "m", lastTransitionTime: t2 },
      changed: true,
      after: [{ ...ready, lastTransitionTime: t2 }],
    },
    {
      name: "the same condition again changes nothing",
      before: [ready, synced],
      next: { type: "Ready", status: "True", reason: "Ok", message: "m" },
      changed: false,
      after: [ready, synced],
    },
    {
      name: "a new message in the same status keeps the transition time and the place",
      before: [ready, synced],
      next: { type: "Ready", status: "True", reason: "Ok", message: "m2" },
      changed: true,
      after: [{ ...ready, message: "m2" }, synced],
    },
    {
      name: "a new reason in the same status keeps the transition time",
      before: [ready],
      next: { type: "Ready", status: "True", reason: "StillOk", message: "m", lastTransitionTime: t2 },
      changed: true,
      after: [{ ...ready, reason: "StillOk" }],
    },
    {
      name: "a status change moves the transition time to now",
      before: [ready, synced],
      next: { type: "Ready", status: "False", reason: "Down", message: "gone" },
      changed: true,
      after: [
        { type: "Ready", status: "False", reason: "Down", message: "gone", lastTransitionTime: t1 },
        synced,
      ],
    },
    {
      name: "a status change takes the transition time it comes with",
      before: [ready],
      next: { type: "Ready", status: "Unknown", reason: "Down", message: "", lastTransitionTime: t2 },
      changed: true,
      after: [{ type: "Ready", status: "Unknown", reason: "Down", message: "", lastTransitionTime: t2 }],
    },
    {
      name: "observedGeneration is set, and counts as a change",
      before: [ready],
      next: { type: "Ready", status: "True", reason: "Ok", message: "m", observedGeneration: 3 },
      changed: true,
      after: [{ ...ready, observedGeneration: 3 }],
    },
    {
      name: "observedGeneration left out clears it",
      before: [{ ...ready, observedGeneration: 3 }],
      next: { type: "Ready", status: "True", reason: "Ok", message: "m" },
      changed: true,
      after: [ready],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const before = structuredClone(c.before);
      const list = [...before];
      expect(setCondition(list, c.next, t1)).toBe(c.changed);
      expect(list).toEqual(c.after);
      // The condition objects given are never edited: a shallow copy of a cached list is enough.
      expect(before).toEqual(c.before);
    });
  }

  it("keeps fields it does not know", () => {
    const list = [{ ...ready, lastHeartbeatTime: t0 } as Condition];
    setCondition(list, { type: "Ready", status: "False", reason: "Down", message: "" }, t1);
    expect(list[0]).toEqual({
      type: "Ready",
      status: "False",
      reason: "Down",
      message: "",
      lastTransitionTime: t1,
      lastHeartbeatTime: t0,
    });
  });

  it("takes the transition time from the condition when no now is given", () => {
    const list: Condition[] = [];
    expect(setCondition(list, ready)).toBe(true);
    expect(list).toEqual([ready]);
  });
});

describe("findCondition, isConditionTrue, removeCondition", () => {
  it.each<[string, Condition[] | undefined, string, boolean]>([
    ["true", [ready], "Ready", true],
    ["false", [synced], "Synced", false],
    ["missing", [ready], "Synced", false],
    ["no list", undefined, "Ready", false],
  ])("isConditionTrue: %s", (_name, list, type, want) => {
    expect(isConditionTrue(list, type)).toBe(want);
  });

  it("finds by type", () => {
    expect(findCondition([ready, synced], "Synced")).toBe(synced);
    expect(findCondition([ready], "Synced")).toBeUndefined();
    expect(findCondition(undefined, "Ready")).toBeUndefined();
  });

  it("removes in place", () => {
    const list = [ready, synced];
    expect(removeCondition(list, "Ready")).toBe(true);
    expect(list).toEqual([synced]);
    expect(removeCondition(list, "Ready")).toBe(false);
    expect(list).toEqual([synced]);
  });
});
