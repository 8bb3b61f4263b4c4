/**
 * The Event table, for `v1` Events and for `events.k8s.io/v1` Events: both are one stored kind, so
 * the second is read through the field names of the first.
 */

import { timestampOf, translateTimestampSince } from "./age.ts";
import { fieldColumn, nameOf } from "./cells.ts";
import { at, has, int, isObject, str } from "./read.ts";
import type { KindPrinter, KubeObject } from "./types.ts";

function since(timestamp: unknown, now: number): string | undefined {
  return timestampOf(timestamp) === null ? undefined : translateTimestampSince(timestamp, now);
}

/** Component and host of the source, falling back to the reporting controller and instance. */
function eventSource(event: KubeObject): string {
  const component = str(event, "source", "component") || str(event, "reportingComponent");
  const instance = str(event, "source", "host") || str(event, "reportingInstance");
  return instance === "" ? component : `${component}, ${instance}`;
}

/** Subobject, Source, First Seen, Count and Name show only with `-o wide`. */
export const eventPrinter: KindPrinter = {
  columns: [
    fieldColumn("Last Seen", "string", "Event.lastTimestamp"),
    fieldColumn("Type", "string", "Event.type"),
    fieldColumn("Reason", "string", "Event.reason"),
    fieldColumn("Object", "string", "Event.involvedObject"),
    fieldColumn("Subobject", "string", "ObjectReference.fieldPath", { priority: 1 }),
    fieldColumn("Source", "string", "Event.source", { priority: 1 }),
    fieldColumn("Message", "string", "Event.message"),
    fieldColumn("First Seen", "string", "Event.firstTimestamp", { priority: 1 }),
    fieldColumn("Count", "string", "Event.count", { priority: 1 }),
    fieldColumn("Name", "string", "ObjectMeta.name", { priority: 1, format: "name" }),
  ],
  row(event, now) {
    const firstSeen = since(event.firstTimestamp, now) ?? translateTimestampSince(event.eventTime, now);
    let lastSeen = since(event.lastTimestamp, now) ?? firstSeen;
    let count = int(event, "count");
    if (isObject(event.series)) {
      lastSeen = translateTimestampSince(at(event, "series", "lastObservedTime"), now);
      count = int(event, "series", "count");
    } else if (count === 0) {
      // Singleton events of the events.k8s.io API carry no count.
      count = 1;
    }
    const kind = str(event, "involvedObject", "kind").toLowerCase();
    const involvedName = str(event, "involvedObject", "name");
    return [
      lastSeen,
      str(event, "type"),
      str(event, "reason"),
      involvedName === "" ? kind : `${kind}/${involvedName}`,
      str(event, "involvedObject", "fieldPath"),
      eventSource(event),
      str(event, "message").trim(),
      firstSeen,
      count,
      nameOf(event),
    ];
  },
};

/** An `events.k8s.io/v1` Event in the field names of a `v1` Event. */
export function eventFromEventsApi(event: KubeObject): KubeObject {
  const core: KubeObject = {
    metadata: event.metadata,
    involvedObject: event.regarding,
    message: event.note,
    source: event.deprecatedSource,
    firstTimestamp: event.deprecatedFirstTimestamp,
    lastTimestamp: event.deprecatedLastTimestamp,
    count: event.deprecatedCount,
    eventTime: event.eventTime,
    type: event.type,
    reason: event.reason,
    reportingComponent: event.reportingController,
    reportingInstance: event.reportingInstance,
  };
  if (has(event, "series")) {
    core.series = {
      count: at(event, "series", "count"),
      lastObservedTime: at(event, "series", "lastObservedTime"),
    };
  }
  return core;
}

export const eventsApiEventPrinter: KindPrinter = {
  columns: eventPrinter.columns,
  row: (event, now) => eventPrinter.row(eventFromEventsApi(event), now),
};
