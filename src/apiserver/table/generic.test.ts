import { describe, expect, it } from "vitest";
import type { PrinterColumn } from "../../api/schema.ts";
import { columnCell, genericColumns } from "./generic.ts";
import { ago, DAY, MINUTE, NOW } from "./table.fixtures.ts";
import { toTable } from "./table.ts";

const policyColumns: PrinterColumn[] = [
  { name: "Conflict-Resolution", type: "string", jsonPath: ".spec.conflictResolution" },
  { name: "Priority", type: "integer", jsonPath: ".spec.priority" },
  { name: "Weight", type: "number", jsonPath: ".spec.weight", priority: 1 },
  { name: "Suspended", type: "boolean", jsonPath: ".spec.suspension.dispatching" },
  {
    name: "Ready",
    type: "string",
    jsonPath: '.status.conditions[?(@.type=="Ready")].status',
    description: "Ready condition",
  },
  { name: "Kinds", type: "string", jsonPath: ".spec.resourceSelectors[*].kind" },
  { name: "App", type: "string", jsonPath: ".metadata.labels.app\\.kubernetes\\.io/name" },
  { name: "Selectors", type: "string", jsonPath: ".spec.resourceSelectors" },
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
];

const policy = {
  apiVersion: "policy.karmada.io/v1alpha1",
  kind: "PropagationPolicy",
  metadata: {
    name: "web",
    namespace: "default",
    creationTimestamp: ago(3 * DAY),
    labels: { "app.kubernetes.io/name": "web" },
  },
  spec: {
    conflictResolution: "Abort",
    priority: 7,
    weight: 1.5,
    suspension: { dispatching: false },
    resourceSelectors: [
      { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      { apiVersion: "v1", kind: "Service", name: "web" },
    ],
  },
  status: { conditions: [{ type: "Ready", status: "True" }] },
};

describe("custom resource tables", () => {
  it("are Name then the declared columns, without an extra Age", () => {
    const table = toTable("policy.karmada.io/PropagationPolicy", [policy], {
      now: NOW,
      includeObject: "None",
      crdColumns: policyColumns,
    });
    expect(table.columnDefinitions.map((c) => [c.name, c.type, c.priority])).toEqual([
      ["Name", "string", 0],
      ["Conflict-Resolution", "string", 0],
      ["Priority", "integer", 0],
      ["Weight", "number", 1],
      ["Suspended", "boolean", 0],
      ["Ready", "string", 0],
      ["Kinds", "string", 0],
      ["App", "string", 0],
      ["Selectors", "string", 0],
      ["Age", "date", 0],
    ]);
    expect(table.columnDefinitions[0]?.format).toBe("name");
    expect(table.columnDefinitions[1]?.description).toBe(
      "Custom resource definition column (in JSONPath format): .spec.conflictResolution",
    );
    expect(table.columnDefinitions[5]?.description).toBe("Ready condition");
    // Only the first match of a multi-valued path is shown; structures print as JSON.
    expect(table.rows[0]?.cells).toEqual([
      "web",
      "Abort",
      7,
      1.5,
      false,
      "True",
      "Deployment",
      "web",
      '[{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},{"apiVersion":"v1","kind":"Service","name":"web"}]',
      "3d",
    ]);
  });

  it("leave a cell null when nothing matches or the value has another type", () => {
    const table = toTable(
      "policy.karmada.io/PropagationPolicy",
      [{ metadata: { name: "bare" }, spec: { priority: "high", weight: 2 } }],
      {
        now: NOW,
        includeObject: "None",
        crdColumns: policyColumns,
      },
    );
    expect(table.rows[0]?.cells).toEqual(["bare", null, null, 2, null, null, null, null, null, null]);
  });

  it("without printer columns are Name and Age", () => {
    const table = toTable(
      "example.com/Widget",
      [{ metadata: { name: "w", creationTimestamp: ago(5 * MINUTE) } }],
      {
        now: NOW,
        includeObject: "None",
        crdColumns: [],
      },
    );
    expect(table.columnDefinitions).toEqual(genericColumns);
    expect(table.rows[0]?.cells).toEqual(["w", "5m"]);
  });

  it("stop at a column whose JSONPath does not parse", () => {
    const columns: PrinterColumn[] = [
      { name: "A", type: "string", jsonPath: ".spec.a" },
      { name: "B", type: "string", jsonPath: ".spec[" },
      { name: "C", type: "string", jsonPath: ".spec.c" },
    ];
    const table = toTable("example.com/Widget", [{ metadata: { name: "w" }, spec: { a: "x", c: "y" } }], {
      now: NOW,
      includeObject: "None",
      crdColumns: columns,
    });
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(["Name", "A"]);
    expect(table.rows[0]?.cells).toEqual(["w", "x"]);
  });
});

describe("columnCell", () => {
  it.each<[string, unknown[], unknown]>([
    ["integer", [3.9], 3],
    ["integer", ["3"], null],
    ["number", [3], 3],
    ["boolean", [true], true],
    ["boolean", ["true"], null],
    ["string", [42], "42"],
    ["string", [true], "true"],
    ["string", [null], "<no value>"],
    ["string", [{ b: 1, a: 2 }], '{"a":2,"b":1}'],
    ["string", ["first", "second"], "first"],
    ["date", ["2024-06-01T11:00:00Z"], "60m"],
    ["date", ["not a date"], "<invalid>"],
    ["date", [""], "<unknown>"],
    ["date", [5], null],
    ["integer", [null], null],
    ["string", [], null],
    ["other", ["x"], null],
  ])("%s of %j is %j", (type, results, cell) => {
    expect(columnCell(type, results, NOW)).toEqual(cell);
  });
});
