/**
 * ResourceInterpreterCustomization (no two customizations of one kind may script the same
 * operation, and every script must compile) and ResourceInterpreterWebhookConfiguration
 * (webhook names, rules, timeouts, where to call, context versions).
 */

import type { FieldError } from "../../../machinery/errors.ts";
import type { StoredObject } from "../../meta.ts";
import { child, duplicate, index, invalid, notSupported, required } from "../../validation/field.ts";
import { type Obj, obj, objs, str, strs } from "../../validation/json.ts";
import {
  isDNS1035Label,
  isDNS1123Subdomain,
  isFullyQualifiedDomainName,
  isValidPortNum,
} from "../../validation/names.ts";
import { parseGoUrl } from "./go-url.ts";

// ---- ResourceInterpreterCustomization ------------------------------------------------------

/** The scripted operations in upstream's order, with the spec field holding each script. */
export const CUSTOMIZATION_RULES: ReadonlyArray<{ operation: string; field: string }> = [
  { operation: "Retain", field: "retention" },
  { operation: "InterpretReplica", field: "replicaResource" },
  { operation: "InterpretComponent", field: "componentResource" },
  { operation: "ReviseReplica", field: "replicaRevision" },
  { operation: "InterpretStatus", field: "statusReflection" },
  { operation: "AggregateStatus", field: "statusAggregation" },
  { operation: "InterpretHealth", field: "healthInterpretation" },
  { operation: "InterpretDependency", field: "dependencyInterpretation" },
];

function scriptOf(ric: StoredObject, field: string): string {
  return str(obj(obj(obj(ric.spec)?.customizations)?.[field])?.luaScript) ?? "";
}

function targetOf(ric: StoredObject): { apiVersion: string; kind: string } {
  const target = obj(obj(ric.spec)?.target) ?? {};
  return { apiVersion: str(target.apiVersion) ?? "", kind: str(target.kind) ?? "" };
}

/**
 * The refusal for `ric` given the customizations already stored (itself excluded by name), or
 * undefined. Dependency scripts may be split across customizations; every other operation may
 * have one script per target kind. `compileLua` returns the Lua compiler's error, if any.
 */
export function resourceInterpreterCustomizationDenial(
  ric: StoredObject,
  existing: readonly StoredObject[],
  compileLua?: (script: string) => string | undefined,
): string | undefined {
  const target = targetOf(ric);
  for (const other of existing) {
    if (other.metadata.name === ric.metadata.name) continue;
    const otherTarget = targetOf(other);
    if (otherTarget.apiVersion !== target.apiVersion || otherTarget.kind !== target.kind) continue;
    for (const rule of CUSTOMIZATION_RULES) {
      if (rule.operation === "InterpretDependency") continue;
      if (scriptOf(other, rule.field) && scriptOf(ric, rule.field)) {
        return `conflicting with InterpreterOperation(${rule.operation}) of existing ResourceInterpreterCustomization(${other.metadata.name ?? ""})`;
      }
    }
  }
  if (!compileLua) return undefined;
  for (const rule of CUSTOMIZATION_RULES) {
    const script = scriptOf(ric, rule.field);
    if (!script) continue;
    const why = compileLua(script);
    if (why !== undefined) return `InterpreterOperation(${rule.operation}) Lua script error: ${why}`;
  }
  return undefined;
}

// ---- ResourceInterpreterWebhookConfiguration ----------------------------------------------

const INTERPRETER_OPERATIONS = [
  "*",
  "AggregateStatus",
  "InterpretComponent",
  "InterpretDependency",
  "InterpretHealth",
  "InterpretReplica",
  "InterpretStatus",
  "Retain",
  "ReviseReplica",
];
const CONTEXT_VERSIONS = ["v1alpha1"];

function validateRuleList(
  values: string[],
  path: string,
  what: string,
  checkEmptyItems: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  if (values.length === 0) errs.push(required(path));
  if (values.length > 1 && values.includes("*")) {
    errs.push(invalid(path, values, `if '*' is present, must not specify other ${what}`));
  }
  if (checkEmptyItems) {
    values.forEach((v, i) => {
      if (v === "") errs.push(required(index(path, i)));
    });
  }
  return errs;
}

function validateRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const operations = strs(rule.operations);
  const opsPath = child(path, "operations");
  if (operations.length === 0) errs.push(required(opsPath));
  if (operations.length > 1 && operations.includes("*")) {
    errs.push(invalid(opsPath, operations, "if '*' is present, must not specify other operations"));
  }
  operations.forEach((op, i) => {
    if (!INTERPRETER_OPERATIONS.includes(op))
      errs.push(notSupported(index(opsPath, i), op, INTERPRETER_OPERATIONS));
  });
  // The group may be empty (the core group), so only versions and kinds reject empty items.
  errs.push(...validateRuleList(strs(rule.apiGroups), child(path, "apiGroups"), "API groups", false));
  errs.push(...validateRuleList(strs(rule.apiVersions), child(path, "apiVersions"), "API versions", true));
  errs.push(...validateRuleList(strs(rule.kinds), child(path, "kinds"), "kinds", true));
  return errs;
}

const URL_FORM = "; desired format: https://host[/path]";

function validateWebhookUrl(path: string, url: string): FieldError[] {
  const parsed = parseGoUrl(url);
  if ("error" in parsed) return [required(path, `url must be a valid URL: ${parsed.error}${URL_FORM}`)];
  const u = parsed.url;
  const errs: FieldError[] = [];
  if (u.scheme !== "https")
    errs.push(invalid(path, u.scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (!u.host) errs.push(invalid(path, u.host, `host must be specified${URL_FORM}`));
  if (u.user !== undefined) errs.push(invalid(path, u.user, "user information is not permitted in the URL"));
  if (u.fragment) errs.push(invalid(path, u.fragment, "fragments are not permitted in the URL"));
  if (u.rawQuery) errs.push(invalid(path, u.rawQuery, "query parameters are not permitted in the URL"));
  return errs;
}

function validateWebhookService(service: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(service.name)) errs.push(required(child(path, "name")));
  if (!str(service.namespace)) errs.push(required(child(path, "namespace")));
  // An unset port means 443, as the interpreter framework calls it.
  const port = typeof service.port === "number" ? service.port : 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0)
    errs.push(invalid(child(path, "port"), port, `port is not valid: ${portErrs.join(", ")}`));
  const urlPath = str(service.path);
  if (urlPath === undefined || urlPath === "" || urlPath === "/") return errs;
  const pathField = child(path, "path");
  if (urlPath === "//") return [...errs, invalid(pathField, urlPath, "segment[0] may not be empty")];
  if (!urlPath.startsWith("/")) errs.push(invalid(pathField, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith("/")) toCheck = toCheck.slice(0, -1);
  toCheck.split("/").forEach((step, i) => {
    if (step === "") {
      errs.push(invalid(pathField, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const m of isDNS1123Subdomain(step)) errs.push(invalid(pathField, urlPath, `segment[${i}]: ${m}`));
  });
  return errs;
}

function validateContextVersions(versions: string[], path: string): FieldError[] {
  if (versions.length === 0) return [required(path, `must specify one of ${CONTEXT_VERSIONS.join(", ")}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(index(path, i), v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(invalid(index(path, i), v, m));
  });
  if (!versions.some((v) => CONTEXT_VERSIONS.includes(v))) {
    errs.push(invalid(path, versions, `must include at least one of ${CONTEXT_VERSIONS.join(", ")}`));
  }
  return errs;
}

function validateWebhook(hook: Obj, path: string): FieldError[] {
  const errs = isFullyQualifiedDomainName(child(path, "name"), str(hook.name) ?? "");
  objs(hook.rules).forEach((rule, i) => {
    errs.push(...validateRule(rule, index(child(path, "rules"), i)));
  });
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === "number" && (timeout > 30 || timeout < 1)) {
    errs.push(
      invalid(child(path, "timeoutSeconds"), timeout, "the timeout value must be between 1 and 30 seconds"),
    );
  }
  const cc = obj(hook.clientConfig) ?? {};
  const url = str(cc.url);
  const service = obj(cc.service);
  if ((url === undefined) === (service === undefined)) {
    errs.push(required(child(path, "clientConfig"), "exactly one of url or service is required"));
  } else if (url !== undefined) {
    errs.push(...validateWebhookUrl(child(path, "clientConfig", "url"), url));
  } else if (service) {
    errs.push(...validateWebhookService(service, child(path, "clientConfig", "service")));
  }
  errs.push(
    ...validateContextVersions(
      strs(hook.interpreterContextVersions),
      child(path, "interpreterContextVersions"),
    ),
  );
  return errs;
}

export function validateResourceInterpreterWebhookConfiguration(
  config: StoredObject,
  _old?: StoredObject,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(config.webhooks).forEach((hook, i) => {
    const p = index("webhooks", i);
    errs.push(...validateWebhook(hook, p));
    const name = str(hook.name) ?? "";
    if (names.has(name)) errs.push(duplicate(child(p, "name"), name));
    else names.add(name);
  });
  return errs;
}
