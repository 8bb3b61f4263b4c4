import { describe, expect, it } from "vitest";
import { decodeProtobufMessage, decodeProtobufObject, ProtobufDecodeError } from "./decode.ts";
import { encodeProtobufMessage } from "./encode.ts";
import { PROTOBUF_MAGIC, writeEnvelope } from "./envelope.ts";
import { buildRegistry } from "./registry.ts";
import { type ByteSink, WIRE_VARINT, writeLengthDelimited, writeTag, writeVarint } from "./wire.ts";

/** Builds messages by hand so that these tests do not depend on our encoder. */
function message(build: (out: ByteSink) => void): Uint8Array {
  const out: ByteSink = [];
  build(out);
  return Uint8Array.from(out);
}
const varint = (out: ByteSink, n: number, v: number | bigint): void => {
  writeTag(out, n, WIRE_VARINT);
  writeVarint(out, v);
};
const bytes = (out: ByteSink, n: number, b: Uint8Array | string): void => {
  writeLengthDelimited(out, n, typeof b === "string" ? new TextEncoder().encode(b) : b);
};

function expectDecodeError(fn: () => unknown, reason: "Malformed" | "UnsupportedKind", text: RegExp): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ProtobufDecodeError);
    expect((error as ProtobufDecodeError).reason).toBe(reason);
    expect((error as Error).message).toMatch(text);
    return;
  }
  throw new Error("expected a ProtobufDecodeError");
}

describe("decodeProtobufObject", () => {
  it("decodes the body kubectl 1.32 sends for `kubectl create namespace foo`", () => {
    // Captured from /usr/bin/kubectl against a loopback server.
    const body = Buffer.from(
      "6b3873000a0f0a02763112094e616d657370616365121b0a130a03666f6f12001a0022002a0032003800420012001a020a001a002200",
      "hex",
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "foo" }, spec: {}, status: {} },
    });
  });

  it("looks DeleteOptions up under any apiVersion", () => {
    const raw = message((o) => bytes(o, 4, "Orphan"));
    for (const apiVersion of ["v1", "apps/v1", "meta.k8s.io/v1"]) {
      expect(decodeProtobufObject(writeEnvelope(apiVersion, "DeleteOptions", raw)).object).toEqual({
        apiVersion,
        kind: "DeleteOptions",
        propagationPolicy: "Orphan",
      });
    }
  });

  it("rejects bodies without the magic", () => {
    expectDecodeError(
      () => decodeProtobufObject(new TextEncoder().encode('{"kind":"x"}')),
      "Malformed",
      /magic/,
    );
    expectDecodeError(() => decodeProtobufObject(new Uint8Array(0)), "Malformed", /magic/);
  });

  it("rejects kinds it has no message for", () => {
    expectDecodeError(
      () => decodeProtobufObject(writeEnvelope("work.karmada.io/v1alpha1", "Work", new Uint8Array(0))),
      "UnsupportedKind",
      /work\.karmada\.io\/v1alpha1.*Work/,
    );
    expectDecodeError(
      () => decodeProtobufObject(writeEnvelope("v1", "", new Uint8Array(0))),
      "Malformed",
      /no kind/,
    );
  });

  it("rejects truncated and inconsistent input", () => {
    const raw = message((o) =>
      bytes(
        o,
        1,
        message((m) => bytes(m, 1, "c")),
      ),
    );
    for (let cut = 1; cut < raw.length; cut++) {
      expect(() => decodeProtobufObject(writeEnvelope("v1", "ConfigMap", raw.subarray(0, cut)))).toThrow(
        /ConfigMap/,
      );
    }
    const envelope = writeEnvelope("v1", "ConfigMap", raw);
    expectDecodeError(() => decodeProtobufObject(envelope.subarray(0, 10)), "Malformed", /envelope/);
    // ObjectMeta.name (a string) sent as a varint.
    const wrongType = writeEnvelope(
      "v1",
      "ConfigMap",
      message((o) =>
        bytes(
          o,
          1,
          message((m) => varint(m, 1, 5)),
        ),
      ),
    );
    expectDecodeError(() => decodeProtobufObject(wrongType), "Malformed", /ConfigMap\.metadata\.name/);
    // A map entry that is not a message.
    const badMap = writeEnvelope(
      "v1",
      "ConfigMap",
      message((o) => varint(o, 2, 1)),
    );
    expectDecodeError(() => decodeProtobufObject(badMap), "Malformed", /ConfigMap\.data/);
    // Groups (wire type 3) are not used by Kubernetes.
    const group = writeEnvelope("v1", "ConfigMap", Uint8Array.of(0x0b));
    expectDecodeError(() => decodeProtobufObject(group), "Malformed", /wire type 3/);
  });

  it("rejects encodings it cannot honour", () => {
    const framed = (encoding: string, type: string): Uint8Array =>
      Uint8Array.from([
        ...PROTOBUF_MAGIC,
        ...message((o) => {
          bytes(
            o,
            1,
            message((t) => {
              bytes(t, 1, "v1");
              bytes(t, 2, "Namespace");
            }),
          );
          bytes(o, 2, new Uint8Array(0));
          bytes(o, 3, encoding);
          bytes(o, 4, type);
        }),
      ]);
    expectDecodeError(() => decodeProtobufObject(framed("gzip", "")), "Malformed", /contentEncoding "gzip"/);
    expectDecodeError(() => decodeProtobufObject(framed("", "application/json")), "Malformed", /contentType/);
    expect(decodeProtobufObject(framed("", "application/vnd.kubernetes.protobuf")).kind).toBe("Namespace");
  });
});

