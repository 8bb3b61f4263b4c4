import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../meta.ts";
import { clusterCrd } from "../cluster.ts";
import { defaulted, rendered, testContext } from "./admission.fixtures.ts";
import {
  clusterNameErrors,
  defaultResourceModels,
  mutateCluster,
  resourceModelsError,
  validateCluster,
} from "./cluster.ts";
import { DEFAULT_FEATURES } from "./context.ts";

const MAX = "9223372036854775807";

function cluster(spec: Record<string, unknown>, name = "member1"): StoredObject {
  return defaulted(clusterCrd, {
    apiVersion: "cluster.karmada.io/v1alpha1",
    kind: "Cluster",
    metadata: { name },
    spec: { syncMode: "Push", ...spec },
  });
}

// The example of the reference (§7.5).
const REFERENCE_EXAMPLE = {
  id: "3c6e",
  syncMode: "Push",
  apiEndpoint: "https://172.18.0.3:6443",
  secretRef: { namespace: "karmada-cluster", name: "member1" },
  impersonatorSecretRef: { namespace: "karmada-cluster", name: "member1-impersonator" },
  provider: "aws",
  region: "us-east-1",
  zones: ["us-east-1a"],
  taints: [{ key: "cluster.karmada.io/not-ready", effect: "NoSchedule" }],
};

describe("mutation", () => {
  it("gives a new cluster the nine default resource models", () => {
    const c = cluster(REFERENCE_EXAMPLE);
    mutateCluster(c, undefined, testContext());
    const models = (c.spec as { resourceModels: unknown[] }).resourceModels;
    expect(models).toHaveLength(9);
    expect(models[0]).toEqual({
      grade: 0,
      ranges: [
        { name: "cpu", min: "0", max: "1" },
        { name: "memory", min: "0", max: "4Gi" },
      ],
    });
    expect(models[7]).toEqual({
      grade: 7,
      ranges: [
        { name: "cpu", min: "64", max: "128" },
        { name: "memory", min: "512Gi", max: "1Ti" },
      ],
    });
    expect(models[8]).toEqual({
      grade: 8,
      ranges: [
        { name: "cpu", min: "128", max: MAX },
        { name: "memory", min: "1Ti", max: MAX },
      ],
    });
    expect(validateCluster(c)).toEqual([]);
  });

  it("leaves models alone on update when none are set, and without the feature gate", () => {
    const old = cluster({});
    const c = cluster({});
    mutateCluster(c, old, testContext());
    expect((c.spec as Record<string, unknown>).resourceModels).toBeUndefined();
    const fresh = cluster({});
    mutateCluster(fresh, undefined, testContext(), {
      ...DEFAULT_FEATURES,
      CustomizedClusterResourceModeling: false,
    });
    expect((fresh.spec as Record<string, unknown>).resourceModels).toBeUndefined();
  });

  it("sorts given models by grade and opens the outer bounds", () => {
    const c = cluster({
      resourceModels: [
        { grade: 2, ranges: [{ name: "cpu", min: "2", max: "8" }] },
        { grade: 1, ranges: [{ name: "cpu", min: "1", max: "2" }] },
      ],
    });
    mutateCluster(c, cluster({}), testContext());
    expect((c.spec as Record<string, unknown>).resourceModels).toEqual([
      { grade: 1, ranges: [{ name: "cpu", min: "0", max: "2" }] },
      { grade: 2, ranges: [{ name: "cpu", min: "2", max: MAX }] },
    ]);
    expect(validateCluster(c)).toEqual([]);
  });

  it("stamps NoExecute taints with the time they were added, once", () => {
    const c = cluster({
      taints: [
        { key: "a", effect: "NoExecute" },
        { key: "b", effect: "NoSchedule" },
        { key: "c", effect: "NoExecute", timeAdded: "2020-01-01T00:00:00Z" },
      ],
    });
    mutateCluster(c, undefined, testContext());
    expect((c.spec as Record<string, unknown>).taints).toEqual([
      { key: "a", effect: "NoExecute", timeAdded: "2024-01-02T03:04:05Z" },
      { key: "b", effect: "NoSchedule" },
      { key: "c", effect: "NoExecute", timeAdded: "2020-01-01T00:00:00Z" },
    ]);
  });

  it("moves the deprecated zone into zones", () => {
    const c = cluster({ zone: "z1" });
    mutateCluster(c, undefined, testContext());
    expect(c.spec).toMatchObject({ zones: ["z1"] });
    expect((c.spec as Record<string, unknown>).zone).toBeUndefined();
  });

  it("keeps zone when zones is set (then validation refuses) or when zone is invalid (so its error names it)", () => {
    const both = cluster({ zone: "z1", zones: ["z2"] });
    mutateCluster(both, undefined, testContext());
    expect(both.spec).toMatchObject({ zone: "z1", zones: ["z2"] });
    const bad = cluster({ zone: "-z" });
    mutateCluster(bad, undefined, testContext());
    expect(bad.spec).toMatchObject({ zone: "-z" });
    expect(rendered(validateCluster(bad))[0]).toMatch(
      /^spec\.Zone: Invalid value: "-z": a valid label must be/,
    );
  });
});

