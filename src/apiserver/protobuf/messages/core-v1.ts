import type { PackageTable } from "../schema.ts";

/** v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const coreV1: PackageTable = {
  package: "core.v1",
  apiVersion: "v1",
  kinds: [
    "Namespace",
    "ConfigMap",
    "Secret",
    "ServiceAccount",
    "Service",
    "Pod",
    "Node",
    "Event",
    "Endpoints",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "ResourceQuota",
    "LimitRange",
    "ReplicationController",
  ],
  messages: `
AWSElasticBlockStoreVolumeSource
  volumeID 1 string
  fsType 2 string omitempty
  partition 3 int32 omitempty
  readOnly 4 bool omitempty
Affinity
  nodeAffinity 1 *NodeAffinity
  podAffinity 2 *PodAffinity
  podAntiAffinity 3 *PodAntiAffinity
AppArmorProfile
  type 1 string
  localhostProfile 2 *string
AttachedVolume
  name 1 string
  devicePath 2 string
AzureDiskVolumeSource
  diskName 1 string
  diskURI 2 string
  cachingMode 3 *string
  fsType 4 *string
  readOnly 5 *bool
  kind 6 *string
AzureFilePersistentVolumeSource
  secretName 1 string
  shareName 2 string
  readOnly 3 bool omitempty
  secretNamespace 4 *string
AzureFileVolumeSource
  secretName 1 string
  shareName 2 string
  readOnly 3 bool omitempty
CSIPersistentVolumeSource
  driver 1 string
  volumeHandle 2 string
  readOnly 3 bool omitempty
  fsType 4 string omitempty
  volumeAttributes 5 map[string]string
  controllerPublishSecretRef 6 *SecretReference
  nodeStageSecretRef 7 *SecretReference
  nodePublishSecretRef 8 *SecretReference
  controllerExpandSecretRef 9 *SecretReference
  nodeExpandSecretRef 10 *SecretReference
CSIVolumeSource
  driver 1 string
  readOnly 2 *bool
  fsType 3 *string
  volumeAttributes 4 map[string]string
  nodePublishSecretRef 5 *LocalObjectReference
Capabilities
  add 1 []string
  drop 2 []string
CephFSPersistentVolumeSource
  monitors 1 []string
  path 2 string omitempty
  user 3 string omitempty
  secretFile 4 string omitempty
  secretRef 5 *SecretReference
  readOnly 6 bool omitempty
CephFSVolumeSource
  monitors 1 []string
  path 2 string omitempty
  user 3 string omitempty
  secretFile 4 string omitempty
  secretRef 5 *LocalObjectReference
  readOnly 6 bool omitempty
CinderPersistentVolumeSource
  volumeID 1 string
  fsType 2 string omitempty
  readOnly 3 bool omitempty
  secretRef 4 *SecretReference
CinderVolumeSource
  volumeID 1 string
  fsType 2 string omitempty
  readOnly 3 bool omitempty
  secretRef 4 *LocalObjectReference
ClientIPConfig
  timeoutSeconds 1 *int32
ClusterTrustBundleProjection
  name 1 *string
  signerName 2 *string
  labelSelector 3 *meta.v1.LabelSelector
  optional 5 *bool
  path 4 string
ConfigMap
  metadata 1 meta.v1.ObjectMeta
  immutable 4 *bool
  data 2 map[string]string
  binaryData 3 map[string]bytes
ConfigMapEnvSource
  ... 1 LocalObjectReference
  optional 2 *bool
ConfigMapKeySelector
  ... 1 LocalObjectReference
  key 2 string
  optional 3 *bool
ConfigMapNodeConfigSource
  namespace 1 string
  name 2 string
  uid 3 string omitempty
  resourceVersion 4 string omitempty
  kubeletConfigKey 5 string
ConfigMapProjection
  ... 1 LocalObjectReference
  items 2 []KeyToPath
  optional 4 *bool
ConfigMapVolumeSource
  ... 1 LocalObjectReference
  items 2 []KeyToPath
  defaultMode 3 *int32
  optional 4 *bool
Container
  name 1 string
  image 2 string omitempty
  command 3 []string
  args 4 []string
  workingDir 5 string omitempty
  ports 6 []ContainerPort
  envFrom 19 []EnvFromSource
  env 7 []EnvVar
  resources 8 ResourceRequirements
  resizePolicy 23 []ContainerResizePolicy
  restartPolicy 24 *string
  restartPolicyRules 25 []ContainerRestartRule
  volumeMounts 9 []VolumeMount
  volumeDevices 21 []VolumeDevice
  livenessProbe 10 *Probe
  readinessProbe 11 *Probe
  startupProbe 22 *Probe
  lifecycle 12 *Lifecycle
  terminationMessagePath 13 string omitempty
  terminationMessagePolicy 20 string omitempty
  imagePullPolicy 14 string omitempty
  securityContext 15 *SecurityContext
  stdin 16 bool omitempty
  stdinOnce 17 bool omitempty
  tty 18 bool omitempty
ContainerExtendedResourceRequest
  containerName 1 string
  resourceName 2 string
  requestName 3 string
ContainerImage
  names 1 []string
  sizeBytes 2 int64 omitempty
ContainerPort
  name 1 string omitempty
  hostPort 2 int32 omitempty
  containerPort 3 int32
  protocol 4 string omitempty
  hostIP 5 string omitempty
ContainerResizePolicy
  resourceName 1 string
  restartPolicy 2 string
ContainerRestartRule
  action 1 string omitempty
  exitCodes 2 *ContainerRestartRuleOnExitCodes
ContainerRestartRuleOnExitCodes
  operator 1 string omitempty
  values 2 []int32
ContainerState
  waiting 1 *ContainerStateWaiting
  running 2 *ContainerStateRunning
  terminated 3 *ContainerStateTerminated
ContainerStateRunning
  startedAt 1 time
ContainerStateTerminated
  exitCode 1 int32
  signal 2 int32 omitempty
  reason 3 string omitempty
  message 4 string omitempty
  startedAt 5 time
  finishedAt 6 time
  containerID 7 string omitempty
ContainerStateWaiting
  reason 1 string omitempty
  message 2 string omitempty
ContainerStatus
  name 1 string
  state 2 ContainerState
  lastState 3 ContainerState
  ready 4 bool
  restartCount 5 int32
  image 6 string
  imageID 7 string
  containerID 8 string omitempty
  started 9 *bool
  allocatedResources 10 map[string]quantity
  resources 11 *ResourceRequirements
  volumeMounts 12 []VolumeMountStatus
  user 13 *ContainerUser
  allocatedResourcesStatus 14 []ResourceStatus
  stopSignal 15 *string
ContainerUser
  linux 1 *LinuxContainerUser
DaemonEndpoint
  Port 1 int32
DownwardAPIProjection
  items 1 []DownwardAPIVolumeFile
DownwardAPIVolumeFile
  path 1 string
  fieldRef 2 *ObjectFieldSelector
  resourceFieldRef 3 *ResourceFieldSelector
  mode 4 *int32
DownwardAPIVolumeSource
  items 1 []DownwardAPIVolumeFile
  defaultMode 2 *int32
EmptyDirVolumeSource
  medium 1 string omitempty
  sizeLimit 2 *quantity
EndpointAddress
  ip 1 string
  hostname 3 string omitempty
  nodeName 4 *string
  targetRef 2 *ObjectReference
EndpointPort
  name 1 string omitempty
  port 2 int32
  protocol 3 string omitempty
  appProtocol 4 *string
EndpointSubset
  addresses 1 []EndpointAddress
  notReadyAddresses 2 []EndpointAddress
  ports 3 []EndpointPort
Endpoints
  metadata 1 meta.v1.ObjectMeta
  subsets 2 []EndpointSubset
EnvFromSource
  prefix 1 string omitempty
  configMapRef 2 *ConfigMapEnvSource
  secretRef 3 *SecretEnvSource
EnvVar
  name 1 string
  value 2 string omitempty
  valueFrom 3 *EnvVarSource
EnvVarSource
  fieldRef 1 *ObjectFieldSelector
  resourceFieldRef 2 *ResourceFieldSelector
  configMapKeyRef 3 *ConfigMapKeySelector
  secretKeyRef 4 *SecretKeySelector
  fileKeyRef 5 *FileKeySelector
EphemeralContainer
  ... 1 EphemeralContainerCommon
  targetContainerName 2 string omitempty
EphemeralContainerCommon
  name 1 string
  image 2 string omitempty
  command 3 []string
  args 4 []string
  workingDir 5 string omitempty
  ports 6 []ContainerPort
  envFrom 19 []EnvFromSource
  env 7 []EnvVar
  resources 8 ResourceRequirements
  resizePolicy 23 []ContainerResizePolicy
  restartPolicy 24 *string
  restartPolicyRules 25 []ContainerRestartRule
  volumeMounts 9 []VolumeMount
  volumeDevices 21 []VolumeDevice
  livenessProbe 10 *Probe
  readinessProbe 11 *Probe
  startupProbe 22 *Probe
  lifecycle 12 *Lifecycle
  terminationMessagePath 13 string omitempty
  terminationMessagePolicy 20 string omitempty
  imagePullPolicy 14 string omitempty
  securityContext 15 *SecurityContext
  stdin 16 bool omitempty
  stdinOnce 17 bool omitempty
  tty 18 bool omitempty
EphemeralVolumeSource
  volumeClaimTemplate 1 *PersistentVolumeClaimTemplate
Event
  metadata 1 meta.v1.ObjectMeta
  involvedObject 2 ObjectReference
  reason 3 string omitempty
  message 4 string omitempty
  source 5 EventSource
  firstTimestamp 6 time
  lastTimestamp 7 time
  count 8 int32 omitempty
  type 9 string omitempty
  eventTime 10 microtime
  series 11 *EventSeries
  action 12 string omitempty
  related 13 *ObjectReference
  reportingComponent 14 string
  reportingInstance 15 string
EventSeries
  count 1 int32 omitempty
  lastObservedTime 2 microtime
EventSource
  component 1 string omitempty
  host 2 string omitempty
ExecAction
  command 1 []string
FCVolumeSource
  targetWWNs 1 []string
  lun 2 *int32
  fsType 3 string omitempty
  readOnly 4 bool omitempty
  wwids 5 []string
FileKeySelector
  volumeName 1 string
  path 2 string
  key 3 string
  optional 4 *bool
FlexPersistentVolumeSource
  driver 1 string
  fsType 2 string omitempty
  secretRef 3 *SecretReference
  readOnly 4 bool omitempty
  options 5 map[string]string
FlexVolumeSource
  driver 1 string
  fsType 2 string omitempty
  secretRef 3 *LocalObjectReference
  readOnly 4 bool omitempty
  options 5 map[string]string
FlockerVolumeSource
  datasetName 1 string omitempty
  datasetUUID 2 string omitempty
GCEPersistentDiskVolumeSource
  pdName 1 string
  fsType 2 string omitempty
  partition 3 int32 omitempty
  readOnly 4 bool omitempty
GRPCAction
  port 1 int32
  service 2 *string
GitRepoVolumeSource
  repository 1 string
  revision 2 string omitempty
  directory 3 string omitempty
GlusterfsPersistentVolumeSource
  endpoints 1 string
  path 2 string
  readOnly 3 bool omitempty
  endpointsNamespace 4 *string
GlusterfsVolumeSource
  endpoints 1 string
  path 2 string
  readOnly 3 bool omitempty
HTTPGetAction
  path 1 string omitempty
  port 2 intstr
  host 3 string omitempty
  scheme 4 string omitempty
  httpHeaders 5 []HTTPHeader
HTTPHeader
  name 1 string
  value 2 string
HostAlias
  ip 1 string
  hostnames 2 []string
HostIP
  ip 1 string
HostPathVolumeSource
  path 1 string
  type 2 *string
ISCSIPersistentVolumeSource
  targetPortal 1 string
  iqn 2 string
  lun 3 int32
  iscsiInterface 4 string omitempty
  fsType 5 string omitempty
  readOnly 6 bool omitempty
  portals 7 []string
  chapAuthDiscovery 8 bool omitempty
  chapAuthSession 11 bool omitempty
  secretRef 10 *SecretReference
  initiatorName 12 *string
ISCSIVolumeSource
  targetPortal 1 string
  iqn 2 string
  lun 3 int32
  iscsiInterface 4 string omitempty
  fsType 5 string omitempty
  readOnly 6 bool omitempty
  portals 7 []string
  chapAuthDiscovery 8 bool omitempty
  chapAuthSession 11 bool omitempty
  secretRef 10 *LocalObjectReference
  initiatorName 12 *string
ImageVolumeSource
  reference 1 string omitempty
  pullPolicy 2 string omitempty
ImageVolumeStatus
  imageRef 1 string omitempty
KeyToPath
  key 1 string
  path 2 string
  mode 3 *int32
Lifecycle
  postStart 1 *LifecycleHandler
  preStop 2 *LifecycleHandler
  stopSignal 3 *string
LifecycleHandler
  exec 1 *ExecAction
  httpGet 2 *HTTPGetAction
  tcpSocket 3 *TCPSocketAction
  sleep 4 *SleepAction
LimitRange
  metadata 1 meta.v1.ObjectMeta
  spec 2 LimitRangeSpec
LimitRangeItem
  type 1 string
  max 2 map[string]quantity
  min 3 map[string]quantity
  default 4 map[string]quantity
  defaultRequest 5 map[string]quantity
  maxLimitRequestRatio 6 map[string]quantity
LimitRangeSpec
  limits 1 []LimitRangeItem
LinuxContainerUser
  uid 1 int64
  gid 2 int64
  supplementalGroups 3 []int64
LoadBalancerIngress
  ip 1 string omitempty
  hostname 2 string omitempty
  ipMode 3 *string
  ports 4 []PortStatus
LoadBalancerStatus
  ingress 1 []LoadBalancerIngress
LocalObjectReference
  name 1 string omitempty
LocalVolumeSource
  path 1 string
  fsType 2 *string
ModifyVolumeStatus
  targetVolumeAttributesClassName 1 string omitempty
  status 2 string
NFSVolumeSource
  server 1 string
  path 2 string
  readOnly 3 bool omitempty
Namespace
  metadata 1 meta.v1.ObjectMeta
  spec 2 NamespaceSpec
  status 3 NamespaceStatus
NamespaceCondition
  type 1 string
  status 2 string
  lastTransitionTime 4 time
  reason 5 string omitempty
  message 6 string omitempty
NamespaceSpec
  finalizers 1 []string
NamespaceStatus
  phase 1 string omitempty
  conditions 2 []NamespaceCondition
Node
  metadata 1 meta.v1.ObjectMeta
  spec 2 NodeSpec
  status 3 NodeStatus
NodeAddress
  type 1 string
  address 2 string
NodeAffinity
  requiredDuringSchedulingIgnoredDuringExecution 1 *NodeSelector
  preferredDuringSchedulingIgnoredDuringExecution 2 []PreferredSchedulingTerm
NodeAllocatableResourceClaimStatus
  resourceClaimName 1 string
  containers 2 []string
  resources 3 map[string]quantity
NodeCondition
  type 1 string
  status 2 string
  lastHeartbeatTime 3 time
  lastTransitionTime 4 time
  reason 5 string omitempty
  message 6 string omitempty
NodeConfigSource
  configMap 2 *ConfigMapNodeConfigSource
NodeConfigStatus
  assigned 1 *NodeConfigSource
  active 2 *NodeConfigSource
  lastKnownGood 3 *NodeConfigSource
  error 4 string omitempty
NodeDaemonEndpoints
  kubeletEndpoint 1 DaemonEndpoint
NodeFeatures
  supplementalGroupsPolicy 1 *bool
NodeRuntimeHandler
  name 1 string
  features 2 *NodeRuntimeHandlerFeatures
NodeRuntimeHandlerFeatures
  recursiveReadOnlyMounts 1 *bool
  userNamespaces 2 *bool
NodeSelector
  nodeSelectorTerms 1 []NodeSelectorTerm
NodeSelectorRequirement
  key 1 string
  operator 2 string
  values 3 []string
NodeSelectorTerm
  matchExpressions 1 []NodeSelectorRequirement
  matchFields 2 []NodeSelectorRequirement
NodeSpec
  podCIDR 1 string omitempty
  podCIDRs 7 []string
  providerID 3 string omitempty
  unschedulable 4 bool omitempty
  taints 5 []Taint
  configSource 6 *NodeConfigSource
  externalID 2 string omitempty
NodeStatus
  capacity 1 map[string]quantity
  allocatable 2 map[string]quantity
  phase 3 string omitempty
  conditions 4 []NodeCondition
  addresses 5 []NodeAddress
  daemonEndpoints 6 NodeDaemonEndpoints
  nodeInfo 7 NodeSystemInfo
  images 8 []ContainerImage
  volumesInUse 9 []string
  volumesAttached 10 []AttachedVolume
  config 11 *NodeConfigStatus
  runtimeHandlers 12 []NodeRuntimeHandler
  features 13 *NodeFeatures
  declaredFeatures 14 []string
NodeSwapStatus
  capacity 1 *int64
NodeSystemInfo
  machineID 1 string
  systemUUID 2 string
  bootID 3 string
  kernelVersion 4 string
  osImage 5 string
  containerRuntimeVersion 6 string
  kubeletVersion 7 string
  kubeProxyVersion 8 string
  operatingSystem 9 string
  architecture 10 string
  swap 11 *NodeSwapStatus
ObjectFieldSelector
  apiVersion 1 string omitempty
  fieldPath 2 string
ObjectReference
  kind 1 string omitempty
  namespace 2 string omitempty
  name 3 string omitempty
  uid 4 string omitempty
  apiVersion 5 string omitempty
  resourceVersion 6 string omitempty
  fieldPath 7 string omitempty
PersistentVolume
  metadata 1 meta.v1.ObjectMeta
  spec 2 PersistentVolumeSpec
  status 3 PersistentVolumeStatus
PersistentVolumeClaim
  metadata 1 meta.v1.ObjectMeta
  spec 2 PersistentVolumeClaimSpec
  status 3 PersistentVolumeClaimStatus
PersistentVolumeClaimCondition
  type 1 string
  status 2 string
  lastProbeTime 3 time
  lastTransitionTime 4 time
  reason 5 string omitempty
  message 6 string omitempty
PersistentVolumeClaimSpec
  accessModes 1 []string
  selector 4 *meta.v1.LabelSelector
  resources 2 VolumeResourceRequirements
  volumeName 3 string omitempty
  storageClassName 5 *string
  volumeMode 6 *string
  dataSource 7 *TypedLocalObjectReference
  dataSourceRef 8 *TypedObjectReference
  volumeAttributesClassName 9 *string
PersistentVolumeClaimStatus
  phase 1 string omitempty
  accessModes 2 []string
  capacity 3 map[string]quantity
  conditions 4 []PersistentVolumeClaimCondition
  allocatedResources 5 map[string]quantity
  allocatedResourceStatuses 7 map[string]string
  currentVolumeAttributesClassName 8 *string
  modifyVolumeStatus 9 *ModifyVolumeStatus
PersistentVolumeClaimTemplate
  metadata 1 meta.v1.ObjectMeta
  spec 2 PersistentVolumeClaimSpec
PersistentVolumeClaimVolumeSource
  claimName 1 string
  readOnly 2 bool omitempty
PersistentVolumeSource
  gcePersistentDisk 1 *GCEPersistentDiskVolumeSource
  awsElasticBlockStore 2 *AWSElasticBlockStoreVolumeSource
  hostPath 3 *HostPathVolumeSource
  glusterfs 4 *GlusterfsPersistentVolumeSource
  nfs 5 *NFSVolumeSource
  rbd 6 *RBDPersistentVolumeSource
  iscsi 7 *ISCSIPersistentVolumeSource
  cinder 8 *CinderPersistentVolumeSource
  cephfs 9 *CephFSPersistentVolumeSource
  fc 10 *FCVolumeSource
  flocker 11 *FlockerVolumeSource
  flexVolume 12 *FlexPersistentVolumeSource
  azureFile 13 *AzureFilePersistentVolumeSource
  vsphereVolume 14 *VsphereVirtualDiskVolumeSource
  quobyte 15 *QuobyteVolumeSource
  azureDisk 16 *AzureDiskVolumeSource
  photonPersistentDisk 17 *PhotonPersistentDiskVolumeSource
  portworxVolume 18 *PortworxVolumeSource
  scaleIO 19 *ScaleIOPersistentVolumeSource
  local 20 *LocalVolumeSource
  storageos 21 *StorageOSPersistentVolumeSource
  csi 22 *CSIPersistentVolumeSource
PersistentVolumeSpec
  capacity 1 map[string]quantity
  ... 2 PersistentVolumeSource
  accessModes 3 []string
  claimRef 4 *ObjectReference
  persistentVolumeReclaimPolicy 5 string omitempty
  storageClassName 6 string omitempty
  mountOptions 7 []string
  volumeMode 8 *string
  nodeAffinity 9 *VolumeNodeAffinity
  volumeAttributesClassName 10 *string
PersistentVolumeStatus
  phase 1 string omitempty
  message 2 string omitempty
  reason 3 string omitempty
  lastPhaseTransitionTime 4 *time
PhotonPersistentDiskVolumeSource
  pdID 1 string
  fsType 2 string omitempty
Pod
  metadata 1 meta.v1.ObjectMeta
  spec 2 PodSpec
  status 3 PodStatus
PodAffinity
  requiredDuringSchedulingIgnoredDuringExecution 1 []PodAffinityTerm
  preferredDuringSchedulingIgnoredDuringExecution 2 []WeightedPodAffinityTerm
PodAffinityTerm
  labelSelector 1 *meta.v1.LabelSelector
  namespaces 2 []string
  topologyKey 3 string
  namespaceSelector 4 *meta.v1.LabelSelector
  matchLabelKeys 5 []string
  mismatchLabelKeys 6 []string
PodAntiAffinity
  requiredDuringSchedulingIgnoredDuringExecution 1 []PodAffinityTerm
  preferredDuringSchedulingIgnoredDuringExecution 2 []WeightedPodAffinityTerm
PodCertificateProjection
  signerName 1 string omitempty
  keyType 2 string omitempty
  maxExpirationSeconds 3 *int32
  credentialBundlePath 4 string omitempty
  keyPath 5 string omitempty
  certificateChainPath 6 string omitempty
  userAnnotations 7 map[string]string
PodCondition
  type 1 string
  observedGeneration 7 int64 omitempty
  status 2 string
  lastProbeTime 3 time
  lastTransitionTime 4 time
  reason 5 string omitempty
  message 6 string omitempty
PodDNSConfig
  nameservers 1 []string
  searches 2 []string
  options 3 []PodDNSConfigOption
PodDNSConfigOption
  name 1 string omitempty
  value 2 *string
PodExtendedResourceClaimStatus
  requestMappings 1 []ContainerExtendedResourceRequest
  resourceClaimName 2 string
PodIP
  ip 1 string
PodOS
  name 1 string
PodReadinessGate
  conditionType 1 string
PodResourceClaim
  name 1 string
  resourceClaimName 3 *string
  resourceClaimTemplateName 4 *string
PodResourceClaimStatus
  name 1 string
  resourceClaimName 2 *string
PodSchedulingGate
  name 1 string
PodSchedulingGroup
  podGroupName 1 *string
PodSecurityContext
  seLinuxOptions 1 *SELinuxOptions
  windowsOptions 8 *WindowsSecurityContextOptions
  runAsUser 2 *int64
  runAsGroup 6 *int64
  runAsNonRoot 3 *bool
  supplementalGroups 4 []int64
  supplementalGroupsPolicy 12 *string
  fsGroup 5 *int64
  sysctls 7 []Sysctl
  fsGroupChangePolicy 9 *string
  seccompProfile 10 *SeccompProfile
  appArmorProfile 11 *AppArmorProfile
  seLinuxChangePolicy 13 *string
PodSpec
  volumes 1 []Volume
  initContainers 20 []Container
  containers 2 []Container
  ephemeralContainers 34 []EphemeralContainer
  restartPolicy 3 string omitempty
  terminationGracePeriodSeconds 4 *int64
  activeDeadlineSeconds 5 *int64
  dnsPolicy 6 string omitempty
  nodeSelector 7 map[string]string
  serviceAccountName 8 string omitempty
  serviceAccount 9 string omitempty
  automountServiceAccountToken 21 *bool
  nodeName 10 string omitempty
  hostNetwork 11 bool omitempty
  hostPID 12 bool omitempty
  hostIPC 13 bool omitempty
  shareProcessNamespace 27 *bool
  securityContext 14 *PodSecurityContext
  imagePullSecrets 15 []LocalObjectReference
  hostname 16 string omitempty
  subdomain 17 string omitempty
  affinity 18 *Affinity
  schedulerName 19 string omitempty
  tolerations 22 []Toleration
  hostAliases 23 []HostAlias
  priorityClassName 24 string omitempty
  priority 25 *int32
  dnsConfig 26 *PodDNSConfig
  readinessGates 28 []PodReadinessGate
  runtimeClassName 29 *string
  enableServiceLinks 30 *bool
  preemptionPolicy 31 *string
  overhead 32 map[string]quantity
  topologySpreadConstraints 33 []TopologySpreadConstraint
  setHostnameAsFQDN 35 *bool
  os 36 *PodOS
  hostUsers 37 *bool
  schedulingGates 38 []PodSchedulingGate
  resourceClaims 39 []PodResourceClaim
  resources 40 *ResourceRequirements
  hostnameOverride 41 *string
  schedulingGroup 43 *PodSchedulingGroup
PodStatus
  observedGeneration 17 int64 omitempty
  phase 1 string omitempty
  conditions 2 []PodCondition
  message 3 string omitempty
  reason 4 string omitempty
  nominatedNodeName 11 string omitempty
  hostIP 5 string omitempty
  hostIPs 16 []HostIP
  podIP 6 string omitempty
  podIPs 12 []PodIP
  startTime 7 *time
  initContainerStatuses 10 []ContainerStatus
  containerStatuses 8 []ContainerStatus
  qosClass 9 string omitempty
  ephemeralContainerStatuses 13 []ContainerStatus
  resize 14 string omitempty
  resourceClaimStatuses 15 []PodResourceClaimStatus
  extendedResourceClaimStatus 18 *PodExtendedResourceClaimStatus
  allocatedResources 19 map[string]quantity
  resources 20 *ResourceRequirements
  nodeAllocatableResourceClaimStatuses 21 []NodeAllocatableResourceClaimStatus
PodTemplateSpec
  metadata 1 meta.v1.ObjectMeta
  spec 2 PodSpec
PortStatus
  port 1 int32
  protocol 2 string
  error 3 *string
PortworxVolumeSource
  volumeID 1 string
  fsType 2 string omitempty
  readOnly 3 bool omitempty
PreferredSchedulingTerm
  weight 1 int32
  preference 2 NodeSelectorTerm
Probe
  ... 1 ProbeHandler
  initialDelaySeconds 2 int32 omitempty
  timeoutSeconds 3 int32 omitempty
  periodSeconds 4 int32 omitempty
  successThreshold 5 int32 omitempty
  failureThreshold 6 int32 omitempty
  terminationGracePeriodSeconds 7 *int64
ProbeHandler
  exec 1 *ExecAction
  httpGet 2 *HTTPGetAction
  tcpSocket 3 *TCPSocketAction
  grpc 4 *GRPCAction
ProjectedVolumeSource
  sources 1 []VolumeProjection
  defaultMode 2 *int32
QuobyteVolumeSource
  registry 1 string
  volume 2 string
  readOnly 3 bool omitempty
  user 4 string omitempty
  group 5 string omitempty
  tenant 6 string omitempty
RBDPersistentVolumeSource
  monitors 1 []string
  image 2 string
  fsType 3 string omitempty
  pool 4 string omitempty
  user 5 string omitempty
  keyring 6 string omitempty
  secretRef 7 *SecretReference
  readOnly 8 bool omitempty
RBDVolumeSource
  monitors 1 []string
  image 2 string
  fsType 3 string omitempty
  pool 4 string omitempty
  user 5 string omitempty
  keyring 6 string omitempty
  secretRef 7 *LocalObjectReference
  readOnly 8 bool omitempty
ReplicationController
  metadata 1 meta.v1.ObjectMeta
  spec 2 ReplicationControllerSpec
  status 3 ReplicationControllerStatus
ReplicationControllerCondition
  type 1 string
  status 2 string
  lastTransitionTime 3 time
  reason 4 string omitempty
  message 5 string omitempty
ReplicationControllerSpec
  replicas 1 *int32
  minReadySeconds 4 int32 omitempty
  selector 2 map[string]string
  template 3 *PodTemplateSpec
ReplicationControllerStatus
  replicas 1 int32
  fullyLabeledReplicas 2 int32 omitempty
  readyReplicas 4 int32 omitempty
  availableReplicas 5 int32 omitempty
  observedGeneration 3 int64 omitempty
  conditions 6 []ReplicationControllerCondition
ResourceClaim
  name 1 string
  request 2 string omitempty
ResourceFieldSelector
  containerName 1 string omitempty
  resource 2 string
  divisor 3 quantity
ResourceHealth
  resourceID 1 string
  health 2 string omitempty
  message 6 *string
ResourceQuota
  metadata 1 meta.v1.ObjectMeta
  spec 2 ResourceQuotaSpec
  status 3 ResourceQuotaStatus
ResourceQuotaSpec
  hard 1 map[string]quantity
  scopes 2 []string
  scopeSelector 3 *ScopeSelector
ResourceQuotaStatus
  hard 1 map[string]quantity
  used 2 map[string]quantity
ResourceRequirements
  limits 1 map[string]quantity
  requests 2 map[string]quantity
  claims 3 []ResourceClaim
ResourceStatus
  name 1 string
  resources 2 []ResourceHealth
SELinuxOptions
  user 1 string omitempty
  role 2 string omitempty
  type 3 string omitempty
  level 4 string omitempty
ScaleIOPersistentVolumeSource
  gateway 1 string
  system 2 string
  secretRef 3 *SecretReference
  sslEnabled 4 bool omitempty
  protectionDomain 5 string omitempty
  storagePool 6 string omitempty
  storageMode 7 string omitempty
  volumeName 8 string omitempty
  fsType 9 string omitempty
  readOnly 10 bool omitempty
ScaleIOVolumeSource
  gateway 1 string
  system 2 string
  secretRef 3 *LocalObjectReference
  sslEnabled 4 bool omitempty
  protectionDomain 5 string omitempty
  storagePool 6 string omitempty
  storageMode 7 string omitempty
  volumeName 8 string omitempty
  fsType 9 string omitempty
  readOnly 10 bool omitempty
ScopeSelector
  matchExpressions 1 []ScopedResourceSelectorRequirement
ScopedResourceSelectorRequirement
  scopeName 1 string
  operator 2 string
  values 3 []string
SeccompProfile
  type 1 string
  localhostProfile 2 *string
Secret
  metadata 1 meta.v1.ObjectMeta
  immutable 5 *bool
  data 2 map[string]bytes
  stringData 4 map[string]string
  type 3 string omitempty
SecretEnvSource
  ... 1 LocalObjectReference
  optional 2 *bool
SecretKeySelector
  ... 1 LocalObjectReference
  key 2 string
  optional 3 *bool
SecretProjection
  ... 1 LocalObjectReference
  items 2 []KeyToPath
  optional 4 *bool
SecretReference
  name 1 string omitempty
  namespace 2 string omitempty
SecretVolumeSource
  secretName 1 string omitempty
  items 2 []KeyToPath
  defaultMode 3 *int32
  optional 4 *bool
SecurityContext
  capabilities 1 *Capabilities
  privileged 2 *bool
  seLinuxOptions 3 *SELinuxOptions
  windowsOptions 10 *WindowsSecurityContextOptions
  runAsUser 4 *int64
  runAsGroup 8 *int64
  runAsNonRoot 5 *bool
  readOnlyRootFilesystem 6 *bool
  allowPrivilegeEscalation 7 *bool
  procMount 9 *string
  seccompProfile 11 *SeccompProfile
  appArmorProfile 12 *AppArmorProfile
Service
  metadata 1 meta.v1.ObjectMeta
  spec 2 ServiceSpec
  status 3 ServiceStatus
ServiceAccount
  metadata 1 meta.v1.ObjectMeta
  secrets 2 []ObjectReference
  imagePullSecrets 3 []LocalObjectReference
  automountServiceAccountToken 4 *bool
ServiceAccountTokenProjection
  audience 1 string omitempty
  expirationSeconds 2 *int64
  path 3 string
ServicePort
  name 1 string omitempty
  protocol 2 string omitempty
  appProtocol 6 *string
  port 3 int32
  targetPort 4 intstr
  nodePort 5 int32 omitempty
ServiceSpec
  ports 1 []ServicePort
  selector 2 map[string]string
  clusterIP 3 string omitempty
  clusterIPs 18 []string
  type 4 string omitempty
  externalIPs 5 []string
  sessionAffinity 7 string omitempty
  loadBalancerIP 8 string omitempty
  loadBalancerSourceRanges 9 []string
  externalName 10 string omitempty
  externalTrafficPolicy 11 string omitempty
  healthCheckNodePort 12 int32 omitempty
  publishNotReadyAddresses 13 bool omitempty
  sessionAffinityConfig 14 *SessionAffinityConfig
  ipFamilies 19 []string
  ipFamilyPolicy 17 *string
  allocateLoadBalancerNodePorts 20 *bool
  loadBalancerClass 21 *string
  internalTrafficPolicy 22 *string
  trafficDistribution 23 *string
ServiceStatus
  loadBalancer 1 LoadBalancerStatus
  conditions 2 []meta.v1.Condition
SessionAffinityConfig
  clientIP 1 *ClientIPConfig
SleepAction
  seconds 1 int64
StorageOSPersistentVolumeSource
  volumeName 1 string omitempty
  volumeNamespace 2 string omitempty
  fsType 3 string omitempty
  readOnly 4 bool omitempty
  secretRef 5 *ObjectReference
StorageOSVolumeSource
  volumeName 1 string omitempty
  volumeNamespace 2 string omitempty
  fsType 3 string omitempty
  readOnly 4 bool omitempty
  secretRef 5 *LocalObjectReference
Sysctl
  name 1 string
  value 2 string
TCPSocketAction
  port 1 intstr
  host 2 string omitempty
Taint
  key 1 string
  value 2 string omitempty
  effect 3 string
  timeAdded 4 *time
Toleration
  key 1 string omitempty
  operator 2 string omitempty
  value 3 string omitempty
  effect 4 string omitempty
  tolerationSeconds 5 *int64
TopologySelectorLabelRequirement
  key 1 string
  values 2 []string
TopologySelectorTerm
  matchLabelExpressions 1 []TopologySelectorLabelRequirement
TopologySpreadConstraint
  maxSkew 1 int32
  topologyKey 2 string
  whenUnsatisfiable 3 string
  labelSelector 4 *meta.v1.LabelSelector
  minDomains 5 *int32
  nodeAffinityPolicy 6 *string
  nodeTaintsPolicy 7 *string
  matchLabelKeys 8 []string
TypedLocalObjectReference
  apiGroup 1 *string
  kind 2 string
  name 3 string
TypedObjectReference
  apiGroup 1 *string
  kind 2 string
  name 3 string
  namespace 4 *string
Volume
  name 1 string
  ... 2 VolumeSource
VolumeDevice
  name 1 string
  devicePath 2 string
VolumeMount
  name 1 string
  readOnly 2 bool omitempty
  recursiveReadOnly 7 *string
  mountPath 3 string
  subPath 4 string omitempty
  mountPropagation 5 *string
  subPathExpr 6 string omitempty
VolumeMountStatus
  name 1 string
  mountPath 2 string
  readOnly 3 bool omitempty
  recursiveReadOnly 4 *string
  volumeStatus 5 *VolumeStatus
VolumeNodeAffinity
  required 1 *NodeSelector
VolumeProjection
  secret 1 *SecretProjection
  downwardAPI 2 *DownwardAPIProjection
  configMap 3 *ConfigMapProjection
  serviceAccountToken 4 *ServiceAccountTokenProjection
  clusterTrustBundle 5 *ClusterTrustBundleProjection
  podCertificate 6 *PodCertificateProjection
VolumeResourceRequirements
  limits 1 map[string]quantity
  requests 2 map[string]quantity
VolumeSource
  hostPath 1 *HostPathVolumeSource
  emptyDir 2 *EmptyDirVolumeSource
  gcePersistentDisk 3 *GCEPersistentDiskVolumeSource
  awsElasticBlockStore 4 *AWSElasticBlockStoreVolumeSource
  gitRepo 5 *GitRepoVolumeSource
  secret 6 *SecretVolumeSource
  nfs 7 *NFSVolumeSource
  iscsi 8 *ISCSIVolumeSource
  glusterfs 9 *GlusterfsVolumeSource
  persistentVolumeClaim 10 *PersistentVolumeClaimVolumeSource
  rbd 11 *RBDVolumeSource
  flexVolume 12 *FlexVolumeSource
  cinder 13 *CinderVolumeSource
  cephfs 14 *CephFSVolumeSource
  flocker 15 *FlockerVolumeSource
  downwardAPI 16 *DownwardAPIVolumeSource
  fc 17 *FCVolumeSource
  azureFile 18 *AzureFileVolumeSource
  configMap 19 *ConfigMapVolumeSource
  vsphereVolume 20 *VsphereVirtualDiskVolumeSource
  quobyte 21 *QuobyteVolumeSource
  azureDisk 22 *AzureDiskVolumeSource
  photonPersistentDisk 23 *PhotonPersistentDiskVolumeSource
  projected 26 *ProjectedVolumeSource
  portworxVolume 24 *PortworxVolumeSource
  scaleIO 25 *ScaleIOVolumeSource
  storageos 27 *StorageOSVolumeSource
  csi 28 *CSIVolumeSource
  ephemeral 29 *EphemeralVolumeSource
  image 30 *ImageVolumeSource
VolumeStatus
  image 1 *ImageVolumeStatus
VsphereVirtualDiskVolumeSource
  volumePath 1 string
  fsType 2 string omitempty
  storagePolicyName 3 string omitempty
  storagePolicyID 4 string omitempty
WeightedPodAffinityTerm
  weight 1 int32
  podAffinityTerm 2 PodAffinityTerm
WindowsSecurityContextOptions
  gmsaCredentialSpecName 1 *string
  gmsaCredentialSpec 2 *string
  runAsUserName 3 *string
  hostProcess 4 *bool
`,
};
