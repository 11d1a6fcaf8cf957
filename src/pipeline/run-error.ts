import { InputError } from "../config/input-error.js";
import { GitError } from "../git/git-error.js";
import type { RunErrorCode } from "../model/run.js";

/** The `run:error` code for what stopped the run. */
export function runErrorCode(error: unknown): RunErrorCode {
  if (error instanceof InputError) return "BAD_INPUT";
  if (error instanceof GitError) return "GIT";
  return "INTERNAL";
}
