import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import { caCertificates, timeoutSecondsOf, webhookUrl } from "./call.ts";
import {
  applyResponsePatch,
  contextVersionFor,
  InvalidResponseError,
  interpreterContextRequest,
  UnsuccessfulResponseError,
  verifyInterpreterResponse,
} from "./context.ts";

const UID = "5c1b7a4e-0000-4000-8000-000000000001";

const workload: KubeObject = {
  apiVersion: "workload.example.io/v1alpha1",
  kind: "Workload",
  metadata: { name: "sample", namespace: "default" },
  spec: { replicas: 3, paused: false },
};

const ok = (response: Record<string, unknown>) => ({ response: { uid: UID, successful: true, ...response } });
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

describe("interpreterContextRequest", () => {
  it("carries the uid, GVK, name, namespace, operation, object and replicas", () => {
    expect(
      interpreterContextRequest(UID, { operation: "ReviseReplica", object: workload, replicas: 5 }),
    ).toEqual({
      apiVersion: "config.karmada.io/v1alpha1",
      kind: "ResourceInterpreterContext",
      request: {
        uid: UID,
        kind: { group: "workload.example.io", version: "v1alpha1", kind: "Workload" },
        name: "sample",
        namespace: "default",
        operation: "ReviseReplica",
        object: workload,
        replicas: 5,
      },
    });
  });

  it("sends observedObject for Retain, aggregatedStatus when there are items, no empty namespace", () => {
    const clusterScoped: KubeObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns" } };
    const retain = interpreterContextRequest(UID, {
      operation: "Retain",
      object: clusterScoped,
      observedObject: clusterScoped,
    }).request as Record<string, unknown>;
    expect(retain.namespace).toBeUndefined();
    expect(retain.kind).toEqual({ group: "", version: "v1", kind: "Namespace" });
    expect(retain.observedObject).toEqual(clusterScoped);
    expect(retain.aggregatedStatus).toBeUndefined();
    // As upstream: replicas is always sent, 0 outside ReviseReplica.
    expect(retain.replicas).toBe(0);

    const items = [{ clusterName: "member1", applied: true, status: { readyReplicas: 1 } }];
    const agg = interpreterContextRequest(UID, {
      operation: "AggregateStatus",
      object: workload,
      aggregatedStatus: items,
    }).request as Record<string, unknown>;
    expect(agg.aggregatedStatus).toEqual(items);
    const none = interpreterContextRequest(UID, {
      operation: "AggregateStatus",
      object: workload,
      aggregatedStatus: [],
    }).request as Record<string, unknown>;
    expect(none.aggregatedStatus).toBeUndefined();
  });
});

describe("contextVersionFor", () => {
  it("takes the first version we speak", () => {
    expect(contextVersionFor(["v2", "v1alpha1"])).toBe("v1alpha1");
  });
  it.each([[[]], [["v1beta1"]]])("refuses %j", (versions) => {
    expect(() => contextVersionFor(versions)).toThrow(
      /interpreterContextVersions .* include none .*v1alpha1/,
    );
  });
});

describe("verifyInterpreterResponse", () => {
  const invalid: Array<[string, unknown, Parameters<typeof verifyInterpreterResponse>[2], RegExp]> = [
    ["not an object", [], "InterpretReplica", /not a JSON object/],
    ["no response", { kind: "ResourceInterpreterContext" }, "InterpretReplica", /no response/],
    [
      "other uid",
      { response: { uid: "other", successful: true, replicas: 1 } },
      "InterpretReplica",
      /"other".*uid was/,
    ],
    ["no uid", { response: { successful: true, replicas: 1 } }, "InterpretReplica", /response.uid is ""/],
    [
      "unsuccessful without status",
      { response: { uid: UID, successful: false } },
      "InterpretReplica",
      /status is missing/,
    ],
    ["no replicas", ok({}), "InterpretReplica", /replicas is missing/],
    ["fractional replicas", ok({ replicas: 1.5 }), "InterpretReplica", /not an integer/],
    ["no rawStatus", ok({}), "InterpretStatus", /rawStatus is missing/],
    ["rawStatus a string", ok({ rawStatus: "up" }), "InterpretStatus", /not an object/],
    ["no healthy", ok({}), "InterpretHealth", /healthy is missing/],
    ["healthy a string", ok({ healthy: "true" }), "InterpretHealth", /not a boolean/],
    ["patch without type", ok({ patch: b64([]) }), "Retain", /patchType is missing/],
    ["type without patch", ok({ patchType: "JSONPatch" }), "Retain", /patch is empty/],
    ["merge patch type", ok({ patch: b64({}), patchType: "MergePatch" }), "Retain", /only "JSONPatch"/],
    ["raw JSON patch", ok({ patch: [], patchType: "JSONPatch" }), "Retain", /base64/],
    [
      "patch not a list",
      ok({ patch: b64({ op: "add" }), patchType: "JSONPatch" }),
      "Retain",
      /array of operations/,
    ],
    [
      "dependency without kind or name",
      ok({ dependencies: [{ apiVersion: "v1" }] }),
      "InterpretDependency",
      /dependencies\[0\].kind: missing required kind; .*name and labelSelector all empty/,
    ],
    [
      "dependency with a bad selector",
      ok({
        dependencies: [{ apiVersion: "v1", kind: "Secret", labelSelector: { matchLabels: { "a b": "c" } } }],
      }),
      "InterpretDependency",
      /labelSelector.matchLabels/,
    ],
  ];
  it.each(invalid)("refuses %s", (_name, answer, operation, message) => {
    const call = () => verifyInterpreterResponse(answer, UID, operation);
    expect(call).toThrow(InvalidResponseError);
    expect(call).toThrow(message);
  });

  it("reports successful: false with its status", () => {
    const answer = {
      response: { uid: UID, successful: false, status: { code: 400, message: "bad workload" } },
    };
    let err: unknown;
    try {
      verifyInterpreterResponse(answer, UID, "InterpretHealth");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UnsuccessfulResponseError);
    expect(err).toMatchObject({ code: 400, message: "bad workload" });
  });

  it("reads what each operation needs", () => {
    expect(verifyInterpreterResponse(ok({ replicas: 2 }), UID, "InterpretReplica")).toEqual({ replicas: 2 });
    expect(
      verifyInterpreterResponse(
        ok({ replicas: 0, replicaRequirements: { resourceRequest: { cpu: "100m" } } }),
        UID,
        "InterpretReplica",
      ),
    ).toEqual({ replicas: 0, replicaRequirements: { resourceRequest: { cpu: "100m" } } });
    expect(verifyInterpreterResponse(ok({ rawStatus: {} }), UID, "InterpretStatus")).toEqual({
      rawStatus: {},
    });
    expect(verifyInterpreterResponse(ok({ healthy: false }), UID, "InterpretHealth")).toEqual({
      healthy: false,
    });
    expect(verifyInterpreterResponse(ok({}), UID, "InterpretDependency")).toEqual({ dependencies: [] });
    expect(
      verifyInterpreterResponse(
        ok({ dependencies: [{ apiVersion: "v1", kind: "ClusterRole", name: "r" }] }),
        UID,
        "InterpretDependency",
      ),
    ).toEqual({ dependencies: [{ apiVersion: "v1", kind: "ClusterRole", namespace: "", name: "r" }] });
    expect(verifyInterpreterResponse(ok({}), UID, "Retain")).toEqual({});
    const ops = [{ op: "replace", path: "/spec/replicas", value: 1 }];
    expect(
      verifyInterpreterResponse(ok({ patch: b64(ops), patchType: "JSONPatch" }), UID, "ReviseReplica"),
    ).toEqual({
      patch: ops,
    });
  });
});

