/**
 * Watches and waits: `get -w` on a collection and on a single name, `--output-watch-events`,
 * and `kubectl wait` for a JSONPath value, for deletion and for a CRD condition.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestServer, type TestServer, watchStarted } from "../support/kubectl.ts";
import { AGE, cells, configMap, deployment, lines, manifest } from "../support/kubectl-output.ts";

const NS = "wt";

describe.concurrent("kubectl get -w and wait", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    expect((await s.kubectl(["create", "namespace", NS])).code).toBe(0);
  });
  afterAll(async () => {
    await s.close();
  });

  const k = (...args: string[]) => s.kubectl(["-n", NS, ...args]);
  const isWatchOf = (path: string, name?: string) => (r: { path: string; query: URLSearchParams }) =>
    r.path === path && (name === undefined || r.query.get("fieldSelector") === `metadata.name=${name}`);
  const until = (what: string, check: () => boolean) => eventually(async () => check(), what, 200);

  describe("get -w", () => {
    it("a collection: changes made while watching show up as rows", async () => {
      const l = (...args: string[]) => s.kubectl(["-n", "wt-list", ...args]);
      expect((await s.kubectl(["create", "namespace", "wt-list"])).code).toBe(0);
      expect((await l("create", "configmap", "w0", "--from-literal=a=1")).code).toBe(0);
      const w = s.kubectlStart(["-n", "wt-list", "get", "configmaps", "-w"]);
      const watchReq = await watchStarted(s, isWatchOf("/api/v1/namespaces/wt-list/configmaps"), "watch");
      await until("the listed object", () => lines(w.stdout()).length === 2);
      expect((await l("create", "configmap", "w1", "--from-literal=a=1")).code).toBe(0);
      await until("w1 added", () => lines(w.stdout()).length === 3);
      expect((await l("patch", "cm", "w1", "--type", "merge", "-p", '{"data":{"b":"2"}}')).code).toBe(0);
      await until("w1 modified", () => lines(w.stdout()).length === 4);
      expect((await l("delete", "cm", "w1")).code).toBe(0);
      await until("w1 deleted", () => lines(w.stdout()).length === 5);
      const out = await w.stop();
      expect(out.stderr).toBe("");
      const ls = lines(out.stdout);
      expect(cells(ls[0]!)).toEqual(["NAME", "DATA", "AGE"]);
      expect(ls.slice(1).map(cells)).toEqual([
        ["w0", "1", expect.stringMatching(AGE)],
        ["w1", "1", expect.stringMatching(AGE)],
        ["w1", "2", expect.stringMatching(AGE)],
        ["w1", "2", expect.stringMatching(AGE)],
      ]);
      // The watch started where the list ended, with kubectl's table Accept header.
      expect(watchReq.query.get("resourceVersion")).toMatch(/^[1-9]\d*$/);
      expect(watchReq.accept).toContain("as=Table");
    });

    it("--output-watch-events prints the event type column", async () => {
      expect((await k("create", "namespace", "wt-events")).code).toBe(0);
      expect(
        (await s.kubectl(["-n", "wt-events", "create", "configmap", "e1", "--from-literal=a=1"])).code,
      ).toBe(0);
      const w = s.kubectlStart(["-n", "wt-events", "get", "cm", "-w", "--output-watch-events"]);
      await watchStarted(s, isWatchOf("/api/v1/namespaces/wt-events/configmaps"), "watch");
      await until("initial ADDED", () => lines(w.stdout()).length === 2);
      expect((await s.kubectl(["-n", "wt-events", "create", "configmap", "e2"])).code).toBe(0);
      await until("e2 added", () => lines(w.stdout()).length === 3);
      expect((await s.kubectl(["-n", "wt-events", "label", "cm", "e1", "x=y"])).code).toBe(0);
      await until("e1 modified", () => lines(w.stdout()).length === 4);
      expect((await s.kubectl(["-n", "wt-events", "delete", "cm", "e2"])).code).toBe(0);
      await until("e2 deleted", () => lines(w.stdout()).length === 5);
      const ls = lines((await w.stop()).stdout);
      expect(cells(ls[0]!)).toEqual(["EVENT", "NAME", "DATA", "AGE"]);
      expect(ls.slice(1).map((l) => cells(l).slice(0, 3))).toEqual([
        ["ADDED", "e1", "1"],
        ["ADDED", "e2", "0"],
        ["MODIFIED", "e1", "1"],
        ["DELETED", "e2", "0"],
      ]);
    });

    it("a single name: the current object, then its changes (the synthetic ADDED is not printed twice)", async () => {
      expect((await k("create", "configmap", "single", "--from-literal=a=1")).code).toBe(0);
      const w = s.kubectlStart(["-n", NS, "get", "cm", "single", "-w", "-o", 'jsonpath={.data}{"\\n"}']);
      const req = await watchStarted(
        s,
        isWatchOf(`/api/v1/namespaces/${NS}/configmaps`, "single"),
        "watch of one name",
      );
      expect(req.query.get("resourceVersion")).toBe("0");
      await until("the current object", () => lines(w.stdout()).length === 1);
      expect((await k("patch", "cm", "single", "--type", "merge", "-p", '{"data":{"a":"2"}}')).code).toBe(0);
      await until("the change", () => lines(w.stdout()).length >= 2);
      expect((await k("patch", "cm", "single", "--type", "merge", "-p", '{"data":{"a":"3"}}')).code).toBe(0);
      await until("the second change", () => lines(w.stdout()).length >= 3);
      const out = await w.stop();
      expect(lines(out.stdout)).toEqual(['{"a":"1"}', '{"a":"2"}', '{"a":"3"}']);
    });

    it("a single name with a table: the row is printed again on change", async () => {
      expect((await k("create", "configmap", "single-t", "--from-literal=a=1")).code).toBe(0);
      const w = s.kubectlStart(["-n", NS, "get", "cm", "single-t", "-w"]);
      await watchStarted(
        s,
        isWatchOf(`/api/v1/namespaces/${NS}/configmaps`, "single-t"),
        "watch of one name",
      );
      await until("the current object", () => lines(w.stdout()).length === 2);
      expect((await k("label", "cm", "single-t", "x=1")).code).toBe(0);
      await until("the change", () => lines(w.stdout()).length === 3);
      const ls = lines((await w.stop()).stdout);
      expect(ls.map(cells).map((c) => c.slice(0, 2))).toEqual([
        ["NAME", "DATA"],
        ["single-t", "1"],
        ["single-t", "1"],
      ]);
    });
  });

  describe("wait", () => {
    it("--for=jsonpath waits for a value", async () => {
      expect(
        (
          await s.kubectl(["-n", NS, "apply", "-f", "-"], {
            stdin: manifest(deployment("wj", { replicas: 1 })),
          })
        ).code,
      ).toBe(0);
      const w = s.kubectlStart([
        "-n",
        NS,
        "wait",
        "--for=jsonpath={.spec.replicas}=3",
        "deploy/wj",
        "--timeout=30s",
      ]);
      await watchStarted(s, isWatchOf(`/apis/apps/v1/namespaces/${NS}/deployments`, "wj"), "wait's watch");
      expect((await k("scale", "deploy", "wj", "--replicas=3")).code).toBe(0);
      expect(await w.exited).toEqual({ code: 0, stdout: "deployment.apps/wj condition met\n", stderr: "" });
      // Already true: returns at once.
      expect(await k("wait", "--for=jsonpath={.spec.replicas}=3", "deployment/wj", "--timeout=10s")).toEqual({
        code: 0,
        stdout: "deployment.apps/wj condition met\n",
        stderr: "",
      });
    });

    it("--for=jsonpath times out with kubectl's message when the value never comes", async () => {
      const d = manifest(deployment("wt-timeout", { replicas: 1 }));
      expect((await s.kubectl(["-n", NS, "apply", "-f", "-"], { stdin: d })).code).toBe(0);
      const r = await k("wait", "--for=jsonpath={.spec.replicas}=9", "deployment/wt-timeout", "--timeout=1s");
      expect(r).toEqual({
        code: 1,
        stdout: "",
        stderr: "error: timed out waiting for the condition on deployments/wt-timeout\n",
      });
    });

    it("--for=delete returns once the object is gone", async () => {
      const held = configMap("wd", { a: "1" }, { metadata: { finalizers: ["e2e.example.com/hold"] } });
      expect((await s.kubectl(["-n", NS, "apply", "-f", "-"], { stdin: manifest(held) })).code).toBe(0);
      expect(await k("delete", "cm", "wd", "--wait=false")).toEqual({
        code: 0,
        stdout: 'configmap "wd" deleted\n',
        stderr: "",
      });
      expect((await k("get", "cm", "wd", "-o", "jsonpath={.metadata.deletionTimestamp}")).stdout).not.toBe(
        "",
      );
      const w = s.kubectlStart(["-n", NS, "wait", "--for=delete", "cm/wd", "--timeout=30s"]);
      await watchStarted(s, isWatchOf(`/api/v1/namespaces/${NS}/configmaps`, "wd"), "wait's watch");
      expect(
        (
          await k(
            "patch",
            "cm",
            "wd",
            "--type",
            "json",
            "-p",
            '[{"op":"remove","path":"/metadata/finalizers"}]',
          )
        ).code,
      ).toBe(0);
      expect(await w.exited).toEqual({ code: 0, stdout: "configmap/wd condition met\n", stderr: "" });
    });

    it("--for=condition=Established on a CRD", async () => {
      const crd = {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "waiters.e2e.example.com" },
        spec: {
          group: "e2e.example.com",
          scope: "Namespaced",
          names: { plural: "waiters", singular: "waiter", kind: "Waiter", listKind: "WaiterList" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          ],
        },
      };
      expect(await s.kubectl(["apply", "-f", "-"], { stdin: manifest(crd) })).toEqual({
        code: 0,
        stdout: "customresourcedefinition.apiextensions.k8s.io/waiters.e2e.example.com created\n",
        stderr: "",
      });
      expect(
        await s.kubectl([
          "wait",
          "--for=condition=Established",
          "crd/waiters.e2e.example.com",
          "--timeout=30s",
        ]),
      ).toEqual({
        code: 0,
        stdout: "customresourcedefinition.apiextensions.k8s.io/waiters.e2e.example.com condition met\n",
        stderr: "",
      });
      expect(
        await s.kubectl([
          "wait",
          "--for=condition=NamesAccepted=True",
          "crd/waiters.e2e.example.com",
          "--timeout=30s",
        ]),
      ).toMatchObject({ code: 0 });
    });
  });
});
