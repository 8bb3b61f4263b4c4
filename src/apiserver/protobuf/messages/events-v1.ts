import type { PackageTable } from "../schema.ts";

/** events.k8s.io/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const eventsV1: PackageTable = {
  package: "events.v1",
  apiVersion: "events.k8s.io/v1",
  kinds: ["Event"],
  messages: `
Event
  metadata 1 meta.v1.ObjectMeta
  eventTime 2 microtime
  series 3 *EventSeries
  reportingController 4 string omitempty
  reportingInstance 5 string omitempty
  action 6 string omitempty
  reason 7 string omitempty
  regarding 8 core.v1.ObjectReference
  related 9 *core.v1.ObjectReference
  note 10 string omitempty
  type 11 string omitempty
  deprecatedSource 12 core.v1.EventSource
  deprecatedFirstTimestamp 13 time
  deprecatedLastTimestamp 14 time
  deprecatedCount 15 int32 omitempty
EventSeries
  count 1 int32
  lastObservedTime 2 microtime
`,
};
