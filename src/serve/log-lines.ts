import { progressLine, stamp } from "../reporters/progress-lines.js";
import type { EventArgs } from "../reporters/types.js";
import type { LoggedEvent } from "./events-tail.js";

/**
 * A run's progress line for a logged event, time-stamped, or undefined for events that get none: the
 * lines the default reporter prints, questions and controls included.
 */
export function logLine(event: LoggedEvent): string | undefined {
  const at = typeof event.at === "string" ? new Date(event.at) : undefined;
  const line = progressLine(...([event.type, event] as unknown as EventArgs));
  if (line === undefined) return undefined;
  return `${at && !Number.isNaN(at.getTime()) ? stamp(at) : ""}${line}`;
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
