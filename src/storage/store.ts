/**
 * The storage seam: a revisioned key-value store with watch, in the shape of etcd v3
 * (and of k3s's kine, which maps the same verbs onto SQL). Values are opaque strings
 * (JSON text in practice); the store never decodes them.
 *
 * Revisions are global and strictly increasing: every create, update and delete gets the
 * next one. An object's `resourceVersion` is the `modRevision` of its key; a list's is the
 * revision the read was served at.
 */

export interface KeyValue {
  key: string;
  value: string;
  /** Revision at which the key was (last) created. */
  createRevision: number;
  /** Revision of the last write to the key. */
  modRevision: number;
}

export interface GetResult {
  kv: KeyValue | undefined;
  /** The store revision the read was served at. */
  revision: number;
}

export interface ListOptions {
  /** Read the state as of this revision (0 or absent: the latest). Below the compacted revision: `CompactedError`. */
  revision?: number;
  /** Return at most this many keys (0 or absent: no limit). */
  limit?: number;
  /** First key to return (inclusive); keys sort in byte order. Must start with the prefix. */
  startKey?: string;
}

export interface ListResult {
  kvs: KeyValue[];
  /** True when keys after the last returned one remain under the prefix. */
  more: boolean;
  /** How many keys remain under the prefix after the returned ones (when `more`). */
  remaining: number;
  revision: number;
}

export type WatchEventType = "put" | "delete";

export interface WatchEvent {
  type: WatchEventType;
  /** For `put`: the new value. For `delete`: the key with an empty value and the deletion's revision. */
  kv: KeyValue;
  /** The value before this event (absent for creates). */
  prevKv?: KeyValue;
}

export interface WatchHandlers {
  /** Events in revision order; one call may carry several events. */
  onEvents(events: WatchEvent[]): void;
  /** The watch ended with an error (compaction, lost backend). No more events follow. */
  onError(err: Error): void;
  /**
   * Optional progress notice: every event up to `revision` under the prefix has been delivered.
   * Lets watchers advance their bookmark while nothing under their prefix changes.
   */
  onProgress?(revision: number): void;
}

export interface Watch {
  close(): void;
}

export interface Store {
  /** Backend name for logs and benchmarks: `memory`, `sqlite`, `etcd`. */
  readonly backend: string;

  get(key: string, options?: { revision?: number }): Promise<GetResult>;

  /** Keys under `prefix` in key order. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;

  /** How many keys live under `prefix` now. */
  count(prefix: string): Promise<number>;

  /** Creates a key that does not exist. Throws `KeyExistsError` otherwise. */
  create(key: string, value: string): Promise<KeyValue>;

  /**
   * Replaces the value of an existing key if its modRevision equals `expectedRevision`.
   * Throws `KeyNotFoundError` if absent, `RevisionMismatchError` (carrying the current kv) if not.
   */
  update(key: string, value: string, expectedRevision: number): Promise<KeyValue>;

  /**
   * Deletes a key, if `expectedRevision` is given only when it matches.
   * Returns the last value with `modRevision` set to the deletion's revision.
   */
  delete(key: string, expectedRevision?: number): Promise<KeyValue>;

  /**
   * Streams every change under `prefix` with revision greater than `afterRevision`
   * (history first, then live changes), in revision order.
   * `afterRevision` below the compacted revision: `onError` with a `CompactedError`.
   */
  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): Watch;

  /** The latest revision. */
  currentRevision(): Promise<number>;

  /** The oldest revision still readable (everything at or below it may be gone). */
  compactedRevision(): Promise<number>;

  /**
   * Optional: tells watchers that have seen every event so far that they are current (their
   * `onProgress` gets the store's revision), so quiet watches can bookmark a fresh revision.
   */
  notifyProgress?(): void;

  /** Drops history at and below `revision`: superseded values and deletion records. */
  compact(revision: number): Promise<void>;

  close(): Promise<void>;
}

export class KeyExistsError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`key already exists: ${key}`);
    this.key = key;
    this.name = "KeyExistsError";
  }
}

export class KeyNotFoundError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`key not found: ${key}`);
    this.key = key;
    this.name = "KeyNotFoundError";
  }
}

export class RevisionMismatchError extends Error {
  readonly key: string;
  readonly current: KeyValue;
  constructor(key: string, current: KeyValue) {
    super(`revision mismatch for ${key}: current ${current.modRevision}`);
    this.key = key;
    this.current = current;
    this.name = "RevisionMismatchError";
  }
}

/** The requested revision has been compacted away. */
export class CompactedError extends Error {
  readonly requested: number;
  readonly compacted: number;
  constructor(requested: number, compacted: number) {
    super(`required revision ${requested} has been compacted (compacted revision ${compacted})`);
    this.requested = requested;
    this.compacted = compacted;
    this.name = "CompactedError";
  }
}

/** The requested revision is newer than the store's. */
export class FutureRevisionError extends Error {
  readonly requested: number;
  readonly current: number;
  constructor(requested: number, current: number) {
    super(`required revision ${requested} is a future revision (current ${current})`);
    this.requested = requested;
    this.current = current;
    this.name = "FutureRevisionError";
  }
}

/** The smallest key greater than every key starting with `prefix`. */
export function prefixEnd(prefix: string): string {
  return prefix + "\uffff";
}
