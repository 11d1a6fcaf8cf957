import type { Config } from "../config/schema.js";
import type { AgentAdapter } from "./adapter.js";
import { type CliSpec, createCliAdapter, type ParsedSession } from "./cli-adapter.js";
import { lastJsonDocument, num, obj, str } from "./output.js";

/**
 * Claude Code in print mode: `claude -p --output-format json --model M --permission-mode bypassPermissions`,
 * the prompt on standard input. The one JSON result object carries `result`, `is_error`, `total_cost_usd`
 * and `usage`. See docs/agents.md.
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
  parse(output): ParsedSession {
    const result = lastJsonDocument(output);
    if (result?.type !== "result") return {};
    const usage = obj(result.usage);
    const input =
      num(usage.input_tokens) + num(usage.cache_creation_input_tokens) + num(usage.cache_read_input_tokens);
    const failed = result.is_error === true || String(result.subtype ?? "").startsWith("error");
    const message = str(result.result);
    return {
      ...(message !== undefined ? { finalMessage: message } : {}),
      ...(typeof result.usage === "object" ? { usage: [{ input, output: num(usage.output_tokens) }] } : {}),
      ...(typeof result.total_cost_usd === "number" ? { costUsd: result.total_cost_usd } : {}),
      ...(failed ? { error: message || String(result.subtype ?? "error") } : {}),
    };
  },
};

export const createClaudeAdapter = (config: Config): AgentAdapter => createCliAdapter(claudeSpec, config);
