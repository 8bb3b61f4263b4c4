/**
 * CustomResourceDefinitions at run time: apply a CRD and use it at once, printer columns
 * (incl. priority > 0 for -o wide), `explain` from the CRD schema, status and scale
 * subresources, schema validation, and deleting a CRD removing its objects.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedPath, startTestServer, type TestServer } from "../support/kubectl.ts";
import { age, manifest, table } from "../support/kubectl-output.ts";

const GUESTBOOK = "conformance/karmada/samples/guestbook";

const widgetCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.e2e.example.com" },
  spec: {
    group: "e2e.example.com",
    scope: "Namespaced",
    names: {
      plural: "widgets",
      singular: "widget",
      kind: "Widget",
      listKind: "WidgetList",
      shortNames: ["wd"],
    },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        additionalPrinterColumns: [
          { name: "Size", type: "integer", jsonPath: ".spec.size" },
          { name: "Phase", type: "string", jsonPath: ".status.phase" },
          { name: "Color", type: "string", jsonPath: ".spec.color", priority: 1 },
          { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
        ],
        subresources: {
          status: {},
          scale: {
            specReplicasPath: ".spec.size",
            statusReplicasPath: ".status.replicas",
            labelSelectorPath: ".status.selector",
          },
        },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                description: "WidgetSpec is what the widget should be.",
                required: ["size"],
                properties: {
                  size: { type: "integer", minimum: 0, maximum: 10, description: "How many." },
                  color: { type: "string", enum: ["red", "blue"], default: "blue" },
                },
              },
              status: {
                type: "object",
                properties: {
                  phase: { type: "string" },
                  replicas: { type: "integer" },
                  selector: { type: "string" },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const widget = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: "e2e.example.com/v1",
  kind: "Widget",
  metadata: { name },
  spec,
});

describe("kubectl with CRDs at run time", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
  });

  describe("the guestbook sample CRD", () => {
    it("apply the CRD, then at once a custom resource", async () => {
      expect(await s.kubectl(["apply", "-f", sharedPath(join(GUESTBOOK, "guestbooks-crd.yaml"))])).toEqual({
        code: 0,
        stdout: "customresourcedefinition.apiextensions.k8s.io/guestbooks.webapp.my.domain created\n",
        stderr: "",
      });
      expect(await s.kubectl(["apply", "-f", sharedPath(join(GUESTBOOK, "guestbook.yaml"))])).toEqual({
        code: 0,
        stdout: "guestbook.webapp.my.domain/guestbook-sample created\n",
        stderr: "",
      });
      const r = await s.kubectl(["get", "guestbooks"]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({ header: ["NAME", "AGE"], rows: [["guestbook-sample", age()]] });
      expect(
        (await s.kubectl(["get", "guestbook", "guestbook-sample", "-o", "jsonpath={.spec}"])).stdout,
      ).toBe('{"alias":"Name","configMapName":"test","size":2}');
    });

    it("the CRD has Established and NamesAccepted conditions and accepted names", async () => {
      const r = await s.kubectl([
        "get",
        "crd",
        "guestbooks.webapp.my.domain",
        "-o",
        'jsonpath={range .status.conditions[*]}{.type}={.status}{"\\n"}{end}{.status.acceptedNames.kind}',
      ]);
      expect(r.stdout.split("\n").sort()).toEqual(["Established=True", "Guestbook", "NamesAccepted=True"]);
    });

    it("explain guestbook.spec", async () => {
      const r = await s.kubectl(["explain", "guestbook.spec"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /^GROUP:\s+webapp\.my\.domain\nKIND:\s+Guestbook\nVERSION:\s+v1\n\nFIELD: spec <Object>\n/,
      );
      expect(r.stdout).toContain("DESCRIPTION:\n    GuestbookSpec defines the desired state of Guestbook\n");
      expect(r.stdout).toMatch(/^ {2}alias\t<string>\n {2}enum: Phone, Address, Name$/m);
      expect(r.stdout).toMatch(
        /^ {2}configMapName\t<string> -required-\n {4}Name of the ConfigMap for GuestbookSpec's configuration$/m,
      );
      expect(r.stdout).toMatch(/^ {2}size\t<integer> -required-\n {4}Quantity of instances$/m);
    });

    it("schema validation of the CR (422 listing the fields)", async () => {
      const bad = {
        apiVersion: "webapp.my.domain/v1",
        kind: "Guestbook",
        metadata: { name: "bad" },
        spec: { size: 11, configMapName: "test", alias: "Nope" },
      };
      const r = await s.kubectl(["create", "-f", "-"], { stdin: manifest(bad) });
      expect(r).toMatchObject({ code: 1, stdout: "" });
      const [head, ...causes] = r.stderr.split("\n");
      expect(head).toBe('The Guestbook "bad" is invalid: ');
      // The schema validator's order is not specified; compare as a set.
      expect(causes.sort()).toEqual([
        "",
        '* spec.alias: Unsupported value: "Nope": supported values: "Phone", "Address", "Name"',
        "* spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10",
      ]);
    });

    it("deleting the CRD removes its objects", async () => {
      expect(await s.kubectl(["delete", "crd", "guestbooks.webapp.my.domain"])).toEqual({
        code: 0,
        stdout: 'customresourcedefinition.apiextensions.k8s.io "guestbooks.webapp.my.domain" deleted\n',
        stderr: "",
      });
      // A fresh discovery cache: the type is gone.
      expect(
        await s.kubectl(["get", "guestbooks", `--cache-dir=${join(s.dir, "cache-after-delete")}`]),
      ).toEqual({
        code: 1,
        stdout: "",
        stderr: 'error: the server doesn\'t have a resource type "guestbooks"\n',
      });
      // Recreated, the type is back, empty.
      expect(
        (await s.kubectl(["apply", "-f", sharedPath(join(GUESTBOOK, "guestbooks-crd.yaml"))])).code,
      ).toBe(0);
      expect(await s.kubectl(["get", "guestbooks"])).toEqual({
        code: 0,
        stdout: "",
        stderr: "No resources found in default namespace.\n",
      });
    });
  });

  describe("a CRD with printer columns and subresources", () => {
    beforeAll(async () => {
      expect((await s.kubectl(["apply", "-f", "-"], { stdin: manifest(widgetCrd) })).code).toBe(0);
      expect(
        (
          await s.kubectl(["apply", "-f", "-"], {
            stdin: manifest(widget("w1", { size: 2, color: "red" }), widget("w2", { size: 1 })),
          })
        ).stdout,
      ).toBe("widget.e2e.example.com/w1 created\nwidget.e2e.example.com/w2 created\n");
    });

    it("get shows the CRD's printer columns; priority 1 only with -o wide", async () => {
      const [r, w] = await Promise.all([
        s.kubectl(["get", "widgets"]),
        s.kubectl(["get", "wd", "-o", "wide"]),
      ]);
      expect(r.code).toBe(0);
      expect(table(r.stdout)).toEqual({
        header: ["NAME", "SIZE", "PHASE", "AGE"],
        rows: [
          ["w1", "2", "", age()],
          ["w2", "1", "", age()],
        ],
      });
      expect(table(w.stdout)).toEqual({
        header: ["NAME", "SIZE", "PHASE", "COLOR", "AGE"],
        rows: [
          ["w1", "2", "", "red", age()],
          ["w2", "1", "", "blue", age()],
        ],
      });
    });

    it("status goes through the status subresource only", async () => {
      expect(
        await s.kubectl([
          "patch",
          "widget",
          "w1",
          "--subresource=status",
          "--type=merge",
          "-p",
          '{"status":{"phase":"Ready"}}',
        ]),
      ).toEqual({ code: 0, stdout: "widget.e2e.example.com/w1 patched\n", stderr: "" });
      // A status change through the main resource is ignored.
      expect(
        await s.kubectl(["patch", "widget", "w2", "--type=merge", "-p", '{"status":{"phase":"Ready"}}']),
      ).toEqual({
        code: 0,
        stdout: "widget.e2e.example.com/w2 patched (no change)\n",
        stderr: "",
      });
      const r = await s.kubectl(["get", "widgets"]);
      expect(table(r.stdout).rows).toEqual([
        ["w1", "2", "Ready", age()],
        ["w2", "1", "", age()],
      ]);
      expect((await s.kubectl(["get", "widget", "w1", "-o", "jsonpath={.metadata.generation}"])).stdout).toBe(
        "1",
      );
    });

    it("scale through the scale subresource", async () => {
      expect(await s.kubectl(["scale", "widget", "w1", "--replicas=5"])).toEqual({
        code: 0,
        stdout: "widget.e2e.example.com/w1 scaled\n",
        stderr: "",
      });
      expect(
        (await s.kubectl(["get", "widget", "w1", "-o", "jsonpath={.spec.size} {.metadata.generation}"]))
          .stdout,
      ).toBe("5 2");
    });

    it("explain uses the CRD's schema", async () => {
      const r = await s.kubectl(["explain", "widgets.spec.size"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^FIELD: size <integer>$/m);
      expect(r.stdout).toContain("DESCRIPTION:\n    How many.\n");
    });
  });
});
