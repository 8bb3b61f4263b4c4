/**
 * What an admission step is asked to admit: admission.k8s.io/v1 AdmissionRequest's
 * `operation`, less CONNECT (no resource served here admits connections).
 */
export type Operation = "CREATE" | "UPDATE" | "DELETE";