describe("Go's JSON rendering", () => {
  it("keeps pointers that are on the wire even when zero, and drops omitempty zeros", () => {
    const spec = message((o) => {
      varint(o, 1, 0); // replicas *int32
      varint(o, 5, 0); // minReadySeconds int32 omitempty
      varint(o, 7, 0); // paused bool omitempty
      varint(o, 6, 0); // revisionHistoryLimit *int32
    });
    expect(decodeProtobufMessage("apps.v1.DeploymentSpec", spec)).toEqual({
      replicas: 0,
      revisionHistoryLimit: 0,
      template: { metadata: {}, spec: {} },
      strategy: {},
    });
  });

  it("renders non-omitempty scalars even when absent, like the zero value of a Go field", () => {
    expect(decodeProtobufMessage("core.v1.ContainerPort", new Uint8Array(0))).toEqual({ containerPort: 0 });
    expect(decodeProtobufMessage("core.v1.ContainerStatus", new Uint8Array(0))).toEqual({
      name: "",
      state: {},
      lastState: {},
      ready: false,
      restartCount: 0,
      image: "",
      imageID: "",
    });
  });

  it("drops empty lists and maps, keeps empty strings inside maps and lists", () => {
    const cm = message((o) => {
      bytes(o, 1, new Uint8Array(0)); // metadata present but empty
      bytes(
        o,
        2,
        message((e) => bytes(e, 1, "empty")),
      ); // data entry without a value
      bytes(
        o,
        2,
        message((e) => {
          bytes(e, 1, "b");
          bytes(e, 2, "2");
        }),
      );
      bytes(
        o,
        2,
        message((e) => {
          bytes(e, 1, "a");
          bytes(e, 2, "1");
        }),
      );
    });
    const decoded = decodeProtobufMessage("core.v1.ConfigMap", cm);
    expect(decoded).toEqual({ metadata: {}, data: { a: "1", b: "2", empty: "" } });
    // Go writes map keys sorted.
    expect(Object.keys(decoded.data as object)).toEqual(["a", "b", "empty"]);
  });

  it("renders bytes as base64 and keeps a present empty []byte only without omitempty", () => {
    const der = Uint8Array.of(0x30, 0x82, 0xff, 0x00);
    const spec = message((o) => bytes(o, 1, der));
    expect(decodeProtobufMessage("certificates.v1.CertificateSigningRequestSpec", spec)).toMatchObject({
      request: "MIL/AA==",
    });
    const status = message((o) => bytes(o, 2, new Uint8Array(0)));
    expect(decodeProtobufMessage("certificates.v1.CertificateSigningRequestStatus", status)).toEqual({});
    const secret = message((o) =>
      bytes(
        o,
        2,
        message((e) => {
          bytes(e, 1, "k");
          bytes(e, 2, Uint8Array.of(0xde, 0xad));
        }),
      ),
    );
    expect(decodeProtobufMessage("core.v1.Secret", secret)).toEqual({ metadata: {}, data: { k: "3q0=" } });
  });

  it("renders Time with second precision and MicroTime with six digits, and omits zero times", () => {
    const ts = (seconds: number, nanos: number): Uint8Array =>
      message((o) => {
        varint(o, 1, seconds);
        varint(o, 2, nanos);
      });
    const meta = message((o) => {
      bytes(o, 8, ts(1_714_557_600, 999_999_999)); // creationTimestamp
      bytes(o, 9, new Uint8Array(0)); // deletionTimestamp: present, zero
    });
    expect(decodeProtobufMessage("meta.v1.ObjectMeta", meta)).toEqual({
      creationTimestamp: "2024-05-01T10:00:00Z",
    });
    const lease = message((o) => {
      bytes(o, 3, ts(1_714_557_600, 123_456_789)); // acquireTime
      bytes(o, 4, ts(0, 0)); // renewTime: the Unix epoch is not Go's zero time
    });
    expect(decodeProtobufMessage("coordination.v1.LeaseSpec", lease)).toEqual({
      acquireTime: "2024-05-01T10:00:00.123456Z",
      renewTime: "1970-01-01T00:00:00.000000Z",
    });
    // Go's zero time.Time (year 1) renders as null.
    const yearOne = message((o) => bytes(o, 8, ts(-62_135_596_800, 0)));
    expect(decodeProtobufMessage("meta.v1.ObjectMeta", yearOne)).toEqual({});
  });

  it("renders IntOrString as a number or a string, Quantity as its string", () => {
    const intstr = (type: number, i: number, s: string): Uint8Array =>
      message((o) => {
        varint(o, 1, type);
        varint(o, 2, i);
        bytes(o, 3, s);
      });
    const pdb = message((o) => {
      bytes(o, 1, intstr(1, 0, "50%"));
      bytes(o, 3, intstr(0, -1, ""));
    });
    expect(decodeProtobufMessage("policy.v1.PodDisruptionBudgetSpec", pdb)).toEqual({
      minAvailable: "50%",
      maxUnavailable: -1,
    });
    const req = message((o) => {
      bytes(
        o,
        2,
        message((e) => {
          bytes(e, 1, "cpu");
          bytes(
            e,
            2,
            message((q) => bytes(q, 1, "250m")),
          );
        }),
      );
      bytes(
        o,
        2,
        message((e) => {
          bytes(e, 1, "memory");
          bytes(e, 2, new Uint8Array(0));
        }),
      );
    });
    expect(decodeProtobufMessage("core.v1.ResourceRequirements", req)).toEqual({
      requests: { cpu: "250m", memory: "0" },
    });
  });

  it("decodes negative int32 (ten-byte varints), packed and unpacked repeated scalars", () => {
    const values = Uint8Array.from(
      message((o) => {
        writeVarint(o, 1);
        writeVarint(o, -1);
        writeVarint(o, 300);
      }),
    );
    const packed = message((o) => {
      bytes(o, 2, "In");
      bytes(o, 3, values);
      varint(o, 3, -2147483648);
    });
    expect(decodeProtobufMessage("batch.v1.PodFailurePolicyOnExitCodesRequirement", packed)).toEqual({
      operator: "In",
      values: [1, -1, 300, -2147483648],
    });
  });

  it("skips fields it does not know and merges a message field sent twice", () => {
    const meta = message((o) => {
      bytes(o, 1, "first");
      bytes(o, 99, "from a newer Kubernetes");
      varint(o, 98, 7);
      bytes(o, 1, "second");
    });
    expect(decodeProtobufMessage("meta.v1.ObjectMeta", meta)).toEqual({ name: "second" });
    // PodDisruptionBudgetSpec.selector sent twice: proto merges the two halves.
    const spec = message((o) => {
      bytes(
        o,
        2,
        message((sel) =>
          bytes(
            sel,
            1,
            message((e) => {
              bytes(e, 1, "a");
              bytes(e, 2, "1");
            }),
          ),
        ),
      );
      bytes(
        o,
        2,
        message((sel) =>
          bytes(
            sel,
            2,
            message((r) => {
              bytes(r, 1, "k");
              bytes(r, 2, "Exists");
            }),
          ),
        ),
      );
    });
    expect(decodeProtobufMessage("policy.v1.PodDisruptionBudgetSpec", spec)).toEqual({
      selector: { matchLabels: { a: "1" }, matchExpressions: [{ key: "k", operator: "Exists" }] },
    });
  });

  it("renders FieldsV1 and JSONSchemaProps' raw JSON as parsed values", () => {
    const entry = message((o) => {
      bytes(o, 1, "kubectl");
      bytes(o, 6, "FieldsV1");
      bytes(
        o,
        7,
        message((f) => bytes(f, 1, '{"f:data":{"f:a":{}}}')),
      );
    });
    expect(decodeProtobufMessage("meta.v1.ManagedFieldsEntry", entry)).toEqual({
      manager: "kubectl",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:data": { "f:a": {} } },
    });
    const bad = message((o) =>
      bytes(
        o,
        7,
        message((f) => bytes(f, 1, "{not json")),
      ),
    );
    expectDecodeError(
      () => decodeProtobufMessage("meta.v1.ManagedFieldsEntry", bad),
      "Malformed",
      /fieldsV1/,
    );
  });

  it("renders @array wrappers as arrays and @union messages as the value Go's MarshalJSON picks", () => {
    const user = message((o) => {
      bytes(
        o,
        4,
        message((e) => {
          bytes(e, 1, "scopes");
          bytes(
            e,
            2,
            message((v) => {
              bytes(v, 1, "a");
              bytes(v, 1, "b");
            }),
          );
        }),
      );
      bytes(
        o,
        4,
        message((e) => {
          bytes(e, 1, "none");
          bytes(e, 2, new Uint8Array(0));
        }),
      );
    });
    expect(decodeProtobufMessage("authentication.v1.UserInfo", user)).toEqual({
      extra: { none: [], scopes: ["a", "b"] },
    });

    const stringSchema = message((s) => bytes(s, 5, "string"));
    const props = message((o) => {
      bytes(
        o,
        24,
        message((items) => bytes(items, 2, stringSchema)),
      ); // items: [ {type: string} ]
      bytes(
        o,
        30,
        message((ap) => varint(ap, 1, 0)),
      ); // additionalProperties: false
      bytes(
        o,
        33,
        message((ai) => {
          varint(ai, 1, 1);
          bytes(ai, 2, stringSchema);
        }),
      ); // additionalItems: schema wins over allows
      bytes(
        o,
        32,
        message((e) => {
          bytes(e, 1, "a");
          bytes(
            e,
            2,
            message((v) => {
              bytes(v, 2, "b");
              bytes(v, 2, "c");
            }),
          );
        }),
      );
      bytes(
        o,
        32,
        message((e) => {
          bytes(e, 1, "d");
          bytes(
            e,
            2,
            message((v) => bytes(v, 1, stringSchema)),
          );
        }),
      );
    });
    expect(decodeProtobufMessage("apiextensions.v1.JSONSchemaProps", props)).toEqual({
      items: [{ type: "string" }],
      additionalProperties: false,
      additionalItems: { type: "string" },
      dependencies: { a: ["b", "c"], d: { type: "string" } },
    });
  });

  it("decodes recursive schemas deeply", () => {
    let schema: unknown = { type: "string" };
    for (let depth = 0; depth < 40; depth++) schema = { type: "object", properties: { nested: schema } };
    const encoded = encodeProtobufMessage("apiextensions.v1.JSONSchemaProps", schema);
    expect(decodeProtobufMessage("apiextensions.v1.JSONSchemaProps", encoded)).toEqual(schema);
  });

  it("reports unknown message names and absurd nesting as decode errors", () => {
    expectDecodeError(
      () => decodeProtobufMessage("core.v1.Nope", new Uint8Array(0)),
      "UnsupportedKind",
      /core\.v1\.Nope/,
    );
    // JSONSchemaProps.not nested far deeper than any stack: level k is the tag of field 28 and
    // the length of level k-1, so the whole body is those prefixes from the outside in.
    const depth = 100_000;
    const tag: ByteSink = [];
    writeTag(tag, 28, 2);
    const lengths = [0];
    for (let k = 1; k < depth; k++) {
      const inner = lengths[k - 1] ?? 0;
      const prefix: ByteSink = [];
      writeVarint(prefix, inner);
      lengths.push(tag.length + prefix.length + inner);
    }
    const nested: ByteSink = [];
    for (let k = depth - 2; k >= 0; k--) {
      writeTag(nested, 28, 2);
      writeVarint(nested, lengths[k] ?? 0);
    }
    const inner = Uint8Array.from(nested);
    expectDecodeError(
      () => decodeProtobufMessage("apiextensions.v1.JSONSchemaProps", inner),
      "Malformed",
      /call stack/,
    );
  });

  it("refuses NaN and infinities, which have no JSON form", () => {
    const nan = new Uint8Array(9);
    nan[0] = (9 << 3) | 1; // maximum, fixed64
    new DataView(nan.buffer).setFloat64(1, Number.NaN, true);
    expectDecodeError(
      () => decodeProtobufMessage("apiextensions.v1.JSONSchemaProps", nan),
      "Malformed",
      /maximum/,
    );
  });
});

