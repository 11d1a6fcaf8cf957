import { EXIT, type ExitCode } from "./exit-codes.js";

/** What one error code means and how the CLI ends on it. */
export interface ErrorKind {
  exit: ExitCode;
  /** What went wrong, in one line: the same words in docs/errors.md. */
  summary: string;
}

/**
 * Every user-facing error gantry reports, by code. A message names the specifics (file, place, what was
 * expected); the code names the kind, is printed after the message and carried by `run:error` and `--json`.
 */
export const ERRORS = {
  GANTRY_E_USAGE: {
    exit: EXIT.badInput,
    summary: "a command-line option or argument is not valid",
  },
  GANTRY_E_CONFIG: {
    exit: EXIT.badInput,
    summary: ".gantry/config.json does not match its schema, or names something that cannot run",
  },
  GANTRY_E_PRD: {
    exit: EXIT.badInput,
    summary: "a feature's prd.json does not match its schema (a key, a dependency, a cycle)",
  },
  GANTRY_E_JSON: { exit: EXIT.badInput, summary: "a file gantry reads is empty or not valid JSON" },
  GANTRY_E_FILE: {
    exit: EXIT.badInput,
    summary: "a file or directory gantry needs is missing or unreadable",
  },
  GANTRY_E_EXISTS: { exit: EXIT.badInput, summary: "a file the command would create exists already" },
  GANTRY_E_NOT_FOUND: {
    exit: EXIT.badInput,
    summary: "a named run, story, device or schema does not exist",
  },
  GANTRY_E_PLUGIN: {
    exit: EXIT.badInput,
    summary: "a plugin or reporter cannot be loaded, or does not have the shape its kind needs",
  },
  GANTRY_E_REPO: {
    exit: EXIT.badInput,
    summary:
      "the repository is not one a run can start in (no git, no identity, changes, a merge in progress)",
  },
  GANTRY_E_LOCKED: { exit: EXIT.badInput, summary: "another gantry run holds this project's run lock" },
  GANTRY_E_LEDGER_KEY: {
    exit: EXIT.badInput,
    summary: "the ledger key is readable by others or is not the key gantry made",
  },
  GANTRY_E_PLAN: {
    exit: EXIT.badInput,
    summary: "a feature's spec is empty, or the plan session's answer is not a set of stories",
  },
  GANTRY_E_RULES: {
    exit: EXIT.badInput,
    summary: ".gantry/rules.md has a line that is not a rule with an id and a status",
  },
  GANTRY_E_GIT: { exit: EXIT.internal, summary: "a git command gantry ran failed" },
  GANTRY_E_INTERNAL: {
    exit: EXIT.internal,
    summary: "a fault in gantry itself, not in its input (GANTRY_DEBUG=1 prints the stack)",
  },
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];

/** The codes of bad input: the CLI exits 2 on them and nothing was run. */
export type InputErrorCode = {
  [C in ErrorCode]: (typeof ERRORS)[C]["exit"] extends typeof EXIT.badInput ? C : never;
}[ErrorCode];

/** The line the CLI prints for an error: the message, then its code. */
export const errorLine = (message: string, code: ErrorCode) => `gantry: ${message} [${code}]`;
