import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../meta.ts";
import { cronFederatedHPACrd, federatedHPACrd } from "../autoscaling.ts";
import { defaulted, rendered, testContext } from "./admission.fixtures.ts";
import {
  mutateFederatedHPA,
  timeZoneLoadError,
  validateCronFederatedHPA,
  validateFederatedHPA,
} from "./hpa.ts";

const TARGET = { apiVersion: "apps/v1", kind: "Deployment", name: "nginx" };

function fhpa(spec: Record<string, unknown>, status?: Record<string, unknown>): StoredObject {
  return defaulted(federatedHPACrd, {
    apiVersion: "autoscaling.karmada.io/v1alpha1",
    kind: "FederatedHPA",
    metadata: { name: "nginx", namespace: "default" },
    spec: { scaleTargetRef: TARGET, maxReplicas: 10, ...spec },
    ...(status ? { status } : {}),
  });
}

function cron(spec: Record<string, unknown>): StoredObject {
  return defaulted(cronFederatedHPACrd, {
    apiVersion: "autoscaling.karmada.io/v1alpha1",
    kind: "CronFederatedHPA",
    metadata: { name: "nginx", namespace: "default" },
    spec: { scaleTargetRef: TARGET, ...spec },
  });
}

describe("FederatedHPA mutation", () => {
  it("defaults minReplicas and an 80% CPU target, and is valid", () => {
    const h = fhpa({});
    mutateFederatedHPA(h, undefined, testContext());
    expect(h.spec).toMatchObject({
      minReplicas: 1,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
        },
      ],
    });
    expect((h.spec as Record<string, unknown>).behavior).toBeUndefined();
    expect(validateFederatedHPA(h)).toEqual([]);
  });

  it("fills a partial behavior with Kubernetes' scaling defaults", () => {
    const h = fhpa({ minReplicas: 2, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } });
    mutateFederatedHPA(h, undefined, testContext());
    expect((h.spec as Record<string, unknown>).behavior).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: "Max",
        policies: [
          { type: "Pods", value: 4, periodSeconds: 15 },
          { type: "Percent", value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 60,
        selectPolicy: "Max",
        policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
      },
    });
    expect(validateFederatedHPA(h)).toEqual([]);
  });
});

describe("FederatedHPA validation", () => {
  const resource = (target: Record<string, unknown>) => ({
    type: "Resource",
    resource: { name: "cpu", target },
  });
  const cases: Array<[string, StoredObject, string[]]> = [
    [
      "replica bounds",
      fhpa({ minReplicas: 0, maxReplicas: 0 }),
      [
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
        "spec.maxReplicas: Invalid value: 0: must be greater than 0",
      ],
    ],
    [
      "max below min",
      fhpa({ minReplicas: 5, maxReplicas: 3 }),
      ["spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`"],
    ],
    [
      "scale target reference",
      fhpa({ scaleTargetRef: { apiVersion: "apps/v1", kind: "", name: "a/b" } }),
      [
        "spec.scaleTargetRef.kind: Required value",
        "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'",
      ],
    ],
    [
      "External metrics are not supported",
      fhpa({
        metrics: [
          { type: "External", external: { metric: { name: "q" }, target: { type: "Value", value: "1" } } },
        ],
      }),
      [
        'spec.metrics[0].type: Unsupported value: "External": supported values: "ContainerResource", "Object", "Pods", "Resource"',
        'spec.metrics[0].type: Unsupported value: "External": supported values: "ContainerResource", "Object", "Pods", "Resource"',
      ],
    ],
    [
      "a type without its source, and a second source",
      fhpa({
        metrics: [
          {
            type: "Pods",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
          },
        ],
      }),
      ["spec.metrics[0].pods: Required value: must populate information for the given metric source"],
    ],
    [
      "two sources",
      fhpa({
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
            pods: { metric: { name: "m" }, target: { type: "AverageValue", averageValue: "1" } },
          },
        ],
      }),
      ["spec.metrics[0].pods: Forbidden: must populate the given metric source only"],
    ],
    [
      "resource targets",
      fhpa({
        metrics: [
          resource({ type: "Utilization" }),
          resource({ type: "Ratio", averageUtilization: 0, averageValue: "-1" }),
        ],
      }),
      [
        "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization",
        'spec.metrics[1].resource.target.type: Invalid value: "Ratio": must be either Utilization, Value, or AverageValue',
        'spec.metrics[1].resource.target.averageValue: Invalid value: "-1": must be positive',
        "spec.metrics[1].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
        "spec.metrics[1].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization",
      ],
    ],
    [
      "container resource source",
      fhpa({
        metrics: [
          {
            type: "ContainerResource",
            containerResource: {
              name: "pods",
              container: "App",
              target: { type: "Utilization", averageUtilization: 50 },
            },
          },
        ],
      }),
      [
        'spec.metrics[0].containerResource.name: Invalid value: "pods": must be a standard resource for containers',
        "spec.metrics[0].containerResource.container: Invalid value: \"App\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    [
      "object and pods sources",
      fhpa({
        metrics: [
          {
            type: "Object",
            object: {
              describedObject: { kind: "Service", name: "s" },
              metric: { name: "" },
              target: { type: "Value" },
            },
          },
          { type: "Pods", pods: { metric: { name: "m" }, target: { type: "AverageValue" } } },
        ],
      }),
      [
        "spec.metrics[0].object.metric.name: Required value: must specify a metric name",
        "spec.metrics[0].object.target.averageValue: Required value: must set either a target value or averageValue",
        "spec.metrics[1].pods.target.averageValue: Required value: must specify a positive target averageValue",
      ],
    ],
    [
      "scaling rules",
      fhpa({
        behavior: {
          scaleUp: { stabilizationWindowSeconds: 3601, selectPolicy: "Any", policies: [] },
          scaleDown: {
            stabilizationWindowSeconds: -1,
            policies: [{ type: "Count", value: 0, periodSeconds: 1801 }],
          },
        },
      }),
      [
        "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
        'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Any": supported values: "Disabled", "Max", "Min"',
        "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
        "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero",
        'spec.behavior.scaleDown.policies[0].type: Unsupported value: "Count": supported values: "Percent", "Pods"',
        "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
        "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
      ],
    ],
    [
      "negative status counts",
      fhpa({}, { currentReplicas: -1, desiredReplicas: -2 }),
      [
        "status.currentReplicas: Invalid value: -1: must be greater than or equal to 0",
        "status.desiredReplicas: Invalid value: -2: must be greater than or equal to 0",
      ],
    ],
  ];
  it.each(cases)("%s", (_name, h, expected) => {
    expect(rendered(validateFederatedHPA(h))).toEqual(expected);
  });
});

