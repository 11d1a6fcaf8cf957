import type { Config } from "../config/schema.js";
import type { CostBasis } from "../model/agent.js";
import { execCommand } from "../process/executor.js";
import { shellQuote } from "../util/shell-quote.js";
import { oneLine } from "../util/text.js";
import type {
  AgentAdapter,
  AgentRequest,
  AgentResult,
  ReadinessContext,
  ReadinessFinding,
  TokenUsage,
} from "./adapter.js";
import { sessionExecOptions } from "./command.js";
import { looksLikeAuthFailure, stderrWords } from "./failure.js";
import { looksRateLimited } from "./output.js";

/** Tokens one model used in a session; `model` is absent when the CLI does not say (then it is the request's). */
export interface ModelUsage extends TokenUsage {
  model?: string;
}

/** What an adapter reads from its CLI's output once the session is over. */
export interface ParsedSession {
  finalMessage?: string;
  usage?: ModelUsage[];
  /** USD the CLI itself reported for the session. */
  costUsd?: number;
  /** The CLI said the session failed even though it may have exited 0. */
  error?: string;
  /** The failure is in the setup (its sandbox, its config), not the story: no tier will do better. */
  setupProblem?: string;
}

/** One coding-agent CLI: how to call it non-interactively and how to read what it printed. */
export interface CliSpec {
  name: string;
  bin: string;
  /** The model per tier when `agent.models.<name>.<tier>` does not name one; `balanced` also covers other tiers. */
  defaultModels: { fast: string; balanced: string; powerful: string };
  /** The arguments after the executable. The prompt never goes here: it is on stdin or in a file. */
  args(request: AgentRequest): string[];
  /** Whether the prompt is written to standard input (otherwise stdin is closed at once). */
  promptOnStdin: boolean;
  parse(output: string): ParsedSession;
  /** Variables the session gets besides the GANTRY_* ones (e.g. telling the CLI it is sandboxed). */
  env?(request: AgentRequest): Record<string, string>;
  /** A failure in the CLI's words (stderr, its error) that is a setup problem: what to do about it. */
  setupProblem?(said: string, exitCode: number | null): string | undefined;
  /** What a person does when the CLI could not authenticate. */
  authHelp?: string;
  readiness?(context: ReadinessContext): Promise<ReadinessFinding[]>;
}

const OUTPUT_TAIL = 4 * 1024 * 1024;
const RESULT_TAIL = 256 * 1024;

/** Builds the AgentAdapter for one CLI spec: model per tier, the run with timeout and group kill, cost. */
export function createCliAdapter(spec: CliSpec, config: Config): AgentAdapter {
  const models = config.agent.models[spec.name] ?? {};
  const defaults: Record<string, string> = spec.defaultModels;
  return {
    name: spec.name,
    bin: spec.bin,
    versionArgs: ["--version"],
    modelFor: (tier) => models[tier] ?? defaults[tier] ?? spec.defaultModels.balanced,
    ...(spec.readiness ? { readiness: spec.readiness } : {}),
    async run(request: AgentRequest): Promise<AgentResult> {
      const options = sessionExecOptions(request);
      const result = await execCommand({
        ...options,
        env: { ...options.env, ...spec.env?.(request) },
        command: commandLine(spec.bin, spec.args(request)),
        ...(spec.promptOnStdin ? { input: request.prompt } : {}),
        tailBytes: OUTPUT_TAIL,
      });
      const parsed = safeParse(spec, result.output);
      const tokens = sumUsage(parsed.usage);
      const cost = sessionCost(parsed, request.model, config.agent.prices);
      // With no error of its own in the output, the CLI's standard error says why it stopped.
      const said = parsed.error ?? (result.exitCode !== 0 ? stderrWords(result.stderrTail) : undefined);
      const error = result.timedOut
        ? `${spec.name} did not finish within ${Math.round(request.timeoutMs / 1000)} s and was killed`
        : result.aborted
          ? `${spec.name} was interrupted`
          : result.spawnError
            ? `${spec.name} could not start: ${result.spawnError}`
            : result.exitCode === 127
              ? `${spec.bin} is not on PATH (exit code 127); install it or choose another agent.default`
              : result.exitCode !== 0
                ? `${spec.name} exited with code ${result.exitCode ?? result.signal}${said ? `: ${oneLine(said, 400)}` : ""}`
                : parsed.error
                  ? `${spec.name} reported an error: ${oneLine(parsed.error, 300)}`
                  : undefined;
      const rateLimited =
        error !== undefined &&
        !result.timedOut &&
        !result.aborted &&
        looksRateLimited(
          `${parsed.error ?? ""}\n${result.stderrTail.slice(-8192)}\n${result.output.slice(-8192)}`,
        );
      const setupProblem =
        error === undefined || result.timedOut || result.aborted
          ? undefined
          : setupProblemOf(spec, parsed, `${said ?? ""}\n${result.stderrTail.slice(-8192)}`, result.exitCode);
      return {
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        aborted: result.aborted,
        durationMs: result.durationMs,
        costUsd: cost.usd,
        costBasis: cost.basis,
        output: result.output.slice(-RESULT_TAIL),
        ...(error ? { error } : {}),
        ...(tokens ? { tokens } : {}),
        ...(parsed.finalMessage !== undefined ? { finalMessage: parsed.finalMessage } : {}),
        ...(rateLimited && !setupProblem ? { rateLimited } : {}),
        ...(setupProblem ? { setupProblem } : {}),
      };
    },
  };
}

