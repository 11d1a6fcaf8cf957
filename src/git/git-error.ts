/** A git command gantry ran failed; the message names the command, the repository and git's stderr. */
export class GitError extends Error {
  override name = "GitError";
  /** git's exit code, when it ran and failed. */
  readonly exitCode: number | undefined;
  readonly stderr: string;
  constructor(
    message: string,
    options: { cause?: unknown; exitCode?: number | undefined; stderr?: string } = {},
  ) {
    super(message, { cause: options.cause });
    this.exitCode = options.exitCode;
    this.stderr = options.stderr ?? "";
  }
}

/** The user's index is locked by another git (an editor, a `git status`) past the time gantry waits. */
export class IndexLocked extends GitError {
  override name = "IndexLocked";
}

/** The line of a git failure that says what is wrong, without "fatal: " and the advice around it. */
export function gitReason(error: unknown): string {
  const stderr = (error as { cause?: { stderr?: unknown } })?.cause?.stderr;
  const message =
    typeof stderr === "string" && stderr.trim()
      ? stderr
      : error instanceof Error
        ? error.message
        : String(error);
  const code = (error as { cause?: { code?: unknown } })?.cause?.code;
  if (
    (error as NodeJS.ErrnoException)?.code === "ENOENT" ||
    code === "ENOENT" ||
    code === 127 ||
    /spawn git ENOENT/.test(message)
  )
    return "git is not installed or not on PATH";
  const lines = message.split("\n").map((l) => l.trim());
  const fatal = lines.find((l) => /^(fatal|error):/.test(l)) ?? lines.find((l) => l !== "") ?? message;
  return fatal.replace(/^(fatal|error):\s*/, "");
}