describe("applyResponsePatch", () => {
  it("applies the patch to a copy, or copies the object when there is none", () => {
    const revised = applyResponsePatch(workload, [{ op: "replace", path: "/spec/replicas", value: 1 }]);
    expect(revised.spec).toEqual({ replicas: 1, paused: false });
    expect((workload.spec as { replicas: number }).replicas).toBe(3);
    const same = applyResponsePatch(workload, undefined);
    expect(same).toEqual(workload);
    expect(same).not.toBe(workload);
  });

  it("refuses a patch that does not apply or does not leave an object", () => {
    expect(() =>
      applyResponsePatch(workload, [{ op: "replace", path: "/spec/missing/x", value: 1 }]),
    ).toThrow(/does not apply/);
    expect(() => applyResponsePatch(workload, [{ op: "replace", path: "", value: [3] }])).toThrow(
      /not an object/,
    );
  });
});

describe("webhookUrl", () => {
  it("resolves a service as upstream's DNS fallback, port 443 by default", () => {
    expect(webhookUrl({ service: { namespace: "karmada-system", name: "interp" } }).href).toBe(
      "https://interp.karmada-system.svc/",
    );
    expect(
      webhookUrl({ service: { namespace: "karmada-system", name: "interp", port: 8443, path: "/interpret" } })
        .href,
    ).toBe("https://interp.karmada-system.svc:8443/interpret");
  });

  it("prefers the service when both are set, as upstream", () => {
    expect(webhookUrl({ url: "https://elsewhere/", service: { namespace: "n", name: "s" } }).host).toBe(
      "s.n.svc",
    );
  });

  it.each([
    [{}, /neither a url nor a service/],
    [{ url: "http://plain:80/x" }, /must use https/],
    [{ url: "not a url" }, /not a valid URL/],
    [{ service: { namespace: "", name: "s" } }, /name and a namespace/],
    [{ service: { namespace: "n", name: "s", path: "x" } }, /must start with \//],
  ])("refuses %j", (config, message) => {
    expect(() => webhookUrl(config)).toThrow(message);
  });
});

describe("timeoutSecondsOf", () => {
  it("defaults to 10 and allows 1 to 30", () => {
    expect(timeoutSecondsOf({})).toBe(10);
    expect(timeoutSecondsOf({ timeoutSeconds: 1 })).toBe(1);
    expect(timeoutSecondsOf({ timeoutSeconds: 30 })).toBe(30);
  });
  it.each([0, 31, -1, 2.5])("refuses %d", (t) => {
    expect(() => timeoutSecondsOf({ timeoutSeconds: t })).toThrow(/between 1 and 30 seconds/);
  });
});

describe("caCertificates", () => {
  const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  it("decodes base64 of PEM, accepts PEM, and refuses anything else", () => {
    expect(caCertificates(undefined)).toBeUndefined();
    expect(caCertificates(Buffer.from(pem).toString("base64"))).toBe(pem);
    expect(caCertificates(pem)).toBe(pem);
    expect(() => caCertificates(Buffer.from("hello").toString("base64"))).toThrow(/caBundle holds no PEM/);
  });
});
