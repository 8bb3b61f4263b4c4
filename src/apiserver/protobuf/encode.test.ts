import { describe, expect, it } from "vitest";
import { decodeProtobufMessage, decodeProtobufObject } from "./decode.ts";
import { encodeProtobufMessage, encodeProtobufObject } from "./encode.ts";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

describe("encodeProtobufObject", () => {
  it("writes what kubectl 1.32 writes for `kubectl create namespace foo`", () => {
    // Go writes every non-pointer field, empty or not: metadata's strings, generation 0, an empty
    // creationTimestamp, and empty spec and status messages.
    const body = encodeProtobufObject({ apiVersion: "v1", kind: "Namespace", metadata: { name: "foo" } });
    expect(hex(body)).toBe(
      "6b3873000a0f0a02763112094e616d657370616365121b0a130a03666f6f12001a0022002a0032003800420012001a020a001a002200",
    );
  });

  it("rejects unknown fields instead of dropping them", () => {
    expect(() =>
      encodeProtobufObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", nmae: "typo" } }),
    ).toThrow(/ConfigMap\.metadata: unknown field "nmae"/);
  });

  it("rejects values of the wrong JSON type", () => {
    const cm = (data: unknown) => ({ apiVersion: "v1", kind: "ConfigMap", data });
    expect(() => encodeProtobufObject(cm({ a: 1 }))).toThrow(/data\["a"\]: expected a string/);
    expect(() => encodeProtobufObject(cm(["a"]))).toThrow(/data: expected an object/);
    const secret = { apiVersion: "v1", kind: "Secret", data: { a: "not base64!" } };
    expect(() => encodeProtobufObject(secret)).toThrow(/expected a base64 string/);
    const deploy = (replicas: unknown) => ({ apiVersion: "apps/v1", kind: "Deployment", spec: { replicas } });
    expect(() => encodeProtobufObject(deploy(1.5))).toThrow(/replicas: expected an integer/);
    expect(() => encodeProtobufObject(deploy(2 ** 31))).toThrow(/out of range for int32/);
    expect(() => encodeProtobufObject({ apiVersion: "x/v1", kind: "Nope" })).toThrow(/no protobuf message/);
  });

  it("accepts and drops TypeMeta on embedded kinds, as Go's protobuf does", () => {
    const sts = {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "db" },
      spec: {
        serviceName: "db",
        volumeClaimTemplates: [
          { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data" } },
        ],
      },
    };
    const decoded = decodeProtobufObject(encodeProtobufObject(sts)).object as {
      spec: { volumeClaimTemplates: unknown[] };
    };
    expect(decoded.spec.volumeClaimTemplates).toEqual([
      { metadata: { name: "data" }, spec: { resources: {} }, status: {} },
    ]);
  });

  it("picks the union member by JSON type", () => {
    const forms: unknown[] = [true, false, { type: "string" }];
    for (const additionalProperties of forms) {
      const bytes = encodeProtobufMessage("apiextensions.v1.JSONSchemaProps", { additionalProperties });
      expect(decodeProtobufMessage("apiextensions.v1.JSONSchemaProps", bytes)).toEqual({
        additionalProperties,
      });
    }
    expect(() =>
      encodeProtobufMessage("apiextensions.v1.JSONSchemaProps", { additionalProperties: "yes" }),
    ).toThrow(/fits none of apiextensions\.v1\.JSONSchemaPropsOrBool/);
  });
});
