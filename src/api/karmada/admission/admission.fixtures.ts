/**
 * For the admission tests: deterministic contexts, upstream sample objects as the server
 * would hand them over (schema-defaulted), and field errors rendered as clients read them.
 */

import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { type FieldError, fieldErrorMessage } from "../../../machinery/errors.ts";
import { cloneJson } from "../../../machinery/merge-patch.ts";
import { applySchemaDefaults } from "../../../machinery/structural.ts";
import type { StoredObject } from "../../meta.ts";
import type { CustomResourceDefinition } from "../../schema.ts";
import type { MutationContext } from "./context.ts";

/** 2024-01-02T03:04:05Z */
export const NOW = Date.UTC(2024, 0, 2, 3, 4, 5);

/** Hands out `uid-1`, `uid-2`, ... */
export function testContext(): MutationContext {
  let n = 0;
  return { newUid: () => `uid-${++n}`, now: () => NOW };
}

export function rendered(errors: FieldError[]): string[] {
  return errors.map(fieldErrorMessage);
}

/** The object with the CRD's structural defaults applied, as the server passes it to admission. */
export function defaulted(crd: CustomResourceDefinition, obj: Record<string, unknown>): StoredObject {
  const copy = cloneJson(obj) as StoredObject;
  copy.metadata ??= { name: "", uid: "" };
  const schema = crd.spec.versions.find((v) => v.storage)?.schema?.openAPIV3Schema;
  if (schema) applySchemaDefaults(copy, schema);
  return copy;
}

const SAMPLES = new URL("../../../../../shared/conformance/karmada/samples/", import.meta.url);

/** Every document of an upstream sample file. */
export function loadSample(path: string): StoredObject[] {
  const text = readFileSync(new URL(path, SAMPLES), "utf8");
  return text
    .split(/^---$/m)
    .map((doc) => parse(doc) as StoredObject | null)
    .filter((d): d is StoredObject => d !== null);
}

export function object(
  apiVersion: string,
  kind: string,
  metadata: StoredObject["metadata"],
  fields: Record<string, unknown>,
): StoredObject {
  return { apiVersion, kind, metadata, ...fields };
}
