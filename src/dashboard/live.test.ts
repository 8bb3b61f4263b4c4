import { describe, expect, it } from "vitest";
import { diffRows, StreamDiffer } from "./live.ts";

type Row = { key: string; v: number };

describe("diffRows", () => {
  it("sends only changed and new rows, and the keys that went", () => {
    const sent = new Map([
      ["a", JSON.stringify({ key: "a", v: 1 })],
      ["b", JSON.stringify({ key: "b", v: 1 })],
      ["c", JSON.stringify({ key: "c", v: 1 })],
    ]);
    const { upsert, remove, next } = diffRows<Row>(sent, [
      { key: "a", v: 1 },
      { key: "b", v: 2 },
      { key: "d", v: 1 },
    ]);
    expect(upsert).toEqual([
      { key: "b", v: 2 },
      { key: "d", v: 1 },
    ]);
    expect(remove).toEqual(["c"]);
    expect([...next.keys()]).toEqual(["a", "b", "d"]);
  });
});

describe("StreamDiffer", () => {
  it("sends a snapshot, then patches, and nothing when nothing changed", () => {
    const d = new StreamDiffer<Row, { n: number }>();
    const state = (rows: Row[], synced = true) => ({ rows, meta: { n: rows.length }, problems: [], synced });
    expect(d.next(state([{ key: "a", v: 1 }], false))).toEqual({
      type: "snapshot",
      rows: [{ key: "a", v: 1 }],
      meta: { n: 1 },
      problems: [],
      synced: false,
    });
    expect(d.next(state([{ key: "a", v: 1 }]))).toEqual({
      type: "patch",
      upsert: [],
      remove: [],
      synced: true,
    });
    expect(d.next(state([{ key: "a", v: 1 }]))).toBeUndefined();
    expect(d.next(state([{ key: "b", v: 1 }]))).toEqual({
      type: "patch",
      upsert: [{ key: "b", v: 1 }],
      remove: ["a"],
    });
    expect(
      d.next({
        rows: [{ key: "b", v: 1 }],
        meta: { n: 1 },
        problems: [{ resource: "x", code: 403, reason: "Forbidden", message: "no" }],
        synced: true,
      }),
    ).toEqual({
      type: "patch",
      upsert: [],
      remove: [],
      problems: [{ resource: "x", code: 403, reason: "Forbidden", message: "no" }],
    });
  });
});
