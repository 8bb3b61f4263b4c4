/** `meta.k8s.io/v1` Table and the shape of a per-kind printer. */

/** `metav1.TableColumnDefinition`; every field is always present on the wire. */
export interface TableColumnDefinition {
  name: string;
  /** `string`, `integer`, `number`, `boolean` or `date`. */
  type: string;
  /** `name` marks the column holding the object name; usually empty. */
  format: string;
  description: string;
  /** 0 = always shown; greater = only with `kubectl get -o wide`. */
  priority: number;
}

/** `metav1.TableRowCondition`. */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** A cell as sent on the wire: a string, a number, a boolean, or null for "no value". */
export type Cell = string | number | boolean | null;

/** `metav1.TableRow`. */
export interface TableRow {
  cells: Cell[];
  conditions?: TableRowCondition[];
  /** PartialObjectMetadata (default), the full object (`includeObject=Object`), or absent (`None`). */
  object?: unknown;
}

/** `metav1.Table`. */
export interface Table {
  kind: "Table";
  apiVersion: "meta.k8s.io/v1";
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** A Kubernetes object as JSON. */
export type KubeObject = Record<string, unknown>;

/**
 * How one kind is printed: its columns and a row function producing one cell per column.
 * The server always prints wide, so rows carry cells for the priority > 0 columns too;
 * kubectl hides those without `-o wide`.
 */
export interface KindPrinter {
  columns: readonly TableColumnDefinition[];
  row(obj: KubeObject, now: number): Cell[];
  conditions?(obj: KubeObject): TableRowCondition[] | undefined;
}
