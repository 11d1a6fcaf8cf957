import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { InputError } from "../config/input-error.js";
import { RUNS_DIR } from "../ledger/runs.js";
import { EventsTail } from "../serve/events-tail.js";
import { logLine } from "../serve/log-lines.js";
import { EVENTS_LOG, listRunFiles, RUN_ENDS, readRunFiles, runExists } from "../serve/run-files.js";
import { projectRoot } from "./project.js";

export interface LogsOptions {
  dir?: string;
  feature?: string;
  run?: string;
  follow?: boolean;
  json?: boolean;
  /** How often a followed run's files are read again. */
  pollMs?: number;
}

/**
 * `gantry logs`: a run's progress lines (the newest run, of a feature with -f), read from its events.jsonl;
 * with --follow, the lines of a live run as they are written, until it ends (or its process is gone).
 */
export async function logsCommand(options: LogsOptions): Promise<number> {
  const root = projectRoot(options.dir);
  const runId = pickRun(root, options);
  if (runId === undefined) {
    process.stdout.write(
      `no runs under ${RUNS_DIR}/${options.feature ? ` for feature ${options.feature}` : ""} yet\n`,
    );
    return 0;
  }
  const files = readRunFiles(root, runId);
  const tail = new EventsTail(join(files.dir, EVENTS_LOG));
  if (!options.json)
    process.stderr.write(`run ${runId}${files.feature ? ` (feature ${files.feature})` : ""}\n`);
  let ended = false;
  const print = () => {
    for (const event of tail.read()) {
      if (RUN_ENDS.has(event.type)) ended = true;
      const line = options.json ? JSON.stringify(event) : logLine(event);
      if (line !== undefined) process.stdout.write(`${line}\n`);
    }
  };
  print();
  if (options.follow) {
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGINT", onSignal);
    try {
      // Read once more after the process is gone: its last lines may have landed after the previous read.
      while (!ended && !stop.signal.aborted && readRunFiles(root, runId).live) {
        await sleep(options.pollMs ?? 250, undefined, { signal: stop.signal }).catch(() => {});
        print();
      }
      print();
    } finally {
      process.off("SIGINT", onSignal);
    }
  }
  tail.close();
  if (tail.skipped > 0)
    process.stderr.write(
      `gantry: skipped ${tail.skipped} torn or unreadable lines in ${RUNS_DIR}/${runId}/${EVENTS_LOG}\n`,
    );
  return 0;
}

function pickRun(root: string, options: LogsOptions): string | undefined {
  if (options.run !== undefined) {
    if (!runExists(root, options.run)) {
      const newest = listRunFiles(root).at(-1)?.runId;
      throw new InputError(
        "--run",
        "",
        `no run ${JSON.stringify(options.run)} under ${RUNS_DIR}/${newest ? ` (newest: ${newest})` : ""}`,
        "GANTRY_E_NOT_FOUND",
      );
    }
    const run = readRunFiles(root, options.run);
    if (options.feature !== undefined && run.feature !== options.feature)
      throw new InputError(
        "--run",
        "",
        `run ${options.run} is of feature ${run.feature ?? "(unknown)"}, not ${options.feature}`,
        "GANTRY_E_NOT_FOUND",
      );
    return options.run;
  }
  return listRunFiles(root, options.feature).at(-1)?.runId;
}
