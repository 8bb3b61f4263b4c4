/** Defaults of `discovery.k8s.io/v1` EndpointSlice (kubernetes `pkg/apis/discovery/v1/defaults.go`). */

import { type Obj, objs, setDefault } from "../validation/json.ts";

export function defaultEndpointSlice(slice: Obj): void {
  for (const p of objs(slice.ports)) {
    setDefault(p, "name", "");
    setDefault(p, "protocol", "TCP");
  }
}
