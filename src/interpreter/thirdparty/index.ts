/**
 * Our bundled third-party interpreters: ResourceInterpreterCustomizations we wrote for popular
 * CRDs (Flink, Argo, Kruise, Kubeflow, Volcano, Flux, Kyverno, Ray, Spark), the Flink one as a
 * module (flink.ts) and the others as one YAML file per API group in this directory (several
 * documents each). They rank below the user's customizations and webhooks and above the
 * native interpreter, as upstream's thirdparty interpreter does.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { NewObject } from "../../api/meta.ts";
import { FLINK } from "./flink.ts";

const DIR = fileURLToPath(new URL(".", import.meta.url));

function loadYaml(): NewObject[] {
  const out: NewObject[] = [];
  for (const file of readdirSync(DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    for (const doc of parseAllDocuments(readFileSync(`${DIR}${file}`, "utf8"))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
      const obj = doc.toJS() as NewObject | null;
      if (obj?.kind === "ResourceInterpreterCustomization") out.push(obj);
    }
  }
  return out;
}

export const BUNDLED_CUSTOMIZATIONS: readonly NewObject[] = [...FLINK, ...loadYaml()];
