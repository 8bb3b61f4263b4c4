import { describe, expect, it } from "vitest";
import { createLogger, formatJson, formatText, type LogRecord, memoryLogger } from "./log.ts";

// 2026-11-28 21:37:06.123456 local time.
const at = new Date(2026, 10, 28, 21, 37, 6, 123).getTime() + 0.456;
const record = (over: Partial<LogRecord> = {}): LogRecord => ({
  time: at,
  level: "info",
  msg: "Reconciled",
  caller: "binding.ts:228",
  fields: { controller: "binding-controller", key: "default/nginx", attempt: 2, ok: true },
  ...over,
});

describe("klog's structured text", () => {
  it.each([
    [
      "info",
      record(),
      'I1128 21:37:06.123456    4242 binding.ts:228] "Reconciled" controller="binding-controller" key="default/nginx" attempt=2 ok=true\n',
    ],
    [
      "warning",
      record({ level: "warn", msg: "Slow", fields: {} }),
      'W1128 21:37:06.123456    4242 binding.ts:228] "Slow"\n',
    ],
    [
      "error, the error first",
      record({
        level: "error",
        msg: "Reconcile failed",
        err: new Error('a "quoted"\nthing'),
        fields: { key: "a" },
      }),
      'E1128 21:37:06.123456    4242 binding.ts:228] "Reconcile failed" err="a \\"quoted\\"\\nthing" key="a"\n',
    ],
    [
      "objects as JSON",
      record({ fields: { clusters: ["m1", "m2"], n: undefined } }),
      'I1128 21:37:06.123456    4242 binding.ts:228] "Reconciled" clusters=["m1","m2"]\n',
    ],
  ])("%s", (_name, r, want) => {
    expect(formatText(r, 4242)).toBe(want);
  });
});

describe("component-base's JSON", () => {
  it("writes ts in milliseconds, caller, msg, v, then the fields", () => {
    expect(JSON.parse(formatJson(record()))).toEqual({
      ts: at,
      caller: "binding.ts:228",
      msg: "Reconciled",
      v: 0,
      controller: "binding-controller",
      key: "default/nginx",
      attempt: 2,
      ok: true,
    });
    expect(JSON.parse(formatJson(record({ level: "debug" }))).v).toBe(4);
  });

  it("gives an error line err and no v", () => {
    const line = JSON.parse(formatJson(record({ level: "error", err: new Error("boom"), fields: {} })));
    expect(line).toEqual({ ts: at, caller: "binding.ts:228", msg: "Reconciled", err: "boom" });
  });
});

describe("the logger", () => {
  it("names the caller's file and line, keeps child fields, filters by level", () => {
    const lines: string[] = [];
    const log = createLogger({ level: "info", sink: { write: (l) => lines.push(l) } }).child({
      controller: "c",
    });
    log.debug("hidden");
    log.info("shown", { key: "k" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^I\d{4} [\d:.]{15} +\d+ log\.test\.ts:\d+\] "shown" controller="c" key="k"\n$/);
  });

  it("writes JSON lines when asked", () => {
    const lines: string[] = [];
    createLogger({ format: "json", sink: { write: (l) => lines.push(l) } }).warn("careful", { a: 1 });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      caller: expect.stringMatching(/^log\.test\.ts:\d+$/),
      msg: "careful",
      v: 0,
      a: 1,
    });
  });

  it("keeps events in memory for tests", () => {
    const { logger, lines } = memoryLogger();
    logger.child({ controller: "c" }).error(new Error("x"), "failed", { key: "k" });
    expect(lines).toEqual([
      {
        level: "error",
        msg: "failed",
        controller: "c",
        key: "k",
        err: { message: "x", stack: expect.any(String) },
      },
    ]);
  });
});
