import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../meta.ts";
import { object, rendered } from "./admission.fixtures.ts";
import {
  resourceInterpreterCustomizationDenial,
  validateResourceInterpreterWebhookConfiguration,
} from "./interpreter.ts";

function ric(name: string, kind: string, customizations: Record<string, string>): StoredObject {
  return object(
    "config.karmada.io/v1alpha1",
    "ResourceInterpreterCustomization",
    { name, uid: `uid-${name}` },
    {
      spec: {
        target: { apiVersion: "apps/v1", kind },
        customizations: Object.fromEntries(
          Object.entries(customizations).map(([k, v]) => [k, { luaScript: v }]),
        ),
      },
    },
  );
}

describe("ResourceInterpreterCustomization", () => {
  const existing = [
    ric("deploy-health", "Deployment", {
      healthInterpretation: "function InterpretHealth(o) return true end",
    }),
    ric("deploy-deps", "Deployment", {
      dependencyInterpretation: "function GetDependencies(o) return {} end",
    }),
    ric("sts-replica", "StatefulSet", { replicaResource: "function GetReplicas(o) return 1, {} end" }),
  ];

  const cases: Array<[string, StoredObject, string | undefined]> = [
    [
      "another operation of the same kind",
      ric("deploy-replica", "Deployment", { replicaResource: "x" }),
      undefined,
    ],
    [
      "the same operation of another kind",
      ric("sts-health", "StatefulSet", { healthInterpretation: "x" }),
      undefined,
    ],
    [
      "dependency scripts may be split",
      ric("deploy-deps-2", "Deployment", { dependencyInterpretation: "x" }),
      undefined,
    ],
    ["updating itself", ric("deploy-health", "Deployment", { healthInterpretation: "y" }), undefined],
    [
      "the same operation of the same kind",
      ric("deploy-health-2", "Deployment", { retention: "x", healthInterpretation: "y" }),
      "conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(deploy-health)",
    ],
  ];
  it.each(cases)("%s", (_name, candidate, expected) => {
    expect(resourceInterpreterCustomizationDenial(candidate, existing)).toBe(expected);
  });

  it("reports the first script the Lua compiler rejects", () => {
    const compile = (script: string) =>
      script.includes("end end") ? "[string \"...\"]:1: '<eof>' expected near 'end'" : undefined;
    const candidate = ric("c", "Job", {
      retention: "function Retain(d, o) return d end",
      statusReflection: "function f() end end",
    });
    expect(resourceInterpreterCustomizationDenial(candidate, [], compile)).toBe(
      "InterpreterOperation(InterpretStatus) Lua script error: [string \"...\"]:1: '<eof>' expected near 'end'",
    );
  });
});

function riwc(webhooks: Array<Record<string, unknown>>): StoredObject {
  return object(
    "config.karmada.io/v1alpha1",
    "ResourceInterpreterWebhookConfiguration",
    { name: "examples", uid: "uid-examples" },
    { webhooks },
  );
}

const RULE = {
  operations: ["InterpretReplica", "ReviseReplica"],
  apiGroups: ["workload.example.io"],
  apiVersions: ["v1alpha1"],
  kinds: ["Workload"],
};

// Upstream's example webhook configuration.
const EXAMPLE = {
  name: "workloads.example.com",
  rules: [RULE],
  clientConfig: {
    url: "https://karmada-interpreter-webhook-example.karmada-system.svc:443/interpreter-workload",
    caBundle: "Cg==",
  },
  interpreterContextVersions: ["v1alpha1"],
  timeoutSeconds: 3,
};

