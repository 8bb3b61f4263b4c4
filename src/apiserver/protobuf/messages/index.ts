import type { PackageTable } from "../schema.ts";
import { apiextensionsV1 } from "./apiextensions-v1.ts";
import { appsV1 } from "./apps-v1.ts";
import { authenticationV1 } from "./authentication-v1.ts";
import { authorizationV1 } from "./authorization-v1.ts";
import { autoscalingV1 } from "./autoscaling-v1.ts";
import { autoscalingV2 } from "./autoscaling-v2.ts";
import { batchV1 } from "./batch-v1.ts";
import { certificatesV1 } from "./certificates-v1.ts";
import { coordinationV1 } from "./coordination-v1.ts";
import { coreV1 } from "./core-v1.ts";
import { discoveryV1 } from "./discovery-v1.ts";
import { eventsV1 } from "./events-v1.ts";
import { metaV1 } from "./meta-v1.ts";
import { networkingV1 } from "./networking-v1.ts";
import { policyV1 } from "./policy-v1.ts";
import { rbacV1 } from "./rbac-v1.ts";
import { schedulingV1 } from "./scheduling-v1.ts";
import { storageV1 } from "./storage-v1.ts";

/** Every package whose messages we decode. Adding a group version = adding its table here. */
export const BUILTIN_PACKAGES: readonly PackageTable[] = [
  metaV1,
  coreV1,
  appsV1,
  batchV1,
  coordinationV1,
  eventsV1,
  networkingV1,
  policyV1,
  autoscalingV1,
  autoscalingV2,
  certificatesV1,
  authorizationV1,
  authenticationV1,
  rbacV1,
  schedulingV1,
  discoveryV1,
  storageV1,
  apiextensionsV1,
];
