import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../meta.ts";
import { object, rendered, testContext } from "./admission.fixtures.ts";
import {
  mutateMultiClusterService,
  validateMultiClusterIngress,
  validateMultiClusterService,
} from "./networking.ts";

function mci(spec: Record<string, unknown>, status?: Record<string, unknown>): StoredObject {
  return object(
    "networking.karmada.io/v1alpha1",
    "MultiClusterIngress",
    { name: "demo", namespace: "default", uid: "uid-demo" },
    { spec, ...(status ? { status } : {}) },
  );
}

function mcs(spec: Record<string, unknown>, name = "foo", status?: Record<string, unknown>): StoredObject {
  return object(
    "networking.karmada.io/v1alpha1",
    "MultiClusterService",
    { name, namespace: "default", uid: `uid-${name}` },
    { spec, ...(status ? { status } : {}) },
  );
}

const SERVICE_BACKEND = { service: { name: "serve", port: { number: 80 } } };
const LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe("MultiClusterIngress", () => {
  it("accepts upstream's demo ingress", () => {
    const ingress = mci({
      ingressClassName: "nginx",
      rules: [
        {
          host: "demo.localdev.me",
          http: { paths: [{ path: "/web", pathType: "Prefix", backend: SERVICE_BACKEND }] },
        },
      ],
      tls: [{ hosts: ["*.localdev.me"], secretName: "tls-secret" }],
    });
    expect(validateMultiClusterIngress(ingress)).toEqual([]);
    expect(validateMultiClusterIngress(ingress, ingress)).toEqual([]);
  });

  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    [
      "neither rules nor a default backend",
      {},
      ["spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"],
    ],
    [
      "default backend problems",
      { defaultBackend: { resource: { kind: "", name: "x/y", apiGroup: "Bad" } } },
      [
        "spec.defaultBackend.resource.apiGroup: Invalid value: \"Bad\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.defaultBackend.resource.kind: Required value: kind is required",
        "spec.defaultBackend.resource.name: Invalid value: \"x/y\": may not contain '/'",
      ],
    ],
    [
      "both port name and number, and no port",
      {
        rules: [
          {
            http: {
              paths: [
                {
                  path: "/",
                  pathType: "Exact",
                  backend: { service: { name: "s", port: { name: "http", number: 80 } } },
                },
                { path: "/", pathType: "Exact", backend: { service: { name: "s" } } },
              ],
            },
          },
        ],
      },
      [
        'spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number',
        "spec.rules[0].http.paths[1].backend: Required value: port name or number is required",
      ],
    ],
    [
      "hosts and paths",
      {
        rules: [
          {
            host: "1.2.3.4",
            http: { paths: [{ path: "a//b", pathType: "Prefix", backend: SERVICE_BACKEND }] },
          },
          {
            http: {
              paths: [
                { path: "/", backend: SERVICE_BACKEND },
                { path: "/", pathType: "Regex", backend: SERVICE_BACKEND },
              ],
            },
          },
        ],
      },
      [
        'spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
        'spec.rules[0].http.paths[0].path: Invalid value: "a//b": must be an absolute path',
        "spec.rules[0].http.paths[0].path: Invalid value: \"a//b\": must not contain '//'",
        "spec.rules[1].http.paths[0].pathType: Required value: pathType must be specified",
        'spec.rules[1].http.paths[1].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
      ],
    ],
    [
      "TLS secret name and class name",
      { defaultBackend: SERVICE_BACKEND, tls: [{ secretName: "Bad_Secret" }], ingressClassName: "Nginx" },
      [
        "spec.tls[0].secretName: Invalid value: \"Bad_Secret\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.ingressClassName: Invalid value: \"Nginx\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
  ];
  it.each(cases)("%s", (_name, spec, expected) => {
    expect(rendered(validateMultiClusterIngress(mci(spec)))).toEqual(expected);
  });

  it("checks the load-balancer status on update only", () => {
    const ingress = mci(
      { defaultBackend: SERVICE_BACKEND },
      { loadBalancer: { ingress: [{ ip: "300.1.1.1", hostname: "10.0.0.1" }] } },
    );
    expect(validateMultiClusterIngress(ingress)).toEqual([]);
    expect(rendered(validateMultiClusterIngress(ingress, ingress))).toEqual([
      'status.loadBalancer.ingress[0].ip: Invalid value: "300.1.1.1": must be a valid IP address',
      'status.loadBalancer.ingress[0].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
    ]);
  });
});

describe("MultiClusterService", () => {
  const VALID = {
    types: ["CrossCluster"],
    ports: [{ name: "http", port: 80 }],
    providerClusters: [{ name: "member1" }],
    consumerClusters: [{ name: "member2" }],
  };

  it("stamps a permanent id once and accepts upstream's example", () => {
    const s = mcs(VALID);
    mutateMultiClusterService(s, undefined, testContext());
    expect(s.metadata.labels).toEqual({ "multiclusterservice.karmada.io/permanent-id": "uid-1" });
    const again = structuredClone(s);
    mutateMultiClusterService(again, s, testContext());
    expect(again).toEqual(s);
    expect(validateMultiClusterService(s)).toEqual([]);
    expect(validateMultiClusterService(s, s)).toEqual([]);
  });

  const cases: Array<[string, StoredObject, StoredObject | undefined, string[]]> = [
    [
      "name not a DNS-1035 label",
      mcs(VALID, "1foo"),
      undefined,
      [
        "metadata.name: Invalid value: \"1foo\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    [
      "ports",
      mcs({
        types: ["CrossCluster"],
        ports: [
          { name: "Http", port: 0 },
          { name: "a", port: 80 },
          { name: "a", port: 70000 },
        ],
      }),
      undefined,
      [
        `spec.ports[0].name: Invalid value: "Http": ${LABEL_ERR}`,
        "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
        'spec.ports[2].name: Duplicate value: "a"',
        "spec.ports[2].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
      ],
    ],
    [
      "types",
      mcs({ types: ["CrossCluster", "NodePort"] }),
      undefined,
      [
        'spec.types[1]: Invalid value: "NodePort": ExposureType Error',
        'spec.types: Invalid value: []string{"CrossCluster", "NodePort"}: MultiClusterService types should not contain more than one type',
      ],
    ],
    [
      "cluster names",
      mcs({
        types: ["CrossCluster"],
        providerClusters: [{ name: "" }],
        consumerClusters: [{ name: "a".repeat(49) }],
      }),
      undefined,
      [
        'spec.range.providerClusters[0]: Invalid value: "": must be not empty',
        `spec.range.consumerClusters[0]: Invalid value: "${"a".repeat(49)}": must be no more than 48 characters`,
      ],
    ],
    [
      "types changed on update, and the load-balancer status",
      mcs({ types: ["LoadBalancer"] }, "foo", { loadBalancer: { ingress: [{ hostname: "Bad_Host" }] } }),
      mcs({ types: ["CrossCluster"] }),
      [
        'spec.types: Invalid value: []string{"CrossCluster"}: MultiClusterService types are immutable',
        "status.loadBalancer.ingress[0].hostname: Invalid value: \"Bad_Host\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
  ];
  it.each(cases)("%s", (_name, s, old, expected) => {
    expect(rendered(validateMultiClusterService(s, old))).toEqual(expected);
  });
});
