/**
 * One error type crosses every boundary: a Kubernetes `Status` wrapped in an Error.
 * The API server serializes it as is; clients parse it back into the same class, so
 * `isNotFound(e)` works the same in process and over HTTP.
 */

export type StatusReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Expired"
  | "Invalid"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "TooManyRequests"
  | "InternalError"
  | "Timeout"
  | "ServiceUnavailable"
  | "";

export type CauseType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "InternalError"
  | "FieldValueTypeInvalid"
  | "UnexpectedServerResponse"
  | "FieldManagerConflict"
  | "ResourceVersionTooLarge";

export interface StatusCause {
  reason?: CauseType | string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: { resourceVersion?: string; continue?: string };
  status: "Success" | "Failure";
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  readonly status: Status;
  constructor(status: Status) {
    super(status.message ?? status.reason ?? `status ${status.code}`);
    this.name = "ApiError";
    this.status = status;
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): StatusReason {
    return this.status.reason ?? "";
  }
}

/** Identifies an object in error messages: `deployments.apps "web"`. */
export interface ResourceRef {
  group: string;
  resource: string;
}

export function qualifiedResource(ref: ResourceRef): string {
  return ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
}

function failure(code: number, reason: StatusReason, message: string, details?: StatusDetails): ApiError {
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  };
  if (details) status.details = details;
  return new ApiError(status);
}

export function notFound(ref: ResourceRef, name: string): ApiError {
  return failure(404, "NotFound", `${qualifiedResource(ref)} "${name}" not found`, {
    name,
    group: ref.group,
    kind: ref.resource,
  });
}

/** 404 for a URL that names nothing we serve. */
export function pathNotFound(): ApiError {
  return failure(404, "NotFound", "the server could not find the requested resource", {});
}

export function alreadyExists(ref: ResourceRef, name: string, message?: string): ApiError {
  return failure(409, "AlreadyExists", message ?? `${qualifiedResource(ref)} "${name}" already exists`, {
    name,
    group: ref.group,
    kind: ref.resource,
  });
}

export function conflict(ref: ResourceRef, name: string, why: string): ApiError {
  return failure(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(ref)} "${name}": ${why}`,
    {
      name,
      group: ref.group,
      kind: ref.resource,
    },
  );
}

export const OBJECT_MODIFIED =
  "the object has been modified; please apply your changes to the latest version and try again";

/** A field-level problem: the apimachinery `field.Error` analogue. */
export interface FieldError {
  type: CauseType;
  field: string;
  /** The offending value; rendered like Go's `%#v` in the message. */
  value?: unknown;
  detail?: string;
}

export function fieldErrorMessage(e: FieldError): string {
  switch (e.type) {
    case "FieldValueRequired":
      return `${e.field}: Required value${e.detail ? `: ${e.detail}` : ""}`;
    case "FieldValueNotSupported":
      return `${e.field}: Unsupported value: ${renderValue(e.value)}${e.detail ? `: ${e.detail}` : ""}`;
    case "FieldValueDuplicate":
      return `${e.field}: Duplicate value: ${renderValue(e.value)}`;
    case "FieldValueForbidden":
      return `${e.field}: Forbidden${e.detail ? `: ${e.detail}` : ""}`;
    case "FieldValueTooLong":
      return `${e.field}: Too long${e.detail ? `: ${e.detail}` : ""}`;
    case "FieldValueTooMany":
      return `${e.field}: Too many${e.value !== undefined ? `: ${renderValue(e.value)}` : ""}${e.detail ? `: ${e.detail}` : ""}`;
    case "FieldValueNotFound":
      return `${e.field}: Not found: ${renderValue(e.value)}`;
    case "FieldValueTypeInvalid":
      return `${e.field}: Invalid value: ${renderValue(e.value)}${e.detail ? `: ${e.detail}` : ""}`;
    case "InternalError":
      return `${e.field}: Internal error${e.detail ? `: ${e.detail}` : ""}`;
    default:
      return `${e.field}: Invalid value: ${renderValue(e.value)}${e.detail ? `: ${e.detail}` : ""}`;
  }
}

/** Renders a value roughly as Go's `%#v` does in field errors: strings quoted, objects as JSON. */
export function renderValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === undefined) return "null";
  if (typeof v === "object" && v !== null) {
    return goLiteral(v) ?? JSON.stringify(v);
  }
  return String(v);
}

