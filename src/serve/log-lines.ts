import { progressLine, stamp } from "../reporters/progress-lines.js";
import type { EventArgs } from "../reporters/types.js";
import { oneLine } from "../util/text.js";
import type { LoggedEvent } from "./events-tail.js";

/**
 * A run's progress line for a logged event, time-stamped, or undefined for events that get none: the
 * reporters' lines, plus the questions a run asked and the controls it was given (`gantry serve`).
 */
export function logLine(event: LoggedEvent): string | undefined {
  const at = typeof event.at === "string" ? new Date(event.at) : undefined;
  const line = ownLine(event) ?? progressLine(...([event.type, event] as unknown as EventArgs));
  if (line === undefined) return undefined;
  return `${at && !Number.isNaN(at.getTime()) ? stamp(at) : ""}${line}`;
}

function ownLine(event: LoggedEvent): string | undefined {
  const e = event as Record<string, unknown>;
  switch (event.type) {
    case "interaction:request":
      return `asks (${String(e.trigger)}${e.storyId ? `, ${String(e.storyId)}` : ""}): ${oneLine(String(e.summary))} [${(e.options as string[]).join(", ")}]`;
    case "interaction:response":
      return `answered ${String(e.trigger)}: ${String(e.action)} (${String(e.respondedBy)})`;
    case "run:control":
      return `control ${String(e.action)}${e.storyId ? ` ${String(e.storyId)}` : ""} (${String(e.by)})`;
    default:
      return undefined;
  }
}

/** The newest progress lines of a run, bounded, each with its JSON made once when it came (a view is made at every change). */
export class LogTail {
  readonly lines: string[] = [];
  private readonly json: string[] = [];

  constructor(private readonly kept: number) {}

  push(line: string): void {
    this.lines.push(line);
    this.json.push(JSON.stringify(line));
    if (this.lines.length > this.kept) {
      this.lines.splice(0, this.lines.length - this.kept);
      this.json.splice(0, this.json.length - this.kept);
    }
  }

  /** JSON.stringify(lines), from the lines' JSON. */
  toJson(): string {
    return `[${this.json.join(",")}]`;
  }
}
