/**
 * Errors exactly as kubectl prints them from a real API server's Status responses: NotFound,
 * AlreadyExists, Invalid (422 with the causes), strict field validation, unknown resource
 * types, resourceVersion conflicts, unsupported patch types, bad selectors, missing namespaces.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/kubectl.ts";
import { configMap, deployment, manifest } from "../support/kubectl-output.ts";

const NS = "errs";

const pp = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "policy.karmada.io/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "x" }],
    placement: { clusterAffinity: { clusterNames: ["member1"] } },
    ...spec,
  },
});

describe.concurrent("kubectl errors", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    expect((await s.kubectl(["create", "namespace", NS])).code).toBe(0);
  });
  afterAll(async () => {
    await s.close();
  });

  const k = (...args: string[]) => s.kubectl(["-n", NS, ...args]);
  const fail = (stderr: string) => ({ code: 1, stdout: "", stderr });
  const createStdin = (objects: unknown[], ...extra: string[]) =>
    s.kubectl(["-n", NS, "create", ...extra, "-f", "-"], { stdin: manifest(...objects) });

  it("NotFound for get and delete of a missing object", async () => {
    const results = await Promise.all([
      k("get", "deployment", "x"),
      k("get", "configmap", "x"),
      k("get", "pp", "x"),
      s.kubectl(["get", "namespace", "x"]),
      k("delete", "configmap", "x"),
    ]);
    expect(results).toEqual([
      fail('Error from server (NotFound): deployments.apps "x" not found\n'),
      fail('Error from server (NotFound): configmaps "x" not found\n'),
      fail('Error from server (NotFound): propagationpolicies.policy.karmada.io "x" not found\n'),
      fail('Error from server (NotFound): namespaces "x" not found\n'),
      fail('Error from server (NotFound): configmaps "x" not found\n'),
    ]);
  });

  it("AlreadyExists when creating an existing object", async () => {
    expect(await createStdin([configMap("dup", { a: "1" })])).toMatchObject({ code: 0 });
    expect(await createStdin([configMap("dup", { a: "1" })])).toEqual(
      fail(
        'Error from server (AlreadyExists): error when creating "STDIN": configmaps "dup" already exists\n',
      ),
    );
    expect(await k("create", "configmap", "dup")).toEqual(
      fail('error: failed to create configmap: configmaps "dup" already exists\n'),
    );
    expect(await s.kubectl(["create", "namespace", "default"])).toEqual(
      fail('Error from server (AlreadyExists): namespaces "default" already exists\n'),
    );
    expect(await createStdin([pp("dup-pp")])).toMatchObject({ code: 0 });
    expect(await createStdin([pp("dup-pp")])).toEqual(
      fail(
        'Error from server (AlreadyExists): error when creating "STDIN": propagationpolicies.policy.karmada.io "dup-pp" already exists\n',
      ),
    );
  });

  describe("Invalid (422) with the fields listed", () => {
    it("a PropagationPolicy with a bad enum value", async () => {
      expect(await createStdin([pp("bad", { conflictResolution: "Nope" })])).toEqual(
        fail(
          'The PropagationPolicy "bad" is invalid: spec.conflictResolution: Unsupported value: "Nope": supported values: "Abort", "Overwrite"\n',
        ),
      );
      expect((await k("get", "pp", "bad")).code).toBe(1);
    });

    it("a Deployment whose selector does not match its template labels", async () => {
      const d = deployment("bad", { labels: { app: "other" } });
      (d.spec as { selector: unknown }).selector = { matchLabels: { app: "web" } };
      expect(await createStdin([d])).toEqual(
        fail(
          'The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`\n',
        ),
      );
    });

    it("several causes are listed one per line", async () => {
      const d = deployment("bad2", { labels: { app: "other" } });
      (d.spec as { selector: unknown; replicas: number }).selector = { matchLabels: { app: "web" } };
      (d.spec as { replicas: number }).replicas = -1;
      expect(await createStdin([d])).toEqual(
        fail(
          [
            'The Deployment "bad2" is invalid: ',
            "* spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            '* spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
            "",
          ].join("\n"),
        ),
      );
    });

    it("an invalid name from an imperative create", async () => {
      expect(await k("create", "configmap", "Bad_Name")).toEqual(
        fail(
          `error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n`,
        ),
      );
    });
  });

  describe("strict field validation", () => {
    it("an unknown field is rejected (default --validate=strict and explicit)", async () => {
      const cm = { ...configMap("strict", { a: "1" }), spec: { x: 1 } };
      const expected = fail(
        'Error from server (BadRequest): error when creating "STDIN": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"\n',
      );
      expect(await createStdin([cm])).toEqual(expected);
      expect(await createStdin([cm], "--validate=strict")).toEqual(expected);
      const d = deployment("strict");
      const template = (d.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } })
        .template;
      template.spec.containers[0]!.imagePullPolcy = "Always";
      expect(await createStdin([d], "--validate=strict")).toEqual(
        fail(
          'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolcy"\n',
        ),
      );
      const p = pp("strict");
      (p.spec as Record<string, unknown>).placment = {};
      expect(await createStdin([p], "--validate=strict")).toEqual(
        fail(
          'Error from server (BadRequest): error when creating "STDIN": PropagationPolicy in version "v1alpha1" cannot be handled as a PropagationPolicy: strict decoding error: unknown field "spec.placment"\n',
        ),
      );
    });

    it("--validate=warn creates the object and prints the server's warning", async () => {
      const cm = { ...configMap("warned", { a: "1" }), spec: { x: 1 } };
      expect(await createStdin([cm], "--validate=warn")).toEqual({
        code: 0,
        stdout: "configmap/warned created\n",
        stderr: 'Warning: unknown field "spec"\n',
      });
      expect(
        await createStdin([{ ...configMap("ignored", { a: "1" }), spec: { x: 1 } }], "--validate=false"),
      ).toEqual({
        code: 0,
        stdout: "configmap/ignored created\n",
        stderr: "",
      });
    });
  });

  it("an unknown resource type", async () => {
    expect(await k("get", "nope")).toEqual(fail('error: the server doesn\'t have a resource type "nope"\n'));
    expect(await k("get", "nope.apps")).toEqual(
      fail('error: the server doesn\'t have a resource type "nope"\n'),
    );
  });

  it("replace with a stale resourceVersion is a 409 Conflict", async () => {
    expect(await createStdin([configMap("stale", { a: "1" })])).toMatchObject({ code: 0 });
    const old = await k("get", "cm", "stale", "-o", "yaml");
    expect(await k("patch", "cm", "stale", "--type", "merge", "-p", '{"data":{"a":"2"}}')).toMatchObject({
      code: 0,
    });
    const r = await s.kubectl(["-n", NS, "replace", "-f", "-"], {
      stdin: old.stdout.replace('a: "1"', 'a: "3"'),
    });
    expect(r).toEqual(
      fail(
        'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again\n',
      ),
    );
    expect((await k("get", "cm", "stale", "-o", "jsonpath={.data.a}")).stdout).toBe("2");
  });

  it("a strategic merge patch on a custom resource is unsupported (415)", async () => {
    expect(await createStdin([pp("smp")])).toMatchObject({ code: 0 });
    expect(await k("patch", "pp", "smp", "-p", '{"spec":{"priority":1}}')).toEqual(
      fail(
        "error: application/strategic-merge-patch+json is not supported by policy.karmada.io/v1alpha1, Kind=PropagationPolicy: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n",
      ),
    );
  });

  it("an unsupported field selector is a 400 naming the field", async () => {
    expect(await k("get", "configmaps", "--field-selector", "foo=bar")).toEqual(
      fail(
        'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "foo=bar": "foo" is not a known field selector: only "metadata.name", "metadata.namespace"\n',
      ),
    );
  });

  it("creating in a namespace that does not exist", async () => {
    expect(await s.kubectl(["-n", "nowhere", "create", "configmap", "x"])).toEqual(
      fail('error: failed to create configmap: namespaces "nowhere" not found\n'),
    );
    expect(
      await s.kubectl(["-n", "nowhere", "create", "-f", "-"], {
        stdin: manifest(configMap("x", { a: "1" })),
      }),
    ).toEqual(
      fail('Error from server (NotFound): error when creating "STDIN": namespaces "nowhere" not found\n'),
    );
  });

  it("scale --current-replicas that does not match leaves the object alone", async () => {
    expect(
      (
        await s.kubectl(["-n", NS, "apply", "-f", "-"], {
          stdin: manifest(deployment("sc", { replicas: 2 })),
        })
      ).code,
    ).toBe(0);
    expect(await k("scale", "deploy", "sc", "--current-replicas=5", "--replicas=3")).toEqual(
      fail("error: Expected replicas to be 5, was 2\n"),
    );
    expect(await k("get", "deploy", "sc", "-o", "jsonpath={.spec.replicas}")).toMatchObject({ stdout: "2" });
  });
});
