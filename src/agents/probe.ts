/**
 * Whether the configured agent can start here, asked before any story is run: the command adapter's
 * program is looked up by the shell, a named CLI is run with `--version` (its own process group, a
 * timeout, the group killed after it). Nothing is written and no session is started.
 */
import type { Config } from "../config/schema.js";
import { programProblem } from "../process/command-word.js";
import { execCommand } from "../process/executor.js";
import { shellQuote } from "../util/shell-quote.js";
import { oneLine } from "../util/text.js";
import type { AgentAdapter, ReadinessFinding } from "./adapter.js";
import { withoutLines } from "./ask-cli.js";

export const VERSION_TIMEOUT_MS = 10_000;

export type AgentProbe =
  /** It can start; `detail` says what was found (the version line, the command), `checks` the rest. */
  | { kind: "ready"; detail: string; checks?: ReadinessFinding[] }
  /** It may start, but could not be confirmed (a slow `--version`); the run goes on. */
  | { kind: "unconfirmed"; detail: string }
  /** It cannot start: `where` is the config key at fault, `problem` what the shell said. */
  | { kind: "broken"; where: string; problem: string };

export async function probeAgent(
  adapter: AgentAdapter,
  config: Config,
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = VERSION_TIMEOUT_MS,
  /** How a program is looked up (the pre-flight's shares one shell among its lookups). */
  lookUp = (command: string) => programProblem(command, cwd, env),
  /** Ask the adapter's offline checks too (login, root, trust, models), for a run sandboxed or not. */
  readiness?: { sandboxed: boolean },
): Promise<AgentProbe> {
  if (adapter.name === "command") {
    const run = config.agent.command?.run;
    if (!run) {
      return {
        kind: "broken",
        where: "agent.command.run",
        problem:
          'not set; agent.default "command" runs this command with the prompt on standard input (or set agent.default to claude, codex, gemini, aider or opencode)',
      };
    }
    const problem = await lookUp(run);
    return problem
      ? {
          kind: "broken",
          where: "agent.command.run",
          problem: `cannot start "${oneLine(run, 200)}": ${problem}`,
        }
      : { kind: "ready", detail: `runs: ${oneLine(run, 200)}` };
  }
  if (!adapter.bin) return { kind: "ready", detail: "no executable to check (a plugin's adapter)" };
  if (!adapter.versionArgs) {
    const problem = await lookUp(shellQuote(adapter.bin));
    return problem
      ? { kind: "broken", where: "agent.default", problem: `"${adapter.name}" cannot start: ${problem}` }
      : { kind: "ready", detail: adapter.bin };
  }
  const command = [adapter.bin, ...adapter.versionArgs].map(shellQuote).join(" ");
  const result = await execCommand({
    command,
    cwd,
    env,
    timeoutMs,
    killGraceMs: 1000,
    tailBytes: 16 * 1024,
  });
  const said = lines(result.output);
  const shown = `${adapter.bin} ${adapter.versionArgs.join(" ")}`;
  if (result.timedOut) {
    return {
      kind: "unconfirmed",
      detail: `${shown} did not answer within ${timeoutMs / 1000} s (killed); it may still work`,
    };
  }
  if (result.spawnError || result.exitCode !== 0) {
    const why = result.spawnError ?? telling(said) ?? `exit code ${result.exitCode ?? result.signal}`;
    const hint = result.exitCode === 127 ? `; install it or choose another agent.default` : "";
    return {
      kind: "broken",
      where: "agent.default",
      problem: `"${adapter.name}" cannot start: ${shown} failed: ${oneLine(why, 300)}${hint}`,
    };
  }
  // A warning on stderr (Codex's about its helper aliases) is not the version.
  const version = lines(withoutLines(result.output, result.stderrTail));
  const detail = version[0] ? oneLine(version[0], 120) : `${shown}: ok`;
  if (!readiness || !adapter.readiness) return { kind: "ready", detail };
  const checks = await adapter.readiness({
    cwd,
    env,
    sandboxed: readiness.sandboxed,
    root: process.getuid?.() === 0,
    models: [...new Set(config.routing.tiers.map((tier) => adapter.modelFor(tier)))],
  });
  const broken = checks.filter((c) => c.kind === "broken");
  if (broken.length > 0) {
    return {
      kind: "broken",
      where: "agent.default",
      problem: `"${adapter.name}" sessions would fail: ${broken.map((c) => c.text).join("; ")}`,
    };
  }
  return { kind: "ready", detail, checks };
}

/** The line that says what went wrong: the last one naming an error, else the last one. */
function telling(said: string[]): string | undefined {
  return said.findLast((l) => /error|not found|denied|cannot|no such/i.test(l)) ?? said.at(-1);
}

function lines(output: string): string[] {
  return output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}
