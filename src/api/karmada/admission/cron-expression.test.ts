import { describe, expect, it } from "vitest";
import { isValidCronExpression } from "./cron-expression.ts";

describe("isValidCronExpression", () => {
  const valid = [
    "*/1 * * * *",
    "0 8 * * 1-5",
    "30 */2 * * *",
    "0 0 1,15 * *",
    "0 0 * * MON-FRI",
    "0 0 1 JAN *",
    "0 0 L * *",
    "0 0 15W * *",
    "0 0 * * 5L",
    "0 0 * * 1#2",
    "0 0 * * 7",
    "0 0 0 * *",
    "@daily",
    "@Hourly",
    "@5minutes",
    "@everysecond",
    "15 0 8 * * *",
    "0 0 8 * * 2030",
    "0 0 8 * * * 2030",
    "  0  8 * * *  ",
    "5/15 * * * *",
    "10-20/5 * * * *",
  ];
  it.each(valid)("accepts %j", (expr) => {
    expect(isValidCronExpression(expr)).toBe(true);
  });

  const invalid = [
    "",
    "* * * *",
    "* * * * * * * *",
    "60 * * * *",
    "* 24 * * *",
    "* * 32 * *",
    "* * * 13 *",
    "* * * * 8",
    "*/0 * * * *",
    "5-1 * * * *",
    "a * * * *",
    "@reboot",
    "0 0 W * *",
    "0 0 * * L",
    "0 0 * * #2",
    "0 0 1#2 * *",
    "0 0 * * 1W",
  ];
  it.each(invalid)("refuses %j", (expr) => {
    expect(isValidCronExpression(expr)).toBe(false);
  });
});
