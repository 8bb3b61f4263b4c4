/**
 * The `config.karmada.io/v1alpha1` ResourceInterpreterContext: the request we send an
 * interpreter webhook and the checks its answer must pass before we use it.
 *
 * Upstream facts (karmada `pkg/apis/config/v1alpha1/interpretercontext_types.go`,
 * `pkg/resourceinterpreter/customized/webhook/request/resourceinterpretercontext.go`,
 * `customized.go`):
 * - v1alpha1 is the only context version; a webhook whose interpreterContextVersions does not
 *   list it cannot be called, and the operation fails.
 * - The request carries a fresh uid, the object's GVK, name, namespace (omitted when empty), the
 *   operation and the object; `observedObject` only for Retain; `aggregatedStatus` only for
 *   AggregateStatus; `replicas` always (0 unless ReviseReplica: upstream sends a pointer to
 *   the attribute's zero value).
 * - The answer must carry `response` with the request's uid. `successful: false` needs
 *   `status` (code, message). InterpretReplica needs `replicas`; InterpretStatus `rawStatus`;
 *   InterpretHealth `healthy`; InterpretDependency's references need apiVersion, kind and a
 *   name or labelSelector. ReviseReplica, Retain and AggregateStatus answer with a `patch`
 *   (base64 JSON patch, `patchType: JSONPatch`) applied to the object sent; no patch at all
 *   means the object is unchanged.
 */
import type { KubeObject } from "../../api/meta.ts";
import { isObject } from "../../api/meta.ts";
import { validateLabelSelector } from "../../api/validation/selectors.ts";
import type { AggregatedStatusItem, ReplicaRequirements } from "../../karmada/types.ts";
import { fieldErrorMessage } from "../../machinery/errors.ts";
import { applyJsonPatch } from "../../machinery/json-patch.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import type { DependentObjectReference, InterpreterOperation } from "../types.ts";
import { objectKindOf } from "./hooks.ts";

export const CONTEXT_API_VERSION = "config.karmada.io/v1alpha1";
export const CONTEXT_KIND = "ResourceInterpreterContext";
/** The ResourceInterpreterContext versions we can send, most preferred first. */
export const SUPPORTED_CONTEXT_VERSIONS: readonly string[] = ["v1alpha1"];

/** What one call is about (upstream's request.Attributes). */
export interface InterpreterAttributes {
  operation: InterpreterOperation;
  /** The object to interpret; for Retain the desired one, for AggregateStatus the template. */
  object: KubeObject;
  /** Retain: the object observed in the member cluster. */
  observedObject?: KubeObject;
  /** ReviseReplica: the replicas to set. */
  replicas?: number;
  /** AggregateStatus: the members' statuses. */
  aggregatedStatus?: readonly AggregatedStatusItem[];
}

/**
 * The context version to send: the first of the webhook's versions we speak. Throws when it
 * lists none of them.
 */
export function contextVersionFor(versions: readonly string[]): string {
  const version = versions.find((v) => SUPPORTED_CONTEXT_VERSIONS.includes(v));
  if (version === undefined) {
    throw new Error(
      `its interpreterContextVersions [${versions.join(", ")}] include none of the ResourceInterpreterContext versions this control plane sends (${SUPPORTED_CONTEXT_VERSIONS.join(", ")})`,
    );
  }
  return version;
}

/** The ResourceInterpreterContext request body. */
export function interpreterContextRequest(
  uid: string,
  attributes: InterpreterAttributes,
): Record<string, unknown> {
  const { object } = attributes;
  const request: Record<string, unknown> = {
    uid,
    kind: objectKindOf(object.apiVersion ?? "", object.kind ?? ""),
    name: object.metadata?.name ?? "",
  };
  if (object.metadata?.namespace) request.namespace = object.metadata.namespace;
  request.operation = attributes.operation;
  request.object = object;
  if (attributes.observedObject !== undefined) request.observedObject = attributes.observedObject;
  request.replicas = attributes.replicas ?? 0;
  if (attributes.aggregatedStatus !== undefined && attributes.aggregatedStatus.length > 0) {
    request.aggregatedStatus = attributes.aggregatedStatus;
  }
  return { apiVersion: CONTEXT_API_VERSION, kind: CONTEXT_KIND, request };
}

/** A verified `response` of a successful call. */
export interface InterpreterResponse {
  replicas?: number;
  replicaRequirements?: ReplicaRequirements;
  dependencies?: DependentObjectReference[];
  rawStatus?: Record<string, unknown>;
  healthy?: boolean;
  /** The decoded JSON patch operations (ReviseReplica, Retain, AggregateStatus). */
  patch?: unknown[];
}

/** The webhook's answer did not pass the checks; the message says which. */
export class InvalidResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidResponseError";
  }
}

/** The webhook answered `successful: false`. */
export class UnsuccessfulResponseError extends Error {
  readonly code: number | undefined;
  constructor(code: number | undefined, message: string) {
    super(message);
    this.name = "UnsuccessfulResponseError";
    this.code = code;
  }
}

const invalid = (message: string): InvalidResponseError => new InvalidResponseError(message);

/**
 * Checks a decoded ResourceInterpreterContext answer to the request with `uid` and returns
 * what `operation` needs from it. Throws InvalidResponseError or UnsuccessfulResponseError.
 */
