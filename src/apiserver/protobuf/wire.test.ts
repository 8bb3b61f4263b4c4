import { describe, expect, it } from "vitest";
import {
  type ByteSink,
  readFields,
  readVarint,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WireFormatError,
  writeFixed,
  writeLengthDelimited,
  writeTag,
  writeVarint,
} from "./wire.ts";

const hex = (out: ByteSink): string => Buffer.from(out).toString("hex");

describe("varints", () => {
  const cases: [bigint, string][] = [
    [0n, "00"],
    [1n, "01"],
    [127n, "7f"],
    [128n, "8001"],
    [300n, "ac02"],
    [2n ** 32n, "8080808010"],
    [2n ** 64n - 1n, "ffffffffffffffffff01"],
  ];
  for (const [value, encoded] of cases) {
    it(`${value} <-> ${encoded}`, () => {
      const out: ByteSink = [];
      writeVarint(out, value);
      expect(hex(out)).toBe(encoded);
      expect(readVarint(Buffer.from(encoded, "hex"), 0)).toEqual([value, encoded.length / 2]);
    });
  }

  it("writes negative numbers as 64-bit two's complement, as proto int32/int64 do", () => {
    const out: ByteSink = [];
    writeVarint(out, -1);
    expect(hex(out)).toBe("ffffffffffffffffff01");
  });

  it("rejects truncated, overlong and overflowing varints", () => {
    expect(() => readVarint(Uint8Array.of(0x80), 0)).toThrow(WireFormatError);
    expect(() => readVarint(new Uint8Array(11).fill(0x80), 0)).toThrow(/longer than 10 bytes/);
    expect(() => readVarint(Buffer.from("ffffffffffffffffff02", "hex"), 0)).toThrow(/overflows/);
  });
});

describe("fields", () => {
  it("reads every wire type it writes", () => {
    const out: ByteSink = [];
    writeTag(out, 1, 0);
    writeVarint(out, 150);
    writeLengthDelimited(out, 2, new TextEncoder().encode("testing"));
    writeFixed(out, 3, WIRE_FIXED64, new Uint8Array(8).fill(1));
    writeFixed(out, 536_870_911, WIRE_FIXED32, Uint8Array.of(1, 2, 3, 4));
    const fields = readFields(Uint8Array.from(out));
    expect(fields.map((f) => [f.number, f.wireType])).toEqual([
      [1, 0],
      [2, 2],
      [3, 1],
      [536_870_911, 5],
    ]);
    expect(fields[0]).toMatchObject({ varint: 150n });
    expect(new TextDecoder().decode((fields[1] as { bytes: Uint8Array }).bytes)).toBe("testing");
  });

  it("rejects field number 0, groups, and lengths past the end", () => {
    expect(() => readFields(Uint8Array.of(0x00, 0x01))).toThrow(/field number 0/);
    expect(() => readFields(Uint8Array.of(0x0b))).toThrow(/wire type 3/);
    expect(() => readFields(Uint8Array.of(0x0a, 0x05, 0x61))).toThrow(/claims 5 bytes, 1 left/);
    expect(() => readFields(Uint8Array.of(0x09, 0x01))).toThrow(/truncated fixed-size/);
  });
});
