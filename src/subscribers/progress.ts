import type { EventBus } from "../bus/event-bus.js";
import { progressLine, stamp } from "../reporters/progress-lines.js";
import type { EventArgs } from "../reporters/types.js";

export interface ProgressOptions {
  write: (line: string) => void;
  now?: () => Date;
}

/** Plain progress: one timestamped line per story event and stage result (the lines of `progressLine`). */
export function wireProgress(bus: EventBus, options: ProgressOptions): () => void {
  return bus.onAny("progress", (type, event) => {
    const line = progressLine(...([type, event] as EventArgs));
    if (line !== undefined) options.write(`${stamp(options.now?.() ?? new Date())}${line}\n`);
  });
}
