/**
 * Snapshots of a whole store, portable between backends: `karmada snapshot save` reads every
 * key at one revision (paged, every page pinned to that revision, so the snapshot is
 * consistent while the store keeps changing) and writes newline-delimited JSON: a header,
 * one `[key, value]` line per key, and an end line carrying the count, so a cut-off file is
 * recognised. `restore` writes the keys into an empty store (a store with anything in it is
 * refused: nothing is overwritten). Revisions are the target's own: clients relist, as after
 * any new store.
 */
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { Store } from "./store.ts";

export const SNAPSHOT_FORMAT = "karmada-ts-snapshot";
export const SNAPSHOT_VERSION = 1;
const PAGE = 1000;
const RESTORE_CONCURRENCY = 32;

interface Header {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  /** The source store's revision the snapshot was read at. */
  revision: number;
  backend: string;
  savedAt: string;
}

export interface SnapshotResult {
  keys: number;
  revision: number;
  bytes: number;
}

/** Writes every key of `store` at one revision to `file` (via a temporary file, renamed when complete). */
export async function saveSnapshot(store: Store, file: string, now = new Date()): Promise<SnapshotResult> {
  const revision = await store.currentRevision();
  const tmp = `${file}.partial`;
  const out = createWriteStream(tmp, { mode: 0o600 });
  let bytes = 0;
  const write = async (line: string): Promise<void> => {
    bytes += Buffer.byteLength(line) + 1;
    if (!out.write(`${line}\n`)) await once(out, "drain");
  };
  let keys = 0;
  try {
    const header: Header = {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      revision,
      backend: store.backend,
      savedAt: now.toISOString(),
    };
    await write(JSON.stringify(header));
    let startKey: string | undefined;
    for (;;) {
      const page = await store.list("/", { revision, limit: PAGE, ...(startKey ? { startKey } : {}) });
      for (const kv of page.kvs) {
        await write(JSON.stringify([kv.key, kv.value]));
        keys++;
      }
      if (!page.more || page.kvs.length === 0) break;
      // The next page starts just after the last key (keys sort in byte order).
      startKey = `${page.kvs[page.kvs.length - 1]!.key}\u0000`;
    }
    await write(JSON.stringify({ end: true, keys }));
    out.end();
    await once(out, "finish");
    await rename(tmp, file);
  } catch (err) {
    out.destroy();
    await rm(tmp, { force: true });
    throw err;
  }
  return { keys, revision, bytes };
}

export class SnapshotError extends Error {}

/** Reads a snapshot line by line, checking its shape; `onKey` gets each key (awaited). */
async function readSnapshot(
  file: string,
  onKey: (key: string, value: string) => Promise<void> | void,
): Promise<SnapshotResult> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  let header: Header | undefined;
  let end: { keys: number } | undefined;
  let keys = 0;
  let bytes = 0;
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      bytes += Buffer.byteLength(text) + 1;
      if (end) throw new SnapshotError(`${file}:${line}: data after the end of the snapshot`);
      const parsed = parseLine(file, line, text);
      if (!header) header = checkHeader(file, parsed);
      else if (!Array.isArray(parsed)) end = checkEnd(file, line, parsed);
      else {
        const [key, value] = parsed;
        if (typeof key !== "string" || typeof value !== "string") {
          throw new SnapshotError(`${file}:${line}: expected ["key", "value"]`);
        }
        keys++;
        await onKey(key, value);
      }
    }
  } finally {
    lines.close();
  }
  if (!header) throw new SnapshotError(`${file}: empty, not a snapshot`);
  if (!end) throw new SnapshotError(`${file}: cut off (no end line after ${keys} keys)`);
  if (end.keys !== keys)
    throw new SnapshotError(`${file}: the end line counts ${end.keys} keys, the file holds ${keys}`);
  return { keys, revision: header.revision, bytes };
}

/**
 * Writes a snapshot's keys into `store`, which must be empty. The whole file is checked
 * first, so a damaged or cut-off snapshot writes nothing.
 */
export async function restoreSnapshot(store: Store, file: string): Promise<SnapshotResult> {
  await readSnapshot(file, () => {});
  const existing = await store.count("/");
  if (existing > 0) {
    throw new SnapshotError(
      `the target store is not empty (${existing} keys): restore only into an empty store`,
    );
  }
  const inFlight = new Set<Promise<void>>();
  let failed: unknown;
  const result = await readSnapshot(file, async (key, value) => {
    if (failed) throw failed;
    const write: Promise<void> = store.create(key, value).then(
      () => void inFlight.delete(write),
      (err: unknown) => {
        failed ??= err;
        inFlight.delete(write);
      },
    );
    inFlight.add(write);
    if (inFlight.size >= RESTORE_CONCURRENCY) await Promise.race(inFlight);
  });
  await Promise.all(inFlight);
  if (failed) throw failed;
  return result;
}

function parseLine(file: string, line: number, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SnapshotError(
      `${file}:${line}: not JSON; is this a snapshot written by karmada snapshot save?`,
    );
  }
}

function checkHeader(file: string, parsed: unknown): Header {
  const h = parsed as Partial<Header> | null;
  if (!h || typeof h !== "object" || h.format !== SNAPSHOT_FORMAT) {
    throw new SnapshotError(`${file}: not a snapshot written by karmada snapshot save`);
  }
  if (h.version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(
      `${file}: snapshot format version ${h.version}; this release reads version ${SNAPSHOT_VERSION}`,
    );
  }
  return h as Header;
}

function checkEnd(file: string, line: number, parsed: unknown): { keys: number } {
  const e = parsed as { end?: unknown; keys?: unknown } | null;
  if (e?.end !== true || typeof e.keys !== "number")
    throw new SnapshotError(`${file}:${line}: expected ["key", "value"]`);
  return { keys: e.keys };
}
