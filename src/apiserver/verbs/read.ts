/**
 * get and list: single objects and pages of collections, with resourceVersion semantics,
 * selectors and continue tokens at a fixed revision.
 */
import type { StoredObject } from "../../api/meta.ts";
import { badRequest, expired, invalid, notFound } from "../../machinery/errors.ts";
import { CompactedError } from "../../storage/store.ts";
import type { ServerContext } from "../context.ts";
import { decodeStored, tooLargeResourceVersion, translateStoreError } from "../objects.ts";
import { type ResourceType, resourceRef, storageKey, storagePrefix } from "../resource-type.ts";
import { parseSelection } from "../selection.ts";

/** Waits (briefly) until the store has reached `revision`; then the caller may read. */
export async function waitForRevision(server: ServerContext, revision: number): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const current = await server.store.currentRevision();
    if (current >= revision) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw tooLargeResourceVersion(revision, await server.store.currentRevision());
}

export function parseResourceVersion(
  value: string | undefined | null,
  what = "resourceVersion",
): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`invalid ${what}: ${JSON.stringify(value)}`);
  return Number(value);
}

export async function getObject(
  server: ServerContext,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
  resourceVersion?: string,
): Promise<StoredObject> {
  const rv = parseResourceVersion(resourceVersion);
  if (rv !== undefined && rv > 0) await waitForRevision(server, rv);
  const { kv } = await server.store.get(storageKey(rt, namespace, name));
  if (!kv) throw notFound(resourceRef(rt), name);
  return decodeStored(rt, kv);
}

export interface ListParams {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListPage {
  items: StoredObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start } satisfies ContinueToken)).toString(
    "base64url",
  );
}

function decodeContinue(token: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as ContinueToken;
    if (parsed.v !== "meta.k8s.io/v1" || typeof parsed.rv !== "number" || typeof parsed.start !== "string")
      throw new Error();
    return parsed;
  } catch {
    throw badRequest("continue key is not valid: the format of the continue token is invalid");
  }
}

function listOptionsInvalid(field: string, value: unknown, detail: string): never {
  throw invalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", [
    { type: "FieldValueForbidden", field, value, detail },
  ]);
}

export async function listObjects(
  server: ServerContext,
  rt: ResourceType,
  namespace: string | undefined,
  params: ListParams,
): Promise<ListPage> {
  const selection = parseSelection(rt, params.labelSelector, params.fieldSelector);
  const limit = params.limit && params.limit > 0 ? params.limit : 0;
  const prefix = storagePrefix(rt, namespace);
  const match = params.resourceVersionMatch ?? "";
  if (match && params.resourceVersion === undefined) {
    listOptionsInvalid(
      "resourceVersionMatch",
      match,
      "resourceVersionMatch is forbidden unless resourceVersion is provided",
    );
  }
  if (match && params.continue) {
    listOptionsInvalid(
      "resourceVersionMatch",
      match,
      "resourceVersionMatch is forbidden when continue is provided",
    );
  }
  if (match && match !== "Exact" && match !== "NotOlderThan") {
    throw invalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", [
      {
        type: "FieldValueNotSupported",
        field: "resourceVersionMatch",
        value: match,
        detail: `supported values: "Exact", "NotOlderThan", ""`,
      },
    ]);
  }

  let readRevision: number | undefined;
  let start = prefix;
  if (params.continue) {
    const token = decodeContinue(params.continue);
    start = prefix + token.start;
    readRevision = token.rv > 0 ? token.rv : undefined;
  } else {
    const rv = parseResourceVersion(params.resourceVersion);
    if (match === "Exact") {
      if (!rv)
        listOptionsInvalid(
          "resourceVersionMatch",
          match,
          `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`,
        );
      await waitForRevision(server, rv);
      readRevision = rv;
    } else if (rv !== undefined && rv > 0) {
      await waitForRevision(server, rv);
      // Legacy semantics: a resourceVersion with a limit and no match means "exactly at".
      if (!match && limit > 0) readRevision = rv;
    }
  }

  const items: StoredObject[] = [];
  let revision = readRevision;
  let nextStart: string | undefined;
  let remaining = 0;
  const batch = limit > 0 ? Math.max(limit, selection.everything ? limit : 256) : 0;
  try {
    for (;;) {
      const page = await server.store.list(prefix, {
        startKey: start,
        limit: batch,
        ...(revision ? { revision } : {}),
      });
      revision = page.revision;
      let i = 0;
      for (; i < page.kvs.length; i++) {
        const kv = page.kvs[i]!;
        if (limit > 0 && items.length === limit) break;
        const obj = decodeStored(rt, kv);
        if (selection.test(obj)) items.push(obj);
      }
      const last = page.kvs[i - 1];
      if (limit > 0 && items.length === limit && (i < page.kvs.length || page.more)) {
        nextStart = `${last!.key}\u0000`;
        remaining = page.kvs.length - i + page.remaining;
        break;
      }
      if (!page.more || !last) break;
      start = `${last.key}\u0000`;
    }
  } catch (err) {
    if (err instanceof CompactedError && params.continue) {
      throw expired(
        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
        encodeContinue(-1, start.slice(prefix.length)),
      );
    }
    throw translateStoreError(rt, "", err);
  }
  const out: ListPage = {
    items,
    resourceVersion: String(revision ?? (await server.store.currentRevision())),
  };
  if (nextStart !== undefined) {
    out.continue = encodeContinue(revision ?? 0, nextStart.slice(prefix.length));
    if (selection.everything) out.remainingItemCount = remaining;
  }
  return out;
}