describe("ResourceInterpreterWebhookConfiguration", () => {
  it("accepts upstream's example and a service reference", () => {
    const service = {
      ...EXAMPLE,
      name: "svc.example.com",
      clientConfig: { service: { namespace: "ns", name: "hook", path: "/interpret" } },
    };
    expect(validateResourceInterpreterWebhookConfiguration(riwc([EXAMPLE, service]))).toEqual([]);
  });

  const cases: Array<[string, Array<Record<string, unknown>>, string[]]> = [
    [
      "names: not fully qualified, and repeated",
      [
        { ...EXAMPLE, name: "hook" },
        { ...EXAMPLE, name: "hook" },
      ],
      [
        'webhooks[0].name: Invalid value: "hook": should be a domain with at least two segments separated by dots',
        'webhooks[1].name: Invalid value: "hook": should be a domain with at least two segments separated by dots',
        'webhooks[1].name: Duplicate value: "hook"',
      ],
    ],
    [
      "rules",
      [
        {
          ...EXAMPLE,
          rules: [
            { operations: ["*", "Prune"], apiGroups: ["*", "apps"], apiVersions: [""], kinds: [] },
            { operations: [], apiGroups: [], apiVersions: ["*", "v1"], kinds: ["*", "A", ""] },
          ],
        },
      ],
      [
        'webhooks[0].rules[0].operations: Invalid value: []string{"*", "Prune"}: if \'*\' is present, must not specify other operations',
        'webhooks[0].rules[0].operations[1]: Unsupported value: "Prune": supported values: "*", "AggregateStatus", "InterpretComponent", "InterpretDependency", "InterpretHealth", "InterpretReplica", "InterpretStatus", "Retain", "ReviseReplica"',
        'webhooks[0].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify other API groups',
        "webhooks[0].rules[0].apiVersions[0]: Required value",
        "webhooks[0].rules[0].kinds: Required value",
        "webhooks[0].rules[1].operations: Required value",
        "webhooks[0].rules[1].apiGroups: Required value",
        'webhooks[0].rules[1].apiVersions: Invalid value: []string{"*", "v1"}: if \'*\' is present, must not specify other API versions',
        'webhooks[0].rules[1].kinds: Invalid value: []string{"*", "A", ""}: if \'*\' is present, must not specify other kinds',
        "webhooks[0].rules[1].kinds[2]: Required value",
      ],
    ],
    [
      "timeout",
      [{ ...EXAMPLE, timeoutSeconds: 31 }],
      ["webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"],
    ],
    [
      "both url and service",
      [{ ...EXAMPLE, clientConfig: { url: "https://a.b", service: { namespace: "n", name: "s" } } }],
      ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"],
    ],
    [
      "url",
      [{ ...EXAMPLE, clientConfig: { url: "http://u:p@host?x=1#f" } }],
      [
        "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
        'webhooks[0].clientConfig.url: Invalid value: "u:p": user information is not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
      ],
    ],
    [
      "url that does not parse",
      [{ ...EXAMPLE, clientConfig: { url: "https://host:x" } }],
      [
        'webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://host:x": invalid port ":x" after host; desired format: https://host[/path]',
      ],
    ],
    [
      "service",
      [{ ...EXAMPLE, clientConfig: { service: { namespace: "", name: "", port: 0, path: "a//B/" } } }],
      [
        "webhooks[0].clientConfig.service.name: Required value",
        "webhooks[0].clientConfig.service.namespace: Required value",
        "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
        "webhooks[0].clientConfig.service.path: Invalid value: \"a//B/\": must start with a '/'",
        // The first character is dropped unchecked, as upstream does.
        'webhooks[0].clientConfig.service.path: Invalid value: "a//B/": segment[0] may not be empty',
        'webhooks[0].clientConfig.service.path: Invalid value: "a//B/": segment[1] may not be empty',
        "webhooks[0].clientConfig.service.path: Invalid value: \"a//B/\": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    [
      "context versions missing",
      [{ ...EXAMPLE, interpreterContextVersions: [] }],
      ["webhooks[0].interpreterContextVersions: Required value: must specify one of v1alpha1"],
    ],
    [
      "context versions repeated, malformed, and none accepted",
      [{ ...EXAMPLE, interpreterContextVersions: ["v2", "v2", "V3"] }],
      [
        'webhooks[0].interpreterContextVersions[1]: Invalid value: "v2": duplicate version',
        "webhooks[0].interpreterContextVersions[2]: Invalid value: \"V3\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        'webhooks[0].interpreterContextVersions: Invalid value: []string{"v2", "v2", "V3"}: must include at least one of v1alpha1',
      ],
    ],
  ];
  it.each(cases)("%s", (_name, webhooks, expected) => {
    expect(rendered(validateResourceInterpreterWebhookConfiguration(riwc(webhooks)))).toEqual(expected);
  });
});
