/**
 * The tests CI runs on every other supported Node.js major (22 and 24; the machine's Node 20
 * runs the whole suite): the parts of the product that can break when only Node changes,
 * small enough that each Node, `npm ci` included, takes about two minutes.
 * `scripts/test-on-node.sh` runs it in a copy of the checkout installed with that Node.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

/** Each file, with what in it depends on the Node it runs on. */
export const NODE_VERSION_SUBSET = [
  // better-sqlite3, a native addon compiled per Node ABI: the store, its backups and restores.
  "src/storage/sqlite/store.test.ts",
  "src/storage/snapshot.test.ts",
  // node:crypto and WebCrypto behind @peculiar/x509: CAs, certificates, CSRs, signed tokens.
  "src/pki/x509.test.ts",
  "src/pki/jws.test.ts",
  "src/apiserver/authn/authn.test.ts",
  // The Lua VM in WebAssembly (wasmoon), on upstream's third-party customizations.
  "src/interpreter/lua/engine.test.ts",
  "src/interpreter/lua/corpus.test.ts",
  // node:http/https/tls clients and servers: kubeconfig TLS, exec plugins, split watch streams.
  "src/client/http.test.ts",
  "test/e2e/http.test.ts",
  "test/e2e/smoke.test.ts",
  // @kubernetes/client-node 1.x (node-fetch) over the wire, its watches and informers.
  "test/e2e/client-node.test.ts",
  // The real kubectl's watches and waits.
  "test/e2e/kubectl-watch.test.ts",
  // prom-client's process, event-loop and GC metrics, read from this Node's runtime.
  "src/metrics/registry.test.ts",
  // The dashboard: bundled by esbuild (a native binary it spawns) at start and driven in
  // Debian's Chromium through playwright-core, over a fleet's worth of live rows.
  "test/e2e/dashboard-scale.test.ts",
  // Child processes loading TypeScript through tsx: `karmada up` with members as processes,
  // signals, resuming from its SQLite files; the member simulator as a process; karmadactl
  // starting an editor.
  "test/e2e/up.test.ts",
  "test/e2e/member-sim.test.ts",
  "test/e2e/karmadactl-interpret-edit.test.ts",
];

// A renamed or deleted file would otherwise shrink the subset without a word.
const missing = NODE_VERSION_SUBSET.filter(
  (file) => !existsSync(fileURLToPath(new URL(file, import.meta.url))),
);
if (missing.length > 0)
  throw new Error(`vitest.node-versions.config.ts lists missing files: ${missing.join(", ")}`);

export default defineConfig({
  ...base,
  test: { ...base.test, include: NODE_VERSION_SUBSET },
});
