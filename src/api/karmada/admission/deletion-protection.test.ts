import { describe, expect, it } from "vitest";
import { checkDeletionProtection } from "./deletion-protection.ts";

describe("checkDeletionProtection", () => {
  const cases: Array<[string, Record<string, string> | undefined, string | undefined]> = [
    [
      "labelled Always",
      { "resourcetemplate.karmada.io/deletion-protected": "Always" },
      "This resource is protected, please make sure to remove the label: resourcetemplate.karmada.io/deletion-protected",
    ],
    ["labelled with another value", { "resourcetemplate.karmada.io/deletion-protected": "Never" }, undefined],
    ["other labels", { app: "nginx" }, undefined],
    ["no labels", undefined, undefined],
  ];
  it.each(cases)("%s", (_name, labels, expected) => {
    const obj = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "nginx", ...(labels ? { labels } : {}) },
    };
    expect(checkDeletionProtection(obj)).toBe(expected);
  });
});
