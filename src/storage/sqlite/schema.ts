/**
 * The on-disk layout of the SQLite backend: one append-only log of every write, in the
 * shape kine made familiar, plus a tiny table of bookkeeping values.
 *
 * `kv_log`: one row per create, update and delete. The row id is the revision.
 * - create: `created = 1`, `prev_revision` = the key's tombstone if it was deleted before, else 0.
 * - update: `prev_revision` = the row it replaces, `old_value` = that row's value.
 * - delete: `deleted = 1`, `value` NULL, `prev_revision` and `old_value` as for an update.
 * The current state of a key is its newest row, unless that row is a tombstone.
 *
 * `kv_meta`: `compact_revision` (reads below it fail) and `compact_progress` (rows at or
 * below it have been pruned; it trails `compact_revision` only while a compaction runs).
 */

export const SCHEMA_VERSION = 1;

export const CREATE_SCHEMA = `
CREATE TABLE IF NOT EXISTS kv_log (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT,
  old_value TEXT
);
-- Newest row per key, and key ranges at any revision, straight from the index; carrying
-- "deleted" lets list and count skip tombstones without touching the table.
CREATE INDEX IF NOT EXISTS kv_log_name_id ON kv_log (name, id, deleted);
-- Compare-and-swap backstop: two rows can never replace the same revision of a key.
CREATE UNIQUE INDEX IF NOT EXISTS kv_log_name_prev_revision ON kv_log (name, prev_revision);
CREATE TABLE IF NOT EXISTS kv_meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO kv_meta (name, value) VALUES
  ('schema_version', ${SCHEMA_VERSION}),
  ('compact_revision', 1),
  ('compact_progress', 1);
`;

/** Every statement the store runs, named, so tests can check their query plans. */
export const SQL = {
  meta: "SELECT value FROM kv_meta WHERE name = ?",
  setMeta: "UPDATE kv_meta SET value = ? WHERE name = ?",
  maxRevision: "SELECT MAX(id) FROM kv_log",
  head: "SELECT id, deleted, create_revision, value FROM kv_log WHERE name = ? ORDER BY id DESC LIMIT 1",
  headAt:
    "SELECT id, deleted, create_revision, value FROM kv_log WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1",
  insert: `INSERT INTO kv_log (id, name, created, deleted, create_revision, prev_revision, value, old_value)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  // Newest row per key at or below a revision, tombstones dropped, in key order. The limit
  // sits inside the grouped subquery so that a page never sorts more than a page.
  list: `SELECT l.id, l.name, l.create_revision, l.value
    FROM (SELECT name, MAX(id) AS id FROM kv_log
          WHERE name >= ? AND name < ? AND id <= ?
          GROUP BY name HAVING deleted = 0 ORDER BY name LIMIT ?) AS m
    JOIN kv_log AS l ON l.id = m.id
    ORDER BY l.name`,
  count: `SELECT COUNT(*) FROM (SELECT MAX(id) FROM kv_log
    WHERE name >= ? AND name < ? AND id <= ?
    GROUP BY name HAVING deleted = 0) AS m`,
  // "+name" keeps the planner on the rowid range: a resuming watcher reads forward from its
  // revision, which is recent in the common case.
  history: "SELECT * FROM kv_log WHERE id > ? AND +name >= ? AND +name < ? ORDER BY id",
  // A row is superseded once a later row that names it as prev_revision is itself at or
  // below the compaction target; tombstones at or below the target leave nothing to read.
  pruneSuperseded: `DELETE FROM kv_log WHERE id IN
    (SELECT prev_revision FROM kv_log WHERE id > ? AND id <= ? AND prev_revision > 0)`,
  pruneTombstones: "DELETE FROM kv_log WHERE id > ? AND id <= ? AND deleted = 1",
} as const;
