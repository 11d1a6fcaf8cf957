import { NoOptions, parseOptions } from "./options.js";
import type { Reporter, ReporterContext } from "./types.js";

/** The event stream as JSON lines on standard output: `{"type": "story:start", "runId": …, "at": …, …}`. */
export default function json(options: unknown, context: ReporterContext): Reporter {
  parseOptions(NoOptions, options);
  return {
    onEvent(type, payload) {
      context.stdout.write(`${JSON.stringify({ type, ...payload })}\n`);
    },
  };
}
