import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/meta.ts";
import { applyFieldOverrider, applyFieldOverriders, type FieldOverrider } from "./field.ts";

function configMap(data: Record<string, string>): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "test1", namespace: "default" }, data };
}

// test/e2e/suites/base/overridepolicy_test.go's ConfigMap data, tabs and all.
const DEPLOY_JSON = `{
				"apiVersion": "apps/v1",
				"kind": "Deployment",
				"metadata": {
					"name": "nginx-deploy",
					"namespace": "ns"
				},
				"spec": {
					"replicas": 3,
					"selector": {
						"matchLabels": {
							"app": "nginx"
						}
					},
					"template": {
						"metadata": {
							"labels": {
								"app": "nginx"
							}
						},
						"spec": {
							"containers": [
								{
									"name": "nginx",
									"image": "nginx:1.19.0"
								}
							]
						}
					}
				}
			}`;

const NGINX_YAML = `
server:
  listen: 80
  server_name: localhost
  location /:
    root: /usr/share/nginx/html
    index: 
      - index.html
      - index.htm
  error_page:
    - code: 500
    - code: 502
    - code: 503
    - code: 504
  location /50x.html:
    root: /usr/share/nginx/html
`;

interface Case {
  name: string;
  data: Record<string, string>;
  overrider: FieldOverrider;
  want: Record<string, string>;
}

const cases: Case[] = [
  {
    name: "YAML (upstream's Test_overrideManagerImpl_ApplyFieldOverriderPolicies_YAML)",
    data: { "test.yaml": "\nkey: \n  key1: value\n" },
    overrider: {
      fieldPath: "/data/test.yaml",
      yaml: [{ subPath: "/key/key1", operator: "replace", value: "updated_value" }],
    },
    want: { "test.yaml": "key:\n  key1: updated_value\n" },
  },
  {
    name: "JSON (upstream's Test_overrideManagerImpl_ApplyJSONOverridePolicies_JSON)",
    data: { "test.json": '{"key":{"key1":"value"}}' },
    overrider: {
      fieldPath: "/data/test.json",
      json: [{ subPath: "/key/key1", operator: "replace", value: "updated_value" }],
    },
    want: { "test.json": '{"key":{"key1":"updated_value"}}' },
  },
  {
    name: "JSON (upstream's e2e): compact, original order, new values with sorted keys",
    data: { "deploy.json": DEPLOY_JSON },
    overrider: {
      fieldPath: "/data/deploy.json",
      json: [
        { subPath: "/spec/replicas", operator: "replace", value: 5 },
        {
          subPath: "/spec/template/spec/containers/-",
          operator: "add",
          value: { name: "nginx-helper", image: "nginx:1.19.1" },
        },
        { subPath: "/spec/template/spec/containers/0/image", operator: "remove" },
      ],
    },
    want: {
      "deploy.json":
        '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx-deploy","namespace":"ns"},' +
        '"spec":{"replicas":5,"selector":{"matchLabels":{"app":"nginx"}},"template":{"metadata":{"labels":{"app":"nginx"}},' +
        '"spec":{"containers":[{"name":"nginx"},{"image":"nginx:1.19.1","name":"nginx-helper"}]}}}}',
    },
  },
  {
    name: "YAML (upstream's e2e): keys sorted, sequences unindented",
    data: { "nginx.yaml": NGINX_YAML },
    overrider: {
      fieldPath: "/data/nginx.yaml",
      yaml: [
        { subPath: "/server/location ~1/root", operator: "replace", value: "/var/www/html" },
        { subPath: "/server/error_page/-", operator: "add", value: { code: 400 } },
        { subPath: "/server/location ~1/index", operator: "remove" },
      ],
    },
    want: {
      "nginx.yaml": `server:
  error_page:
  - code: 500
  - code: 502
  - code: 503
  - code: 504
  - code: 400
  listen: 80
  location /:
    root: /var/www/html
  location /50x.html:
    root: /usr/share/nginx/html
  server_name: localhost
`,
    },
  },
  {
    name: "YAML: comments and anchors are gone, numbers and quoting go-yaml's way",
    data: {
      "app.yaml": "# settings\ndefaults: &d {retries: 3}\nsvc:\n  <<: *d\n  timeout: 1.50\n  on: yes\n",
    },
    overrider: {
      fieldPath: "/data/app.yaml",
      yaml: [{ subPath: "/svc/name", operator: "add", value: "007" }],
    },
    want: {
      "app.yaml":
        'defaults:\n  retries: 3\nsvc:\n  name: "007"\n  retries: 3\n  timeout: 1.5\n  "true": true\n',
    },
  },
  {
    name: "JSON: untouched numbers and escapes keep their spelling",
    data: { "c.json": '{"ratio": 1.50, "id": 12345678901234567890, "s": "\\u00e9<"}' },
    overrider: { fieldPath: "/data/c.json", json: [{ subPath: "/new", operator: "add", value: "<&>" }] },
    want: {
      "c.json": '{"ratio":1.50,"id":12345678901234567890,"s":"\\u00e9\\u003c","new":"\\u003c\\u0026\\u003e"}',
    },
  },
  {
    name: "a key with / and ~ in the field path",
    data: { "a/b~c": '{"x":1}' },
    overrider: { fieldPath: "/data/a~1b~0c", json: [{ subPath: "/x", operator: "replace", value: 2 }] },
    want: { "a/b~c": '{"x":2}' },
  },
  {
    name: "yaml wins when both lists are set",
    data: { f: "a: 1\n" },
    overrider: {
      fieldPath: "/data/f",
      yaml: [{ subPath: "/a", operator: "replace", value: 2 }],
      json: [{ subPath: "/a", operator: "replace", value: 3 }],
    },
    want: { f: "a: 2\n" },
  },
  {
    name: "neither list empties the field",
    data: { f: "a: 1\n", g: "kept" },
    overrider: { fieldPath: "/data/f" },
    want: { f: "", g: "kept" },
  },
  {
    name: "an empty JSON text stays empty",
    data: { f: "" },
    overrider: { fieldPath: "/data/f", json: [{ subPath: "/a", operator: "add", value: 1 }] },
    want: { f: "" },
  },
];

