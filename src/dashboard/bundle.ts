/**
 * The browser app, bundled in memory by esbuild when the dashboard starts: the Preact sources
 * in web/ become one script and one stylesheet, served by the dashboard itself. Nothing is
 * generated into the repository and nothing is fetched from the network (no CDN, no web
 * fonts). One build per process, shared by every dashboard it runs.
 */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export interface WebAssets {
  js: Buffer;
  css: Buffer;
  /** A hash of both, for ETags. */
  etag: string;
}

const ENTRY = fileURLToPath(new URL("./web/main.tsx", import.meta.url));

async function bundle(): Promise<WebAssets> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: true,
    legalComments: "none",
    outdir: "/dashboard",
    logLevel: "silent",
  });
  const file = (ext: string): Buffer => {
    const out = result.outputFiles.find((f) => f.path.endsWith(ext));
    if (!out) throw new Error(`the dashboard bundle has no ${ext} output`);
    return Buffer.from(out.contents);
  };
  const js = file(".js");
  const css = file(".css");
  const etag = `"${createHash("sha256").update(js).update(css).digest("hex").slice(0, 16)}"`;
  return { js, css, etag };
}

let built: Promise<WebAssets> | undefined;

/** The bundled app (built on first call). */
export function webAssets(): Promise<WebAssets> {
  built ??= bundle().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}
