/**
 * Our interpreters for kubeflow kinds (written for karmada-ts; upstream's corpus is the spec).
 */
import type { StoredObject } from "../../api/meta.ts";

export const KUBEFLOW: StoredObject[] = [];
