import { EXIT } from "../model/exit-codes.js";

/** Errors are handled once, here: bad input is one line and exit code 2; anything else is an internal error. */
export function reportFailure(error: unknown): number {
  const err = error as { name?: string; message?: string; exitCode?: number; stack?: string };
  if (err?.name === "InputError") {
    const all = (error as { all?: readonly { message: string }[] }).all ?? [err];
    for (const one of all) process.stderr.write(`gantry: ${one.message}\n`);
    return EXIT.badInput;
  }
  process.stderr.write(`gantry: internal error: ${err?.message ?? String(error)}\n`);
  if (process.env.GANTRY_DEBUG && err?.stack) process.stderr.write(`${err.stack}\n`);
  return EXIT.internal;
}