describe("applyFieldOverrider", () => {
  it.each(cases)("$name", ({ data, overrider, want }) => {
    const input = configMap(data);
    expect(applyFieldOverrider(input, overrider).data).toEqual(want);
    expect(input).toEqual(configMap(data));
  });

  it("reaches strings inside lists", () => {
    const object: KubeObject = { apiVersion: "v1", kind: "X", spec: { files: [{ body: '{"a":1}' }] } };
    const out = applyFieldOverrider(object, {
      fieldPath: "/spec/files/0/body",
      json: [{ subPath: "/a", operator: "remove" }],
    });
    expect(out.spec).toEqual({ files: [{ body: "{}" }] });
  });

  it.each<{ name: string; object?: KubeObject; overrider: FieldOverrider; error: string }>([
    {
      name: "a field that is not a string",
      overrider: { fieldPath: "/metadata", json: [] },
      error: "Get object's value by overrider's path(/metadata) is not string",
    },
    {
      name: "the whole object",
      overrider: { fieldPath: "", json: [] },
      error: "Get object's value by overrider's path() is not string",
    },
    {
      name: "a missing key",
      overrider: { fieldPath: "/data/missing", json: [] },
      error: 'object has no key "missing": JSON pointer error',
    },
    {
      name: "a relative pointer",
      overrider: { fieldPath: "data/f", json: [] },
      error: 'JSON pointer must be empty or start with a "/"\nJSON pointer error',
    },
    {
      name: "an index out of bounds",
      object: { apiVersion: "v1", kind: "X", spec: { files: ["a"] } },
      overrider: { fieldPath: "/spec/files/3", json: [] },
      error: "index out of bounds array[0,0] index '3': JSON pointer error",
    },
    {
      name: "a token into a string",
      overrider: { fieldPath: "/data/f/x", json: [] },
      error: 'invalid token reference "x": JSON pointer error',
    },
    {
      name: "text that is not JSON",
      overrider: { fieldPath: "/data/f", json: [{ subPath: "/a", operator: "remove" }] },
      error: "invalid state detected",
    },
    {
      name: "text that is not YAML",
      object: configMap({ f: "a: [1\n" }),
      overrider: { fieldPath: "/data/f", yaml: [{ subPath: "/a", operator: "remove" }] },
      error: "yaml: line",
    },
    {
      name: "a patch that does not apply",
      overrider: { fieldPath: "/data/f", yaml: [{ subPath: "/missing", operator: "replace", value: 1 }] },
      error: "replace operation does not apply: doc is missing key: /missing: missing value",
    },
  ])("fails on $name", ({ object, overrider, error }) => {
    expect(() => applyFieldOverrider(object ?? configMap({ f: "a: 1\n" }), overrider)).toThrow(error);
  });
});

describe("applyFieldOverriders", () => {
  it("applies overriders in order", () => {
    const out = applyFieldOverriders(configMap({ f: '{"n":1}' }), [
      { fieldPath: "/data/f", json: [{ subPath: "/n", operator: "replace", value: 2 }] },
      { fieldPath: "/data/f", json: [{ subPath: "/m", operator: "add", value: 3 }] },
    ]);
    expect(out.data).toEqual({ f: '{"n":2,"m":3}' });
  });
});
