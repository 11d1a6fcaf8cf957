import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

/** One line of events.jsonl as read back: the event's type and its fields (runId and at among them). */
export type LoggedEvent = { type: string; runId?: string; at?: string } & Record<string, unknown>;

const CHUNK = 64 * 1024;
/** One read buffer for every tail: reads are synchronous, so no two use it at once. */
let shared: Buffer | undefined;

/**
 * Reads a growing events.jsonl from where it left off: whole lines only (a line still being written
 * waits for the next read), torn or non-JSON lines skipped and counted. The file may not exist yet.
 */
export class EventsTail {
  private offset = 0;
  private partial = "";
  /** Bytes of a character split across two reads wait here for the rest. */
  private decoder = new StringDecoder("utf8");
  skipped = 0;

  constructor(private readonly path: string) {}

  /** The events appended since the last call, in file order. */
  read(): LoggedEvent[] {
    // Nothing appended (most polls, and every answer that looks): one stat, no open.
    const seen = statSync(this.path, { throwIfNoEntry: false });
    if (!seen || seen.size === this.offset) return [];
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch {
      return [];
    }
    const events: LoggedEvent[] = [];
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        // Truncated or replaced: start again from the top.
        this.offset = 0;
        this.partial = "";
        this.decoder = new StringDecoder("utf8");
      }
      // Nothing new (most polls, and every request that looks): no buffer, no parse.
      if (this.offset === size) return events;
      shared ??= Buffer.allocUnsafe(CHUNK);
      const buffer = shared;
      while (this.offset < size) {
        const n = readSync(fd, buffer, 0, Math.min(CHUNK, size - this.offset), this.offset);
        if (n <= 0) break;
        this.offset += n;
        this.partial += this.decoder.write(buffer.subarray(0, n));
        const lines = this.partial.split("\n");
        this.partial = lines.pop() ?? "";
        for (const line of lines) {
          const event = parse(line);
          if (event) events.push(event);
          else if (line.trim()) this.skipped += 1;
        }
      }
    } finally {
      closeSync(fd);
    }
    return events;
  }
}

function parse(line: string): LoggedEvent | undefined {
  if (!line.trim()) return undefined;
  try {
    const value = JSON.parse(line) as unknown;
    if (typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string")
      return value as LoggedEvent;
  } catch {}
  return undefined;
}
