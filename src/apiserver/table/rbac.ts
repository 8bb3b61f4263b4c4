/** Printers of the `rbac.authorization.k8s.io` bindings; Role and ClusterRole use the default table. */

import { AGE_COLUMN, ageOf, column, fieldColumn, NAME_COLUMN, nameOf } from "./cells.ts";
import { list, str } from "./read.ts";
import type { KindPrinter, TableColumnDefinition } from "./types.ts";

/** Subject names by kind: users, groups and `namespace/name` of service accounts. */
function subjects(
  binding: Record<string, unknown>,
): [users: string, groups: string, serviceAccounts: string] {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const subject of list(binding, "subjects")) {
    const name = str(subject, "name");
    switch (str(subject, "kind")) {
      case "User":
        users.push(name);
        break;
      case "Group":
        groups.push(name);
        break;
      case "ServiceAccount":
        serviceAccounts.push(`${str(subject, "namespace")}/${name}`);
        break;
    }
  }
  return [users.join(", "), groups.join(", "), serviceAccounts.join(", ")];
}

function bindingPrinter(
  roleRefDoc: "RoleBinding.roleRef" | "ClusterRoleBinding.roleRef",
  noun: string,
): KindPrinter {
  const columns: TableColumnDefinition[] = [
    NAME_COLUMN,
    fieldColumn("Role", "string", roleRefDoc),
    AGE_COLUMN,
    column("Users", "string", `Users in the ${noun}`, { priority: 1 }),
    column("Groups", "string", `Groups in the ${noun}`, { priority: 1 }),
    column("ServiceAccounts", "string", `ServiceAccounts in the ${noun}`, { priority: 1 }),
  ];
  return {
    columns,
    row: (binding, now) => [
      nameOf(binding),
      `${str(binding, "roleRef", "kind")}/${str(binding, "roleRef", "name")}`,
      ageOf(binding, now),
      ...subjects(binding),
    ],
  };
}

export const roleBindingPrinter = bindingPrinter("RoleBinding.roleRef", "roleBinding");
export const clusterRoleBindingPrinter = bindingPrinter("ClusterRoleBinding.roleRef", "clusterRoleBinding");
