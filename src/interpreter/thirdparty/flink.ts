/**
 * Our interpreter for the Flink Kubernetes operator's FlinkDeployment (flink.apache.org/v1beta1):
 * a job manager and task managers (as many as configured, else enough slots for the job's
 * parallelism), healthy while the job runs or has settled, with the operator's status
 * reflected and the last reporting member's status aggregated. Upstream's corpus is the spec.
 */
import type { NewObject } from "../../api/meta.ts";
import { customization } from "./define.ts";

/** Lua shared by the rules: safe nested reads and numbers that may be strings. */
const READ = `
local function dig(value, ...)
  for _, key in ipairs({ ... }) do
    if type(value) ~= "table" then return nil end
    value = value[key]
  end
  return value
end

local function number(value, fallback)
  if value == nil or value == "" then return fallback end
  return tonumber(value) or fallback
end
`;

/** How many task managers run: the explicit count, else parallelism over task slots, else one. */
const TASK_MANAGERS = `
local function jobManagers(obj)
  return number(dig(obj, "spec", "jobManager", "replicas"), 1)
end

local function taskManagers(obj)
  local explicit = number(dig(obj, "spec", "taskManager", "replicas"), nil)
  if explicit ~= nil then return explicit end
  local parallelism = number(dig(obj, "spec", "job", "parallelism"), nil)
  local slots = number(dig(obj, "spec", "flinkConfiguration", "taskmanager.numberOfTaskSlots"), nil)
  if parallelism == nil or slots == nil or slots == 0 then return 1 end
  return math.ceil(parallelism / slots)
end

-- A fresh copy: the engine refuses a result that holds one table twice (as upstream's does).
local function copy(value)
  if type(value) ~= "table" then return value end
  local out = {}
  for k, v in pairs(value) do out[k] = copy(v) end
  return out
end

-- Scheduling constraints every Flink pod shares (spec.podTemplate).
local function placeLike(podSpec, requirements)
  if podSpec == nil then return requirements end
  if podSpec.nodeSelector ~= nil or podSpec.tolerations ~= nil then
    requirements.nodeClaim = { nodeSelector = copy(podSpec.nodeSelector), tolerations = copy(podSpec.tolerations) }
  end
  if podSpec.priorityClassName ~= nil and podSpec.priorityClassName ~= "" then
    requirements.priorityClassName = podSpec.priorityClassName
  end
  return requirements
end
`;

/** The status fields the operator reports that Karmada carries. */
const STATUS_FIELDS = `
local REPORTED = {
  "clusterInfo", "error", "jobManagerDeploymentStatus", "jobStatus",
  "observedGeneration", "lifecycleState", "reconciliationStatus", "taskManager",
}
`;

const HEALTH = `
-- Job states that end, or are about to, count as healthy: the job is where the user left it.
local SETTLED = {
  RUNNING = true, FINISHED = true, FAILED = true, CANCELED = true, SUSPENDED = true,
  CANCELLING = true, FAILING = true, RESTARTING = true,
}
-- Starting up is healthy only when stuck on a user error that moving cannot fix.
local STARTING = { CREATED = true, INITIALIZING = true, RECONCILING = true }
local USER_ERRORS = { "ErrImagePull", "ImagePullBackOff", "CrashLoopBackOff" }

local function userError(message)
  if type(message) ~= "string" or message == "" then return false end
  for _, pattern in ipairs(USER_ERRORS) do
    if string.find(message, pattern, 1, true) then return true end
  end
  return false
end

function InterpretHealth(observedObj)
  local status = observedObj.status or {}
  local state = status.jobStatus and status.jobStatus.state
  if state == nil then
    -- No job yet: a session cluster is healthy once its job manager is up and stable.
    return status.jobManagerDeploymentStatus == "READY" and status.lifecycleState == "STABLE"
  end
  if SETTLED[state] then return true end
  if STARTING[state] then return userError(status.error) end
  return false
end
`;

const REPLICAS = `
local kube = require("kube")

-- The larger of two values, compared by a reader (nil when both are missing).
local function larger(a, b, measure)
  if a == nil then return b end
  if b == nil then return a end
  if measure(a) >= measure(b) then return a end
  return b
end

function GetReplicas(obj)
  local jm = dig(obj, "spec", "jobManager", "resource") or {}
  local tm = dig(obj, "spec", "taskManager", "resource") or {}
  -- One set of requirements for every pod: the larger of the two managers' requests.
  local request = {
    cpu = larger(tm.cpu, jm.cpu, function(v) return tonumber(v) or 0 end),
    memory = larger(jm.memory, tm.memory, kube.getResourceQuantity),
  }
  local requirements = placeLike(dig(obj, "spec", "podTemplate", "spec"), { resourceRequest = request })
  local namespace = dig(obj, "metadata", "namespace")
  if namespace ~= nil and namespace ~= "" then requirements.namespace = namespace end
  return jobManagers(obj) + taskManagers(obj), requirements
end
`;

const COMPONENTS = `
local function component(name, replicas, resource, podSpec)
  resource = resource or {}
  local requirements = placeLike(podSpec, { resourceRequest = { cpu = resource.cpu, memory = resource.memory } })
  return { name = name, replicas = replicas, replicaRequirements = requirements }
end

function GetComponents(obj)
  local podSpec = dig(obj, "spec", "podTemplate", "spec")
  return {
    component("jobmanager", jobManagers(obj), dig(obj, "spec", "jobManager", "resource"), podSpec),
    component("taskmanager", taskManagers(obj), dig(obj, "spec", "taskManager", "resource"), podSpec),
  }
end
`;

const REFLECT = `
function ReflectStatus(observedObj)
  local reflected = {}
  local status = observedObj and observedObj.status
  if status == nil then return reflected end
  for _, field in ipairs(REPORTED) do reflected[field] = status[field] end
  return reflected
end
`;

const AGGREGATE = `
-- A job runs in one place: the last member that reports a status speaks for it.
function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then return desiredObj end
  local latest = nil
  for _, item in ipairs(statusItems) do
    if item.status ~= nil then latest = item.status end
  end
  local defaults = {
    clusterInfo = {}, error = "", jobManagerDeploymentStatus = "", jobStatus = {},
    observedGeneration = 0, lifecycleState = "", reconciliationStatus = {}, taskManager = {},
  }
  desiredObj.status = desiredObj.status or {}
  for _, field in ipairs(REPORTED) do
    if latest ~= nil then
      desiredObj.status[field] = latest[field]
    else
      desiredObj.status[field] = defaults[field]
    end
  end
  return desiredObj
end
`;

export const FLINK: NewObject[] = [
  customization("flink.apache.org/v1beta1", "FlinkDeployment", {
    healthInterpretation: HEALTH,
    componentResource: `${READ}${TASK_MANAGERS}${COMPONENTS}`,
    replicaResource: `${READ}${TASK_MANAGERS}${REPLICAS}`,
    statusAggregation: `${STATUS_FIELDS}${AGGREGATE}`,
    statusReflection: `${STATUS_FIELDS}${REFLECT}`,
  }),
];
