import { InputError } from "../config/input-error.js";
import { GitError } from "../git/git-error.js";
import type { ErrorCode } from "../model/errors.js";

/** The code of what stopped a command or a run (`run:error`, `--json`, the CLI's last line). */
export function errorCodeOf(error: unknown): ErrorCode {
  if (error instanceof InputError) return error.code;
  if (error instanceof GitError) return "GANTRY_E_GIT";
  return "GANTRY_E_INTERNAL";
}