describe("CronFederatedHPA validation", () => {
  const FHPA_REF = { apiVersion: "autoscaling.karmada.io/v1alpha1", kind: "FederatedHPA", name: "nginx" };

  it("accepts upstream's examples", () => {
    const scaleWorkload = cron({ rules: [{ name: "scale-up", schedule: "*/1 * * * *", targetReplicas: 5 }] });
    const scaleFhpa = cron({
      scaleTargetRef: FHPA_REF,
      rules: [
        {
          name: "scale-up",
          schedule: "0 8 * * *",
          targetMinReplicas: 2,
          targetMaxReplicas: 10,
          timeZone: "Asia/Shanghai",
        },
      ],
    });
    expect(validateCronFederatedHPA(scaleWorkload)).toEqual([]);
    expect(validateCronFederatedHPA(scaleFhpa)).toEqual([]);
  });

  const cases: Array<[string, StoredObject, string[]]> = [
    [
      "a Karmada autoscaling target that is not a FederatedHPA (only this error)",
      cron({
        scaleTargetRef: { apiVersion: "autoscaling.karmada.io/v1alpha1", kind: "CronFederatedHPA", name: "" },
        rules: [],
      }),
      [
        'spec.scaleTargetRef.kind: Invalid value: "CronFederatedHPA": invalid scaleTargetRef kind: CronFederatedHPA, only support FederatedHPA',
      ],
    ],
    [
      "duplicate names, bad schedule and time zone",
      cron({
        rules: [
          { name: "r", schedule: "* * * * *", targetReplicas: 1 },
          { name: "r", schedule: "every minute", targetReplicas: 1, timeZone: "Mars/Olympus" },
        ],
      }),
      [
        'spec.rules[1].name: Duplicate value: "r"',
        'spec.rules[1].schedule: Invalid value: "every minute": invalid cron format',
        'spec.rules[1].timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
      ],
    ],
    [
      "workload target without or with negative replicas",
      cron({
        rules: [
          { name: "a", schedule: "@daily" },
          { name: "b", schedule: "@daily", targetReplicas: -1 },
        ],
      }),
      [
        'spec.rules[0].targetReplicas: Invalid value: "": targetReplicas cannot be nil if you want to scale Deployment',
        'spec.rules[1].targetReplicas: Invalid value: "": targetReplicas should be larger than or equal to 0',
      ],
    ],
    [
      "FederatedHPA target replica bounds",
      cron({
        scaleTargetRef: FHPA_REF,
        rules: [
          { name: "a", schedule: "@daily" },
          { name: "b", schedule: "@daily", targetMinReplicas: 0, targetMaxReplicas: 0 },
          { name: "c", schedule: "@daily", targetMinReplicas: 5, targetMaxReplicas: 3 },
        ],
      }),
      [
        'spec.rules[0].targetMaxReplicas: Invalid value: "": targetMinReplicas and targetMaxReplicas cannot be nil at the same time if you want to scale FederatedHPA',
        'spec.rules[1].targetMinReplicas: Invalid value: "": targetMinReplicas should be larger than 0',
        'spec.rules[1].targetMaxReplicas: Invalid value: "": targetMaxReplicas should be larger than 0',
        'spec.rules[2].targetMinReplicas: Invalid value: "": targetMaxReplicas should be larger than or equal to targetMinReplicas',
      ],
    ],
  ];
  it.each(cases)("%s", (_name, c, expected) => {
    expect(rendered(validateCronFederatedHPA(c))).toEqual(expected);
  });

  const zones: Array<[string, string | undefined]> = [
    ["", undefined],
    ["UTC", undefined],
    ["Local", undefined],
    ["America/New_York", undefined],
    ["america/new_york", "unknown time zone america/new_york"],
    ["../etc/passwd", "time: invalid location name"],
    ["Nowhere/City", "unknown time zone Nowhere/City"],
  ];
  it.each(zones)("time zone %j", (tz, expected) => {
    expect(timeZoneLoadError(tz)).toBe(expected);
  });
});
