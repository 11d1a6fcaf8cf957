import type { Config } from "../config/schema.js";
import type { AgentAdapter } from "./adapter.js";
import { claudeReadiness } from "./claude-readiness.js";
import { type CliSpec, createCliAdapter, type ModelUsage, type ParsedSession } from "./cli-adapter.js";
import { lastJsonDocument, num, obj, str } from "./output.js";

/** What Claude Code says on stderr when asked to skip permissions as root outside a sandbox it knows of. */
export const CLAUDE_ROOT_REFUSAL = /cannot be used with root\/sudo privileges/i;

/**
 * Claude Code in print mode: `claude -p --output-format json --model M --permission-mode bypassPermissions`,
 * the prompt on standard input. The one JSON result object carries `result`, `is_error`, `total_cost_usd`,
 * `usage` (the main loop) and `modelUsage` (every model the session called, side calls included). Inside
 * gantry's sandbox the session is told so (IS_SANDBOX=1), which is what lets it run as root. See docs/agents.md.
 */
export const claudeSpec: CliSpec = {
  name: "claude",
  bin: "claude",
  defaultModels: { fast: "haiku", balanced: "sonnet", powerful: "opus" },
  promptOnStdin: true,
  args: (request) => [
    "-p",
    "--output-format",
    "json",
    "--model",
    request.model,
    "--permission-mode",
    "bypassPermissions",
  ],
  env: (request): Record<string, string> => (request.sandbox ? { IS_SANDBOX: "1" } : {}),
  authHelp: "run `claude auth login`, or set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a gateway)",
  setupProblem: (said) =>
    CLAUDE_ROOT_REFUSAL.test(said)
      ? 'Claude Code refuses to skip permissions as root outside a sandbox: set agent.sandbox to "auto" or "bwrap" (bubblewrap installed), or run gantry as a user other than root'
      : undefined,
  readiness: claudeReadiness,
  parse(output): ParsedSession {
    const result = lastJsonDocument(output);
    if (result?.type !== "result") return {};
    const failed = result.is_error === true || String(result.subtype ?? "").startsWith("error");
    const message = str(result.result);
    const usage = modelUsage(result.modelUsage) ?? mainLoopUsage(result.usage);
    return {
      ...(message !== undefined ? { finalMessage: message } : {}),
      ...(usage ? { usage } : {}),
      ...(typeof result.total_cost_usd === "number" ? { costUsd: result.total_cost_usd } : {}),
      ...(failed ? { error: message || String(result.subtype ?? "error") } : {}),
    };
  },
};

/** `modelUsage`: tokens per model for the whole session, the side calls (titles, checks) included. */
function modelUsage(value: unknown): ModelUsage[] | undefined {
  const entries = Object.entries(obj(value));
  if (entries.length === 0) return undefined;
  return entries.map(([model, raw]) => {
    const u = obj(raw);
    return {
      model,
      input: num(u.inputTokens) + num(u.cacheReadInputTokens) + num(u.cacheCreationInputTokens),
      output: num(u.outputTokens),
    };
  });
}

/** `usage`: the main loop only, for a release without `modelUsage`. */
function mainLoopUsage(value: unknown): ModelUsage[] | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const u = obj(value);
  const input = num(u.input_tokens) + num(u.cache_creation_input_tokens) + num(u.cache_read_input_tokens);
  return [{ input, output: num(u.output_tokens) }];
}

export const createClaudeAdapter = (config: Config): AgentAdapter => createCliAdapter(claudeSpec, config);
