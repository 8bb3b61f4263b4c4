/**
 * The frame around every Kubernetes protobuf object: the 4 magic bytes "k8s\0" followed by a
 * runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType},
 * where `raw` is the object's own message.
 */

import { type ByteSink, readFields, WIRE_LENGTH_DELIMITED, writeLengthDelimited } from "./wire.ts";

export const PROTOBUF_MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
export const PROTOBUF_MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

const UNKNOWN_TYPE_META = 1;
const UNKNOWN_RAW = 2;
const UNKNOWN_CONTENT_ENCODING = 3;
const UNKNOWN_CONTENT_TYPE = 4;
const TYPE_META_API_VERSION = 1;
const TYPE_META_KIND = 2;

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

export function hasProtobufMagic(body: Uint8Array): boolean {
  return body.length >= PROTOBUF_MAGIC.length && PROTOBUF_MAGIC.every((b, i) => body[i] === b);
}

/** Reads the envelope; the caller checks the magic first. Throws WireFormatError on bad input. */
export function readEnvelope(body: Uint8Array): Envelope {
  const envelope: Envelope = {
    apiVersion: "",
    kind: "",
    raw: new Uint8Array(0),
    contentEncoding: "",
    contentType: "",
  };
  for (const field of readFields(body.subarray(PROTOBUF_MAGIC.length))) {
    if (field.wireType !== WIRE_LENGTH_DELIMITED) continue;
    switch (field.number) {
      case UNKNOWN_TYPE_META:
        for (const tm of readFields(field.bytes)) {
          if (tm.wireType !== WIRE_LENGTH_DELIMITED) continue;
          if (tm.number === TYPE_META_API_VERSION) envelope.apiVersion = utf8.decode(tm.bytes);
          if (tm.number === TYPE_META_KIND) envelope.kind = utf8.decode(tm.bytes);
        }
        break;
      case UNKNOWN_RAW:
        envelope.raw = field.bytes;
        break;
      case UNKNOWN_CONTENT_ENCODING:
        envelope.contentEncoding = utf8.decode(field.bytes);
        break;
      case UNKNOWN_CONTENT_TYPE:
        envelope.contentType = utf8.decode(field.bytes);
        break;
    }
  }
  return envelope;
}

/** Frames an encoded object the way Go's protobuf serializer does (empty contentEncoding/contentType). */
export function writeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const typeMeta: ByteSink = [];
  writeLengthDelimited(typeMeta, TYPE_META_API_VERSION, utf8Encoder.encode(apiVersion));
  writeLengthDelimited(typeMeta, TYPE_META_KIND, utf8Encoder.encode(kind));
  const out: ByteSink = [...PROTOBUF_MAGIC];
  writeLengthDelimited(out, UNKNOWN_TYPE_META, typeMeta);
  writeLengthDelimited(out, UNKNOWN_RAW, raw);
  writeLengthDelimited(out, UNKNOWN_CONTENT_ENCODING, []);
  writeLengthDelimited(out, UNKNOWN_CONTENT_TYPE, []);
  return Uint8Array.from(out);
}
