import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../util/logger.js";

export const RUN_LOG_FILE = "run.log";

const LEVELS = new Set(["debug", "info", "warn", "error"]);

/**
 * The run's diagnostics (not its events: events.jsonl holds those, `gantry logs` shows them): pino's JSON
 * lines in `run.log`, to read with `jq` or `pino-pretty`. An error under `err` keeps its stack and `cause`.
 * Each line is appended with one synchronous write, secrets redacted, so a crash loses none;
 * `GANTRY_LOG_LEVEL` (debug, info, warn, error) sets the least level written, info by default. pino is
 * loaded here, when a run starts, not with every command.
 */
export async function createRunLogger(
  runDir: string,
  runId: string,
  redact: (line: string) => string = (line) => line,
): Promise<Logger & { flush(): void }> {
  // pino is CommonJS: bundled, its function is the module's default export, not a named one.
  const loaded = await import("pino");
  const pino = (loaded.default ?? loaded.pino) as typeof loaded.pino;
  mkdirSync(runDir, { recursive: true });
  const file = join(runDir, RUN_LOG_FILE);
  let fd: number | undefined;
  // The file stays open from the first line to flush() (the run's end): one write a line.
  const destination = {
    write(line: string) {
      fd ??= openSync(file, "a");
      writeSync(fd, redact(line));
    },
  };
  const level = process.env.GANTRY_LOG_LEVEL ?? "info";
  const logger = pino(
    {
      level: LEVELS.has(level) ? level : "info",
      base: { runId },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: pino.stdSerializers.errWithCause },
    },
    destination,
  );
  return Object.assign(logger as unknown as Logger, {
    flush() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  });
}
