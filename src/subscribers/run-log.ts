import { join } from "node:path";
import pino from "pino";
import type { EventBus } from "../bus/event-bus.js";
import type { EventName } from "../model/events.js";
import type { Logger } from "../util/logger.js";

export const RUN_LOG_FILE = "run.log";

/** The run's pino JSON log, written synchronously so a crash loses no line. */
export function createRunLogger(
  runDir: string,
  runId: string,
  redact: (line: string) => string = (line) => line,
): Logger & { flush(): void } {
  const destination = pino.destination({ dest: join(runDir, RUN_LOG_FILE), sync: true, mkdir: true });
  const logger = pino(
    { base: { runId }, level: process.env.GANTRY_LOG_LEVEL ?? "info", hooks: { streamWrite: redact } },
    destination,
  );
  return Object.assign(logger, { flush: () => destination.flushSync() });
}

const QUIET: ReadonlySet<EventName> = new Set(["stage:enter", "gate:verdict"]);

/** Logs every event but the chattiest, with its story and outcome, for someone reading the run afterwards. */
export function wireRunLog(bus: EventBus, logger: Logger): () => void {
  return bus.onAny("run-log", (type, event) => {
    if (QUIET.has(type)) return;
    const { runId: _runId, at: _at, ...fields } = event as unknown as Record<string, unknown>;
    if ("rawOutputTail" in fields) fields.rawOutputTail = undefined;
    logger.info({ event: type, ...fields }, type);
  });
}
