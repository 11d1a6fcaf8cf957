import { ERRORS, errorLine } from "../model/errors.js";
import { EXIT } from "../model/exit-codes.js";
import { errorCodeOf } from "../pipeline/run-error.js";

/**
 * Errors are handled once, here: one line ending in the error's code, and that code's exit code (2 for bad
 * input: nothing was run). A fault inside gantry prints its stack too with GANTRY_DEBUG=1.
 */
export function reportFailure(error: unknown): number {
  const code = errorCodeOf(error);
  const err = error as { message?: string; stack?: string } | undefined;
  const message = err?.message ?? String(error);
  const internal = ERRORS[code].exit === EXIT.internal;
  // Bad input with several problems (a config with three wrong keys): one line each.
  const all = internal ? undefined : (error as { all?: readonly { message: string }[] } | undefined)?.all;
  for (const one of all ?? [
    { message: code === "GANTRY_E_INTERNAL" ? `internal error: ${message}` : message },
  ])
    process.stderr.write(`${errorLine(one.message, code)}\n`);
  if (internal && process.env.GANTRY_DEBUG && err?.stack) process.stderr.write(`${err.stack}\n`);
  return ERRORS[code].exit;
}
