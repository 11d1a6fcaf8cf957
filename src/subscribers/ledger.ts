import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { EventBus } from "../bus/event-bus.js";
import { LEDGER_FILE } from "../ledger/entry.js";

/**
 * Appends every gate verdict (`gate:verdict`: built and signed where the gate was judged,
 * src/ledger/record.ts) to ledger.jsonl. One synchronous write a line, so a crash leaves at worst one torn
 * last line. Nothing decides from this file during the run; `gantry ledger` and `ledger check` read it after.
 */
export function wireLedger(bus: EventBus, options: { runDir: string }): () => void {
  const fd = openSync(join(options.runDir, LEDGER_FILE), "a");
  const off = bus.on("gate:verdict", "ledger", (entry) => {
    writeSync(fd, `${JSON.stringify(entry)}\n`);
  });
  return () => {
    off();
    closeSync(fd);
  };
}
