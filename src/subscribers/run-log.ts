import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { EventBus } from "../bus/event-bus.js";
import type { EventName } from "../model/events.js";
import type { Logger } from "../util/logger.js";

export const RUN_LOG_FILE = "run.log";

const LEVELS = ["debug", "info", "warn", "error"] as const;
type Level = (typeof LEVELS)[number];

/**
 * The run's log as text a person reads, one line each: `2026-03-04T05:06:07.123Z WARN  message  key=value …`
 * (events.jsonl holds the events as JSON). Each line is appended with one synchronous write, so a crash loses
 * none; `GANTRY_LOG_LEVEL` (debug, info, warn, error) sets the least level written, info by default.
 * The file stays open from the first line to `flush()` (the run's end): one write a line, not an open and a close.
 */
export function createRunLogger(
  runDir: string,
  _runId: string,
  redact: (line: string) => string = (line) => line,
): Logger & { flush(): void } {
  mkdirSync(runDir, { recursive: true });
  const file = join(runDir, RUN_LOG_FILE);
  const wanted = LEVELS.indexOf((process.env.GANTRY_LOG_LEVEL ?? "info") as Level);
  const least = wanted < 0 ? 1 : wanted;
  let fd: number | undefined;
  const write = (level: Level) => (fields: object, msg?: string) => {
    if (LEVELS.indexOf(level) < least) return;
    const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${logLine(fields, msg)}\n`;
    fd ??= openSync(file, "a");
    writeSync(fd, redact(line));
  };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    flush() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** `message  key=value key="two words" obj={"a":1}`, on one line; line breaks in values are escaped. */
export function logLine(fields: object, msg?: string): string {
  const parts = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${logValue(value)}`);
  return [msg ?? "", parts.join(" ")].filter(Boolean).join("  ").replace(/\r?\n/g, "\\n");
}

function logValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value instanceof Error) return JSON.stringify(value.message);
  return JSON.stringify(value) ?? String(value);
}

const QUIET: ReadonlySet<EventName> = new Set(["stage:enter", "gate:verdict"]);

/** Logs every event but the chattiest, with its story and outcome, for someone reading the run afterwards. */
export function wireRunLog(bus: EventBus, logger: Logger): () => void {
  return bus.onAny("run-log", (type, event) => {
    if (QUIET.has(type)) return;
    const { runId: _runId, at: _at, ...fields } = event as unknown as Record<string, unknown>;
    if ("rawOutputTail" in fields) fields.rawOutputTail = undefined;
    logger.info(fields, type);
  });
}
