/**
 * The registry of Karmada's kinds.
 *
 * `karmadaCrds` are installed as CustomResourceDefinition objects, as upstream installs them.
 * `karmadaNativeKinds` have the same shape but are served by our server directly, the way
 * upstream serves them from its aggregated API servers.
 */

import type { CustomResourceDefinition } from "../schema.ts";
import { workloadRebalancerCrd } from "./apps.ts";
import { cronFederatedHPACrd, federatedHPACrd } from "./autoscaling.ts";
import { clusterCrd } from "./cluster.ts";
import { resourceInterpreterCustomizationCrd, resourceInterpreterWebhookConfigurationCrd } from "./config.ts";
import { serviceExportCrd, serviceImportCrd } from "./multicluster.ts";
import { multiClusterIngressCrd, multiClusterServiceCrd } from "./networking.ts";
import {
  clusterOverridePolicyCrd,
  clusterPropagationPolicyCrd,
  clusterTaintPolicyCrd,
  federatedResourceQuotaCrd,
  overridePolicyCrd,
  propagationPolicyCrd,
} from "./policy.ts";
import { remedyCrd } from "./remedy.ts";
import { resourceRegistryCrd } from "./search.ts";
import { clusterResourceBindingCrd, resourceBindingCrd, workCrd } from "./work.ts";

export const karmadaCrds: CustomResourceDefinition[] = [
  propagationPolicyCrd,
  clusterPropagationPolicyCrd,
  overridePolicyCrd,
  clusterOverridePolicyCrd,
  clusterTaintPolicyCrd,
  federatedResourceQuotaCrd,
  workCrd,
  resourceBindingCrd,
  clusterResourceBindingCrd,
  resourceInterpreterCustomizationCrd,
  resourceInterpreterWebhookConfigurationCrd,
  workloadRebalancerCrd,
  federatedHPACrd,
  cronFederatedHPACrd,
  multiClusterIngressCrd,
  multiClusterServiceCrd,
  remedyCrd,
  serviceExportCrd,
  serviceImportCrd,
];

export const karmadaNativeKinds: CustomResourceDefinition[] = [clusterCrd, resourceRegistryCrd];
