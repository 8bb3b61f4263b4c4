/** Defaults of `apiextensions.k8s.io/v1` CustomResourceDefinition (apiextensions-apiserver `v1/defaults.go`). */

import { ensureObj, type Obj, obj, objs, setDefault, setDefaultString, str } from "../validation/json.ts";

export function defaultCustomResourceDefinition(crd: Obj): void {
  const spec = ensureObj(crd, "spec");
  const names = ensureObj(spec, "names");
  const kind = str(names.kind) ?? "";
  setDefaultString(names, "singular", kind.toLowerCase());
  if (kind) setDefaultString(names, "listKind", `${kind}List`);
  setDefault(spec, "conversion", { strategy: "None" });
  const service = obj(obj(obj(obj(spec.conversion)?.webhook)?.clientConfig)?.service);
  if (service) setDefault(service, "port", 443);
  const stored = obj(crd.status)?.storedVersions;
  if (!Array.isArray(stored) || stored.length === 0) {
    const storage = objs(spec.versions).find((v) => v.storage === true);
    if (storage) ensureObj(crd, "status").storedVersions = [str(storage.name) ?? ""];
  }
}