const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const FORM = "; desired format: hostname, hostname:port, IP or IP:port";

describe("validation", () => {
  it("accepts the reference example", () => {
    expect(validateCluster(cluster(REFERENCE_EXAMPLE))).toEqual([]);
  });

  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    [
      "missing sync mode",
      { syncMode: "" },
      [
        "spec.syncMode: Required value",
        'spec.syncMode: Unsupported value: "": supported values: "Pull", "Push"',
      ],
    ],
    [
      "endpoint without a host",
      { apiEndpoint: "172.18.0.3:6443" },
      [
        `spec.apiEndpoint: Invalid value: "172.18.0.3:6443": apiEndpoint must be a valid URL: parse "172.18.0.3:6443": first path segment in URL cannot contain colon${FORM}`,
      ],
    ],
    [
      "endpoint read as scheme and opaque part",
      { apiEndpoint: "example.com:6443" },
      [`spec.apiEndpoint: Invalid value: "": host must be provided${FORM}`],
    ],
    [
      "endpoint with user, query and fragment",
      { apiEndpoint: "https://admin:pw@host:6443/?a=b#frag" },
      [
        'spec.apiEndpoint: Invalid value: "admin:pw": user information is not permitted in the URL',
        'spec.apiEndpoint: Invalid value: "frag": fragments are not permitted in the URL',
        'spec.apiEndpoint: Invalid value: "a=b": query parameters are not permitted in the URL',
      ],
    ],
    [
      "endpoint with a bad port",
      { apiEndpoint: "https://host:port" },
      [
        `spec.apiEndpoint: Invalid value: "https://host:port": apiEndpoint must be a valid URL: parse "https://host:port": invalid port ":port" after host${FORM}`,
      ],
    ],
    [
      "secret references without namespace or name",
      { secretRef: { namespace: "", name: "" }, impersonatorSecretRef: { namespace: "ns", name: "" } },
      [
        "spec.secretRef.namespace: Required value",
        "spec.secretRef.name: Required value",
        "spec.impersonatorSecretRef.name: Required value",
      ],
    ],
    [
      "proxy scheme",
      { proxyURL: "ftp://proxy:21" },
      [
        'spec.proxyURL: Invalid value: "ftp://proxy:21": unsupported scheme "ftp", must be http, https, or socks5',
      ],
    ],
    [
      "proxy that does not parse",
      { proxyURL: "://proxy" },
      [
        'spec.proxyURL: Invalid value: "://proxy": apiEndpoint must be a valid URL: parse "://proxy": missing protocol scheme',
      ],
    ],
    [
      "provider and region",
      { provider: "a b", region: "x".repeat(64) },
      [
        `spec.provider: Invalid value: "a b": ${LABEL_VALUE_ERR}`,
        `spec.region: Invalid value: "${"x".repeat(64)}": must be no more than 63 bytes`,
      ],
    ],
    [
      "zone and zones together",
      { zone: "z1", zones: ["z2"] },
      [
        'spec.spec: Invalid value: {"syncMode":"Push","zone":"z1","zones":["z2"]}: Zone and Zones cannot co-exist',
      ],
    ],
    ["zones", { zones: ["ok", "-bad"] }, [`spec.Zones: Invalid value: "-bad": ${LABEL_VALUE_ERR}`]],
    [
      "taints",
      {
        taints: [
          { key: "", effect: "NoSchedule" },
          { key: "k", value: "-v", effect: "PreferNoSchedule" },
          { key: "k", effect: "" },
          { key: "d", effect: "NoExecute" },
          { key: "d", effect: "NoExecute" },
        ],
      },
      [
        'spec.taints[0].key: Invalid value: "": name part must be non-empty',
        "spec.taints[0].key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        `spec.taints[1].value: Invalid value: "-v": ${LABEL_VALUE_ERR}`,
        'spec.taints[1].effect: Unsupported value: "PreferNoSchedule": supported values: "NoSchedule", "NoExecute"',
        "spec.taints[2].effect: Required value",
        'spec.taints[4]: Duplicate value: {"key":"d","effect":"NoExecute"}',
      ],
    ],
  ];
  it.each(cases)("%s", (_name, spec, expected) => {
    expect(rendered(validateCluster(cluster(spec)))).toEqual(expected);
  });

  it("keeps the detail of a duplicate taint", () => {
    const errs = validateCluster(
      cluster({
        taints: [
          { key: "d", effect: "NoSchedule" },
          { key: "d", effect: "NoSchedule" },
        ],
      }),
    );
    expect(errs).toEqual([
      {
        type: "FieldValueDuplicate",
        field: "spec.taints[1]",
        value: { key: "d", effect: "NoSchedule" },
        detail: "taints must be unique by key and effect pair",
      },
    ]);
  });

  const names: Array<[string, string[]]> = [
    ["member-1", []],
    ["", ["must be not empty"]],
    ["a".repeat(49), ["must be no more than 48 characters"]],
    ["a.b", ["must not contain dots"]],
    [
      "Member",
      [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
  ];
  it.each(names)("cluster name %j", (name, expected) => {
    expect(clusterNameErrors(name)).toEqual(expected);
  });

  it("reports a long cluster name at metadata.name", () => {
    const long = "a".repeat(49);
    expect(rendered(validateCluster(cluster({}, long)))).toEqual([
      `metadata.name: Invalid value: "${long}": must be no more than 48 characters`,
    ]);
  });
});

describe("resource models", () => {
  const model = (grade: number, ...ranges: Array<[string, string, string]>) => ({
    grade,
    ranges: ranges.map(([name, min, max]) => ({ name, min, max })),
  });
  const cases: Array<[string, Array<Record<string, unknown>>, string | undefined]> = [
    ["the defaults", defaultResourceModels(), undefined],
    [
      "repeated grade",
      [model(0, ["cpu", "0", "1"]), model(0, ["cpu", "1", MAX])],
      "The grade of each models should not be the same",
    ],
    [
      "different numbers of resources",
      [model(0, ["cpu", "0", "1"]), model(1, ["cpu", "1", MAX], ["memory", "0", MAX])],
      "The number of resource types should be the same",
    ],
    [
      "empty interval",
      [model(0, ["cpu", "0", "0"])],
      "The max value of each resource must be greater than the min value",
    ],
    [
      "first min not zero",
      [model(0, ["cpu", "1", MAX])],
      "The min value of each resource in the first model should be 0",
    ],
    [
      "resources in another order",
      [
        model(0, ["cpu", "0", "1"], ["memory", "0", "1Gi"]),
        model(1, ["memory", "1Gi", MAX], ["cpu", "1", MAX]),
      ],
      "The resource types of each models should be the same",
    ],
    [
      "gap between grades",
      [model(0, ["cpu", "0", "1"]), model(1, ["cpu", "2", MAX])],
      "Model intervals for resources must be contiguous and non-overlapping",
    ],
    [
      "last max not MaxInt64",
      [model(0, ["cpu", "0", "1"]), model(1, ["cpu", "1", "2"])],
      "The max value of each resource in the last model should be MaxInt64",
    ],
  ];
  it.each(cases)("%s", (_name, models, expected) => {
    expect(resourceModelsError(models)).toBe(expected);
  });

  it("reports the first problem at spec.resourceModels", () => {
    const models = [model(0, ["cpu", "0", "1"]), model(0, ["cpu", "1", MAX])];
    expect(rendered(validateCluster(cluster({ resourceModels: models })))).toEqual([
      `spec.resourceModels: Invalid value: ${JSON.stringify(models)}: The grade of each models should not be the same`,
    ]);
  });
});