describe("special types through a custom registry", () => {
  const registry = buildRegistry([
    {
      package: "test.v1",
      apiVersion: "test.example.com/v1",
      kinds: ["Thing"],
      messages: `
# Types our built-in graph does not reach, to cover every special type.
Thing
  timeout 1 duration
  maybeTimeout 2 *duration
  raw 3 *json
  list 4 []Wrapper
Wrapper @array
  items 1 []int64
`,
    },
  ]);

  it("renders Duration as a Go duration string and the zero Duration as 0s", () => {
    const thing = message((o) =>
      bytes(
        o,
        2,
        message((d) => varint(d, 1, 5_400_000_000_000n)),
      ),
    );
    expect(decodeProtobufMessage("test.v1.Thing", thing, registry)).toEqual({
      timeout: "0s",
      maybeTimeout: "1h30m0s",
    });
  });

  it("decodes a RawExtension that holds a nested protobuf object", () => {
    const nested = writeEnvelope(
      "v1",
      "Namespace",
      message((o) =>
        bytes(
          o,
          1,
          message((m) => bytes(m, 1, "inner")),
        ),
      ),
    );
    const thing = message((o) =>
      bytes(
        o,
        3,
        message((r) => bytes(r, 1, nested)),
      ),
    );
    expect(() => decodeProtobufMessage("test.v1.Thing", thing, registry)).toThrow(/Namespace/);
    const withNamespace = buildRegistry([
      {
        package: "core.v1",
        apiVersion: "v1",
        kinds: ["Namespace"],
        messages: "Namespace\n  metadata 1 Meta\nMeta\n  name 1 string omitempty\n",
      },
      {
        package: "test.v1",
        apiVersion: "test.example.com/v1",
        kinds: ["Thing"],
        messages: "Thing\n  raw 3 *json\n",
      },
    ]);
    expect(decodeProtobufMessage("test.v1.Thing", thing, withNamespace)).toEqual({
      raw: { apiVersion: "v1", kind: "Namespace", metadata: { name: "inner" } },
    });
  });

  it("renders lists of @array wrappers as nested arrays", () => {
    const thing = message((o) => {
      bytes(
        o,
        4,
        message((w) => {
          varint(w, 1, 1);
          varint(w, 1, 2);
        }),
      );
      bytes(o, 4, new Uint8Array(0));
    });
    expect(decodeProtobufMessage("test.v1.Thing", thing, registry)).toEqual({
      timeout: "0s",
      list: [[1, 2], []],
    });
  });
});
