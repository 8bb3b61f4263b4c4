import type { PackageTable } from "../schema.ts";

/** apiextensions.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const apiextensionsV1: PackageTable = {
  package: "apiextensions.v1",
  apiVersion: "apiextensions.k8s.io/v1",
  kinds: ["CustomResourceDefinition"],
  messages: `
CustomResourceColumnDefinition
  name 1 string
  type 2 string
  format 3 string omitempty
  description 4 string omitempty
  priority 5 int32 omitempty
  jsonPath 6 string
CustomResourceConversion
  strategy 1 string
  webhook 2 *WebhookConversion
CustomResourceDefinition
  metadata 1 meta.v1.ObjectMeta
  spec 2 CustomResourceDefinitionSpec
  status 3 CustomResourceDefinitionStatus
CustomResourceDefinitionCondition
  type 1 string
  status 2 string
  lastTransitionTime 3 time
  reason 4 string omitempty
  message 5 string omitempty
  observedGeneration 6 int64 omitempty
CustomResourceDefinitionNames
  plural 1 string
  singular 2 string omitempty
  shortNames 3 []string
  kind 4 string
  listKind 5 string omitempty
  categories 6 []string
CustomResourceDefinitionSpec
  group 1 string
  names 3 CustomResourceDefinitionNames
  scope 4 string
  versions 7 []CustomResourceDefinitionVersion
  conversion 9 *CustomResourceConversion
  preserveUnknownFields 10 bool omitempty
CustomResourceDefinitionStatus
  conditions 1 []CustomResourceDefinitionCondition
  acceptedNames 2 CustomResourceDefinitionNames
  storedVersions 3 []string
  observedGeneration 4 int64 omitempty
CustomResourceDefinitionVersion
  name 1 string
  served 2 bool
  storage 3 bool
  deprecated 7 bool omitempty
  deprecationWarning 8 *string
  schema 4 *CustomResourceValidation
  subresources 5 *CustomResourceSubresources
  additionalPrinterColumns 6 []CustomResourceColumnDefinition
  selectableFields 9 []SelectableField
CustomResourceSubresourceScale
  specReplicasPath 1 string
  statusReplicasPath 2 string
  labelSelectorPath 3 *string
CustomResourceSubresourceStatus
CustomResourceSubresources
  status 1 *CustomResourceSubresourceStatus
  scale 2 *CustomResourceSubresourceScale
CustomResourceValidation
  openAPIV3Schema 1 *JSONSchemaProps
ExternalDocumentation
  description 1 string omitempty
  url 2 string omitempty
JSONSchemaProps
  id 1 string omitempty
  $schema 2 string omitempty
  $ref 3 *string
  description 4 string omitempty
  type 5 string omitempty
  format 6 string omitempty
  title 7 string omitempty
  default 8 *json
  maximum 9 *double
  exclusiveMaximum 10 bool omitempty
  minimum 11 *double
  exclusiveMinimum 12 bool omitempty
  maxLength 13 *int64
  minLength 14 *int64
  pattern 15 string omitempty
  maxItems 16 *int64
  minItems 17 *int64
  uniqueItems 18 bool omitempty
  multipleOf 19 *double
  enum 20 []json
  maxProperties 21 *int64
  minProperties 22 *int64
  required 23 []string
  items 24 *JSONSchemaPropsOrArray
  allOf 25 []JSONSchemaProps
  oneOf 26 []JSONSchemaProps
  anyOf 27 []JSONSchemaProps
  not 28 *JSONSchemaProps
  properties 29 map[string]JSONSchemaProps
  additionalProperties 30 *JSONSchemaPropsOrBool
  patternProperties 31 map[string]JSONSchemaProps
  dependencies 32 map[string]JSONSchemaPropsOrStringArray
  additionalItems 33 *JSONSchemaPropsOrBool
  definitions 34 map[string]JSONSchemaProps
  externalDocs 35 *ExternalDocumentation
  example 36 *json
  nullable 37 bool omitempty
  x-kubernetes-preserve-unknown-fields 38 *bool
  x-kubernetes-embedded-resource 39 bool omitempty
  x-kubernetes-int-or-string 40 bool omitempty
  x-kubernetes-list-map-keys 41 []string
  x-kubernetes-list-type 42 *string
  x-kubernetes-map-type 43 *string
  x-kubernetes-validations 44 []ValidationRule
JSONSchemaPropsOrArray @union
  jSONSchemas 2 []JSONSchemaProps
  schema 1 *JSONSchemaProps
JSONSchemaPropsOrBool @union
  schema 2 *JSONSchemaProps
  allows 1 bool
JSONSchemaPropsOrStringArray @union
  property 2 []string
  schema 1 *JSONSchemaProps
SelectableField
  jsonPath 1 string
ServiceReference
  namespace 1 string
  name 2 string
  path 3 *string
  port 4 *int32
ValidationRule
  rule 1 string
  message 2 string omitempty
  messageExpression 3 string omitempty
  reason 4 *string
  fieldPath 5 string omitempty
  optionalOldSelf 6 *bool
WebhookClientConfig
  url 3 *string
  service 1 *ServiceReference
  caBundle 2 bytes omitempty
WebhookConversion
  clientConfig 2 *WebhookClientConfig
  conversionReviewVersions 3 []string
`,
};
