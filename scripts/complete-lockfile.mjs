#!/usr/bin/env node
// Adds lockfile entries for Biome's platform binaries that npm left out.
//
// The npm registry reachable from our machines serves only the Linux builds of
// @biomejs/cli-*, so npm 11 writes no lockfile entries for the other platforms, and then
// `npm ci` refuses the lockfile ("Missing: @biomejs/cli-win32-x64@... from lock file").
// The entries only need to exist: on Linux npm skips them as optional and never fetches
// them. Run after any `npm install` that rewrites package-lock.json (`npm run fix-lock`).
import { readFileSync, writeFileSync } from "node:fs";

const PLATFORMS = {
  "android-arm64": { os: "android", cpu: "arm64" },
  "android-x64": { os: "android", cpu: "x64" },
  "darwin-arm64": { os: "darwin", cpu: "arm64" },
  "darwin-x64": { os: "darwin", cpu: "x64" },
  "linux-arm64": { os: "linux", cpu: "arm64", libc: "glibc" },
  "linux-arm64-musl": { os: "linux", cpu: "arm64", libc: "musl" },
  "linux-x64": { os: "linux", cpu: "x64", libc: "glibc" },
  "linux-x64-musl": { os: "linux", cpu: "x64", libc: "musl" },
  "win32-arm64": { os: "win32", cpu: "arm64" },
  "win32-x64": { os: "win32", cpu: "x64" },
};

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const biome = lock.packages["node_modules/@biomejs/biome"];
let added = 0;
for (const [name, version] of Object.entries(biome?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  const platform = PLATFORMS[name.replace("@biomejs/cli-", "")];
  if (lock.packages[key] || !platform) continue;
  const entry = { version, cpu: [platform.cpu], dev: true, license: "MIT OR Apache-2.0", optional: true, os: [platform.os] };
  if (platform.libc) entry.libc = [platform.libc];
  lock.packages[key] = { ...entry, engines: { node: ">=14.21.3" } };
  added++;
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)));
writeFileSync(path, `${JSON.stringify({ ...lock, packages: sorted }, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} entries`);
