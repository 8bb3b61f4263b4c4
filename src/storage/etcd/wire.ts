/**
 * The JSON shapes of the etcd v3 gateway (grpc-gateway over the etcdserverpb messages):
 * field names as in the .proto, int64 as decimal strings, bytes as base64, fields at their
 * default value left out.
 */

export interface ResponseHeader {
  revision?: string;
}

export interface WireKeyValue {
  key?: string;
  value?: string;
  create_revision?: string;
  mod_revision?: string;
  version?: string;
}

export interface RangeRequest {
  key: string;
  range_end?: string;
  limit?: number;
  revision?: number;
  keys_only?: boolean;
  count_only?: boolean;
}

export interface RangeResponse {
  header?: ResponseHeader;
  kvs?: WireKeyValue[];
  more?: boolean;
  count?: string;
}

export interface DeleteRangeResponse {
  header?: ResponseHeader;
  deleted?: string;
  prev_kvs?: WireKeyValue[];
}

export interface Compare {
  key: string;
  target: "VERSION" | "CREATE" | "MOD" | "VALUE";
  result: "EQUAL" | "GREATER" | "LESS" | "NOT_EQUAL";
  version?: number;
  mod_revision?: number;
}

export type RequestOp =
  | { request_range: RangeRequest }
  | { request_put: { key: string; value: string } }
  | { request_delete_range: { key: string; prev_kv?: boolean } };

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface ResponseOp {
  response_range?: RangeResponse;
  response_put?: { header?: ResponseHeader };
  response_delete_range?: DeleteRangeResponse;
}

export interface TxnResponse {
  header?: ResponseHeader;
  succeeded?: boolean;
  responses?: ResponseOp[];
}

export interface WatchCreateRequest {
  key: string;
  range_end: string;
  start_revision?: number;
  progress_notify: boolean;
  prev_kv: boolean;
}

export interface WireEvent {
  type?: "PUT" | "DELETE";
  kv?: WireKeyValue;
  prev_kv?: WireKeyValue;
}

export interface WatchResponse {
  header?: ResponseHeader;
  watch_id?: string;
  created?: boolean;
  canceled?: boolean;
  compact_revision?: string;
  cancel_reason?: string;
  events?: WireEvent[];
}

/** One line of the watch stream: a response, or the error that ended the stream. */
export interface WatchStreamMessage {
  result?: WatchResponse;
  error?: { grpc_code?: number; http_code?: number; message?: string };
}

/** The gateway's error body for unary calls. */
export interface ErrorBody {
  error?: string;
  message?: string;
  code?: number;
}

export function encode(bytes: Buffer): string {
  return bytes.toString("base64");
}

export function decodeText(base64: string | undefined): string {
  return base64 ? Buffer.from(base64, "base64").toString("utf8") : "";
}

export function int(value: string | undefined): number {
  return value ? Number(value) : 0;
}

/**
 * etcd's range end for "every key starting with `prefix`": the prefix with its last byte
 * incremented (trailing 0xff bytes dropped first); a single zero byte means "no end".
 */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return Buffer.from([0]);
  const out = Buffer.from(prefix.subarray(0, end));
  out[end - 1] = out[end - 1]! + 1;
  return out;
}
