/** Every exit code gantry's CLI ends with (design section 10, README "Exit codes"). */
export const EXIT = {
  /** Every selected story passed; a query command found what it looked for. */
  ok: 0,
  /** A story failed, was blocked or skipped; a check (`ledger check`) did not hold. */
  failed: 1,
  /** Bad usage, config or PRD: nothing was run. */
  badInput: 2,
  /** The run paused (interaction, cost limit). */
  paused: 3,
  /** A fault inside gantry itself, not in what it was given or what it judged. */
  internal: 70,
  /** Interrupted by Ctrl-C or SIGTERM. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