/** Go's `%#v` for string lists: `[]string{"a", "b"}`. */
function goLiteral(v: object): string | undefined {
  if (v instanceof GoStringMap) {
    const entries = Object.entries(v.entries).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[string]string{${entries.map(([k, x]) => `${JSON.stringify(k)}:${JSON.stringify(x)}`).join(", ")}}`;
  }
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string")) {
    return `[]string{${v.map((x) => JSON.stringify(x)).join(", ")}}`;
  }
  return undefined;
}

/**
 * A `map[string]string` value (labels, selectors) in a field error, rendered as Go prints it:
 * `map[string]string{"app":"web"}`. Plain objects render as JSON (Go would name the struct).
 */
export class GoStringMap {
  readonly entries: Record<string, string>;
  constructor(entries: Record<string, string>) {
    this.entries = entries;
  }
  toJSON(): Record<string, string> {
    return this.entries;
  }
}

/** 422 Invalid with one cause per field error, messages as apimachinery prints them. */
export function invalid(kind: { group: string; kind: string }, name: string, errors: FieldError[]): ApiError {
  const qualified = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  const messages = errors.map(fieldErrorMessage);
  const list = messages.length === 1 ? messages[0] : `[${messages.join(", ")}]`;
  return failure(422, "Invalid", `${qualified} "${name}" is invalid: ${list}`, {
    name,
    group: kind.group,
    kind: kind.kind,
    causes: errors.map((e, i) => ({
      reason: e.type,
      message: messages[i]!.slice(e.field.length + 2),
      field: e.field,
    })),
  });
}

export function badRequest(message: string): ApiError {
  return failure(400, "BadRequest", message);
}

export function methodNotAllowed(verb: string, ref: ResourceRef): ApiError {
  return failure(
    405,
    "MethodNotAllowed",
    `${verb} is not supported on resources of kind "${qualifiedResource(ref)}"`,
  );
}

export function unsupportedMediaType(contentType: string, accepted: string[]): ApiError {
  return failure(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
    { causes: [{ reason: "UnexpectedServerResponse", message: contentType }] },
  );
}

export function notAcceptable(accepted: string[]): ApiError {
  return failure(406, "NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`);
}

export function requestEntityTooLarge(message: string): ApiError {
  return failure(413, "RequestEntityTooLarge", message);
}

export function expired(message: string, continueToken?: string): ApiError {
  const err = failure(410, "Expired", message);
  if (continueToken !== undefined) err.status.metadata.continue = continueToken;
  return err;
}

export function gone(message: string): ApiError {
  return failure(410, "Gone", message);
}

export function forbidden(ref: ResourceRef, name: string, why: string): ApiError {
  const subject = name ? `${qualifiedResource(ref)} "${name}"` : qualifiedResource(ref);
  return failure(403, "Forbidden", `${subject} is forbidden: ${why}`, {
    name,
    group: ref.group,
    kind: ref.resource,
  });
}

export function unauthorized(): ApiError {
  return failure(401, "Unauthorized", "Unauthorized");
}

export function internalError(err: unknown): ApiError {
  const message = err instanceof Error ? err.message : String(err);
  return failure(500, "InternalError", `Internal error occurred: ${message}`, { causes: [{ message }] });
}

export function timeout(message: string, retryAfterSeconds?: number): ApiError {
  return failure(
    504,
    "Timeout",
    `Timeout: ${message}`,
    retryAfterSeconds === undefined ? undefined : { retryAfterSeconds },
  );
}

export function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  return failure(429, "TooManyRequests", `Too many requests: ${message}`, { retryAfterSeconds });
}

export function serviceUnavailable(message: string): ApiError {
  return failure(503, "ServiceUnavailable", message);
}

/** A Status as the body of a successful delete. */
export function successStatus(details: StatusDetails): Status {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details, code: 200 };
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

function reasonIs(e: unknown, reason: StatusReason, code: number): boolean {
  return (
    e instanceof ApiError && (e.status.reason === reason || (!e.status.reason && e.status.code === code))
  );
}

export const isNotFound = (e: unknown): boolean => reasonIs(e, "NotFound", 404);
export const isAlreadyExists = (e: unknown): boolean => reasonIs(e, "AlreadyExists", 409);
export const isConflict = (e: unknown): boolean => reasonIs(e, "Conflict", 409);
export const isInvalid = (e: unknown): boolean => reasonIs(e, "Invalid", 422);
export const isBadRequest = (e: unknown): boolean => reasonIs(e, "BadRequest", 400);
export const isForbidden = (e: unknown): boolean => reasonIs(e, "Forbidden", 403);
export const isExpired = (e: unknown): boolean =>
  e instanceof ApiError &&
  (e.status.reason === "Expired" || e.status.reason === "Gone" || e.status.code === 410);

/** Builds an ApiError back from a Status received over the wire. */
export function fromStatus(body: unknown, httpCode: number): ApiError {
  if (body && typeof body === "object" && (body as { kind?: unknown }).kind === "Status") {
    const s = body as Partial<Status>;
    return new ApiError({
      kind: "Status",
      apiVersion: "v1",
      metadata: s.metadata ?? {},
      status: "Failure",
      ...(s.message !== undefined ? { message: s.message } : {}),
      ...(s.reason !== undefined ? { reason: s.reason } : {}),
      ...(s.details !== undefined ? { details: s.details } : {}),
      code: s.code ?? httpCode,
    });
  }
  return failure(httpCode, "", typeof body === "string" ? body : `unexpected response status ${httpCode}`);
}

/** A reconcile error that must not be retried: logged, recorded as an Event, dropped. */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TerminalError";
  }
}

/** What a user is told of an error: a Kubernetes Status message, else the error's own. */
export function errorMessage(err: unknown): string {
  const status = (err as { status?: { message?: string } } | undefined)?.status;
  return status?.message ?? (err instanceof Error ? err.message : String(err));
}
