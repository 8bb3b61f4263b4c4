/**
 * Child process for the crash test: writes to a SQLite store in a loop, logging each write
 * to a file before and after it commits, until the parent kills it (or a bound is reached).
 * Usage: node --import tsx write-loop.ts <db path> <log path>
 */
import { openSync, writeSync } from "node:fs";
import { SqliteStore } from "../store.ts";

const [path, logPath] = process.argv.slice(2);
if (!path || !logPath) throw new Error("usage: write-loop.ts <db path> <log path>");
const store = new SqliteStore(path);
const log = openSync(logPath, "a");
const value = JSON.stringify({ kind: "ConfigMap", data: { payload: "p".repeat(2000) } });

/**
 * Announces a write, runs it, then records its revision, so the parent learns which write
 * was in flight. `writeSync` to a file returns once the kernel holds the line, so a killed
 * process cannot take an acknowledgement with it (stdout might still sit in a user-space buffer).
 */
async function write(op: string, key: string, run: () => Promise<{ modRevision: number }>): Promise<number> {
  writeSync(log, `${JSON.stringify({ op, key })}\n`);
  const { modRevision } = await run();
  writeSync(log, `${JSON.stringify({ op, key, revision: modRevision })}\n`);
  return modRevision;
}

for (let i = 0; i < 100_000; i++) {
  const key = `/crash/${String(i).padStart(6, "0")}`;
  const created = await write("create", key, () => store.create(key, value));
  await write("update", key, () => store.update(key, `${value} `, created));
  if (i >= 10 && i % 10 === 0) {
    const old = `/crash/${String(i - 10).padStart(6, "0")}`;
    await write("delete", old, () => store.delete(old));
  }
}
await store.close();