/** A failed session's cause when it is the setup's: the CLI's own verdict, a refused key, or its config. */
function setupProblemOf(
  spec: CliSpec,
  parsed: ParsedSession,
  said: string,
  exitCode: number | null,
): string | undefined {
  if (parsed.setupProblem) return parsed.setupProblem;
  const own = spec.setupProblem?.(said, exitCode);
  if (own) return own;
  if (!looksLikeAuthFailure(`${parsed.error ?? ""}\n${said}`)) return undefined;
  const words = oneLine(parsed.error ?? stderrWords(said) ?? "authentication failed", 300);
  return `${spec.name} could not authenticate (${words}): ${spec.authHelp ?? `log in to ${spec.bin} or set its API key`}`;
}

/** A parser that throws on output it did not expect must not lose the session's result. */
function safeParse(spec: CliSpec, output: string): ParsedSession {
  try {
    return spec.parse(output);
  } catch {
    return {};
  }
}

/** `bin 'arg' 'arg'`: every argument single-quoted for /bin/sh, so nothing in it is expanded. */
export function commandLine(bin: string, args: string[]): string {
  return [bin, ...args].map(shellQuote).join(" ");
}

function sumUsage(usage: ModelUsage[] | undefined): TokenUsage | undefined {
  if (!usage || usage.length === 0) return undefined;
  return usage.reduce((sum, u) => ({ input: sum.input + u.input, output: sum.output + u.output }), {
    input: 0,
    output: 0,
  });
}

type Prices = Config["agent"]["prices"];

/**
 * The CLI's own figure is `exact`. Otherwise tokens priced from `agent.prices` are `estimated`, but only when
 * every model the session used has a price; anything less is `unknown` (0), never a silent undercount.
 */
export function sessionCost(
  parsed: ParsedSession,
  requestModel: string,
  prices: Prices,
): { usd: number; basis: CostBasis } {
  if (parsed.costUsd !== undefined && Number.isFinite(parsed.costUsd) && parsed.costUsd >= 0) {
    return { usd: parsed.costUsd, basis: "exact" };
  }
  const usage = parsed.usage ?? [];
  if (usage.length === 0) return { usd: 0, basis: "unknown" };
  let usd = 0;
  for (const u of usage) {
    const price = priceFor(prices, u.model ?? requestModel);
    if (!price) return { usd: 0, basis: "unknown" };
    usd += (u.input * price.inputPerMTok + u.output * price.outputPerMTok) / 1_000_000;
  }
  return { usd, basis: "estimated" };
}

/** By the exact model name, else by the part after a provider prefix (`anthropic/claude-x` → `claude-x`). */
function priceFor(prices: Prices, model: string): Prices[string] | undefined {
  return prices[model] ?? prices[model.slice(model.lastIndexOf("/") + 1)];
}
