/**
 * Our bundled third-party interpreters: ResourceInterpreterCustomizations we wrote for popular
 * CRDs (Flink, Argo, Kruise, Kubeflow, Volcano, Flux, Kyverno, Ray, Spark), one module per API
 * group family in this directory (plus any `*.yaml` here, several documents each). They rank
 * below the user's customizations and webhooks and above the native interpreter, as upstream's
 * thirdparty interpreter does.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { StoredObject } from "../../api/meta.ts";
import { FLINK } from "./flink.ts";
import { FLUX } from "./flux.ts";
import { KRUISE } from "./kruise.ts";
import { KUBEFLOW } from "./kubeflow.ts";
import { RAY } from "./ray.ts";

const DIR = fileURLToPath(new URL(".", import.meta.url));

function loadYaml(): StoredObject[] {
  const out: StoredObject[] = [];
  for (const file of readdirSync(DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    for (const doc of parseAllDocuments(readFileSync(`${DIR}${file}`, "utf8"))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
      const obj = doc.toJS() as StoredObject | null;
      if (obj?.kind === "ResourceInterpreterCustomization") out.push(obj);
    }
  }
  return out;
}

export const BUNDLED_CUSTOMIZATIONS: readonly StoredObject[] = [
  ...KRUISE,
  ...FLUX,
  ...KUBEFLOW,
  ...RAY,
  ...FLINK,
  ...loadYaml(),
];
