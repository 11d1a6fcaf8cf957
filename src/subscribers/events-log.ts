import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { EventBus } from "../bus/event-bus.js";

export const EVENTS_FILE = "events.jsonl";

/** Every bus event, one JSON object a line, in the order emitted; the file stays open for the run. */
export function wireEventsLog(
  bus: EventBus,
  options: { runDir: string; redact?: (line: string) => string },
): () => void {
  const fd = openSync(join(options.runDir, EVENTS_FILE), "a");
  const redact = options.redact ?? ((line: string) => line);
  const off = bus.onAny("events-log", (type, event) => {
    writeSync(fd, `${redact(JSON.stringify({ type, ...event }))}\n`);
  });
  return () => {
    off();
    closeSync(fd);
  };
}