export function verifyInterpreterResponse(
  answer: unknown,
  uid: string,
  operation: InterpreterOperation,
): InterpreterResponse {
  if (!isObject(answer)) throw invalid("the answer is not a JSON object");
  const response = answer.response;
  if (!isObject(response)) throw invalid("the answer has no response");
  if (response.uid !== uid) {
    throw invalid(
      `response.uid is ${JSON.stringify(response.uid ?? "")}, but the request's uid was "${uid}"`,
    );
  }
  if (response.successful !== true) {
    if (!isObject(response.status))
      throw invalid("response.successful is false but response.status is missing");
    const code = typeof response.status.code === "number" ? response.status.code : undefined;
    const message = typeof response.status.message === "string" ? response.status.message : "";
    throw new UnsuccessfulResponseError(code, message);
  }
  return readResult(response, operation);
}

/** What `operation` needs from a successful response. */
function readResult(response: Record<string, unknown>, operation: InterpreterOperation): InterpreterResponse {
  switch (operation) {
    case "InterpretReplica": {
      const replicas = required(response, "replicas");
      if (!Number.isInteger(replicas))
        throw invalid(`response.replicas is not an integer: ${JSON.stringify(replicas)}`);
      const out: InterpreterResponse = { replicas: replicas as number };
      if (isObject(response.replicaRequirements)) {
        out.replicaRequirements = response.replicaRequirements as ReplicaRequirements;
      }
      return out;
    }
    case "InterpretDependency":
      return { dependencies: verifyDependencies(response.dependencies) };
    case "ReviseReplica":
    case "Retain":
    case "AggregateStatus": {
      const patch = decodePatch(response.patch, response.patchType);
      return patch === undefined ? {} : { patch };
    }
    case "InterpretStatus": {
      const raw = required(response, "rawStatus");
      if (!isObject(raw)) throw invalid(`response.rawStatus is not an object: ${JSON.stringify(raw)}`);
      return { rawStatus: raw };
    }
    case "InterpretHealth": {
      const healthy = required(response, "healthy");
      if (typeof healthy !== "boolean")
        throw invalid(`response.healthy is not a boolean: ${JSON.stringify(healthy)}`);
      return { healthy };
    }
    default:
      throw invalid(`operation ${operation} is not sent to interpreter webhooks`);
  }
}

/** A response field that must be present (a Go pointer that must not be nil). */
function required(response: Record<string, unknown>, field: string): unknown {
  const value = response[field];
  if (value === undefined || value === null) throw invalid(`response.${field} is missing`);
  return value;
}

/** The JSON patch operations of a patch answer, or undefined when it carries no patch. */
function decodePatch(patch: unknown, patchType: unknown): unknown[] | undefined {
  const hasPatch = patch !== undefined && patch !== null && patch !== "";
  const hasType = patchType !== undefined && patchType !== null;
  if (!hasPatch && !hasType) return undefined;
  if (!hasType) throw invalid("response.patch is set but response.patchType is missing");
  if (!hasPatch) throw invalid("response.patchType is set but response.patch is empty");
  if (patchType !== "JSONPatch") {
    throw invalid(`response.patchType is ${JSON.stringify(patchType)}; only "JSONPatch" is supported`);
  }
  if (typeof patch !== "string") throw invalid("response.patch must be a base64-encoded JSON patch");
  let operations: unknown;
  try {
    operations = JSON.parse(Buffer.from(patch, "base64").toString("utf8"));
  } catch {
    throw invalid("response.patch is not base64 of a JSON document");
  }
  if (!Array.isArray(operations))
    throw invalid("response.patch is not a JSON patch (an array of operations)");
  return operations;
}

/** Applies a verified patch to `object`; the result must still be an object. */
export function applyResponsePatch(object: KubeObject, patch: unknown[] | undefined): KubeObject {
  if (patch === undefined || patch.length === 0) return cloneJson(object);
  let patched: unknown;
  try {
    patched = applyJsonPatch(object, patch);
  } catch (err) {
    throw invalid(`response.patch does not apply to the object: ${(err as Error).message}`);
  }
  if (!isObject(patched))
    throw invalid("response.patch turns the object into something that is not an object");
  return patched as KubeObject;
}

function verifyDependencies(raw: unknown): DependentObjectReference[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid("response.dependencies is not a list");
  const problems: string[] = [];
  const refs = raw.map((item, i): DependentObjectReference => {
    const field = `response.dependencies[${i}]`;
    const d = isObject(item) ? item : {};
    const text = (v: unknown): string => (typeof v === "string" ? v : "");
    const ref: DependentObjectReference = {
      apiVersion: text(d.apiVersion),
      kind: text(d.kind),
      namespace: text(d.namespace),
    };
    if (text(d.name) !== "") ref.name = text(d.name);
    if (isObject(d.labelSelector))
      ref.labelSelector = d.labelSelector as NonNullable<typeof ref.labelSelector>;
    if (ref.apiVersion === "") problems.push(`${field}.apiVersion: missing required apiVersion`);
    if (ref.kind === "") problems.push(`${field}.kind: missing required kind`);
    if (ref.name === undefined && ref.labelSelector === undefined) {
      problems.push(`${field}: dependency can not leave name and labelSelector all empty`);
    }
    if (ref.labelSelector !== undefined) {
      problems.push(
        ...validateLabelSelector(ref.labelSelector, `${field}.labelSelector`).map(fieldErrorMessage),
      );
    }
    return ref;
  });
  if (problems.length > 0) throw invalid(problems.join("; "));
  return refs;
}
