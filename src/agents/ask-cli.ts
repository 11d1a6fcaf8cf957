/**
 * One short offline question to an agent CLI for the pre-flight (`claude auth status`, `codex login status`,
 * `codex debug models`): its own process group, a timeout, nothing written by gantry.
 */
import { execCommand } from "../process/executor.js";
import { shellQuote } from "../util/shell-quote.js";

export const ASK_TIMEOUT_MS = 15_000;

export interface CliAnswer {
  /** Exit code, or null when it did not finish (timeout, no such program). */
  code: number | null;
  /** What it printed to standard output, without standard error's lines. */
  stdout: string;
  stderr: string;
}

export async function askCli(
  bin: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<CliAnswer> {
  const result = await execCommand({
    command: [bin, ...args].map(shellQuote).join(" "),
    cwd,
    env,
    timeoutMs: ASK_TIMEOUT_MS,
    killGraceMs: 1000,
    tailBytes: 4 * 1024 * 1024,
  });
  return {
    code: result.timedOut || result.spawnError ? null : result.exitCode,
    stdout: withoutLines(result.output, result.stderrTail),
    stderr: result.stderrTail,
  };
}

/** `output` (stdout and stderr interleaved) without the lines that came from stderr. */
export function withoutLines(output: string, stderr: string): string {
  const fromStderr = new Set(
    stderr
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean),
  );
  return output
    .split("\n")
    .filter((l) => !fromStderr.has(l.trim()))
    .join("\n");
}
