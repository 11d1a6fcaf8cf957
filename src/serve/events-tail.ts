import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

/** One line of events.jsonl as read back: the event's type and its fields (runId and at among them). */
export type LoggedEvent = { type: string; runId?: string; at?: string } & Record<string, unknown>;

const CHUNK = 64 * 1024;
/** One read buffer for every tail: reads are synchronous, so no two use it at once. */
let shared: Buffer | undefined;

/**
 * Reads a growing events.jsonl from where it left off: whole lines only (a line still being written
 * waits for the next read), torn or non-JSON lines skipped and counted. The file may not exist yet. The file
 * stays open between reads until `close()` (a live run's, read many times a second); the watcher closes it
 * once the run is not live.
 */
export class EventsTail {
  private offset = 0;
  private partial = "";
  /** Bytes of a character split across two reads wait here for the rest. */
  private decoder = new StringDecoder("utf8");
  private fd: number | undefined;
  /** The inode the open file has: another one at the path is a replaced file, read from the top. */
  private ino = 0;
  skipped = 0;

  constructor(private readonly path: string) {}

  /** The events appended since the last call, in file order; a file truncated or replaced is read from the top. */
  read(): LoggedEvent[] {
    // Nothing appended (most polls): one stat, no read.
    const seen = statSync(this.path, { throwIfNoEntry: false });
    if (!seen) {
      this.close();
      return [];
    }
    if (seen.ino !== this.ino || seen.size < this.offset) {
      // Replaced or truncated: start again from the top.
      this.close();
      this.restart(seen.ino);
    }
    if (seen.size === this.offset) return [];
    if (this.fd === undefined && !this.open()) return [];
    return this.readOn();
  }

  /**
   * What was appended to the file already open, without looking at the path (an answer to a question asked
   * since the last poll: a read that finds nothing is one `pread`, not a stat); the polls' read() finds a
   * file truncated or replaced.
   */
  readAppended(): LoggedEvent[] {
    return this.fd === undefined ? this.read() : this.readOn();
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): boolean {
    try {
      this.fd = openSync(this.path, "r");
    } catch {
      return false;
    }
    // Replaced between the stat and the open: the file opened is read from its top.
    const ino = fstatSync(this.fd).ino;
    if (ino !== this.ino) this.restart(ino);
    return true;
  }

  private restart(ino: number): void {
    this.ino = ino;
    this.offset = 0;
    this.partial = "";
    this.decoder = new StringDecoder("utf8");
  }

  /** Reads the open file from the offset to its end. */
  private readOn(): LoggedEvent[] {
    const fd = this.fd as number;
    const events: LoggedEvent[] = [];
    shared ??= Buffer.allocUnsafe(CHUNK);
    const buffer = shared;
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, this.offset);
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
      if (n < CHUNK) break;
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
