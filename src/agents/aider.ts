import type { Config } from "../config/schema.js";
import type { AgentAdapter } from "./adapter.js";
import { type CliSpec, createCliAdapter, type ModelUsage, type ParsedSession } from "./cli-adapter.js";

/**
 * Aider: `aider --message-file <prompt file> --model M --yes-always --no-auto-commits ...`. Aider reads no
 * prompt from stdin; the prompt is the session's prompt file. Its plain-text report lines
 * `Tokens: 3.0k sent, 42 received. Cost: $0.0063 message, $0.0063 session.` give tokens and cost.
 * See docs/agents.md.
 */
export const aiderSpec: CliSpec = {
  name: "aider",
  bin: "aider",
  defaultModels: { fast: "haiku", balanced: "sonnet", powerful: "opus" },
  promptOnStdin: false,
  args: (request) => [
    "--message-file",
    request.promptFile,
    "--model",
    request.model,
    "--yes-always",
    "--no-auto-commits",
    "--no-dirty-commits",
    "--no-gitignore",
    "--no-pretty",
    "--no-stream",
    "--no-check-update",
    "--no-show-model-warnings",
    "--no-suggest-shell-commands",
    "--analytics-disable",
  ],
  parse: parseAiderOutput,
};

const TOKENS =
  /Tokens: ([\d.,]+[kM]?) sent(?:, [\d.,]+[kM]? cache write)?(?:, [\d.,]+[kM]? cache hit)?, ([\d.,]+[kM]?) received\./;
const COST = /Cost: \$([\d.]+) (?:message|request), \$([\d.]+) session\./;
const API_ERROR =
  /^.*(?:litellm\.\w*Error|\w+Error: .*(?:API|api)|APIError|RateLimitError|AuthenticationError).*$/m;
const FINAL_CHARS = 4000;

export function parseAiderOutput(output: string): ParsedSession {
  const lines = output.split(/\r?\n/);
  const usage: ModelUsage[] = [];
  let session: number | undefined;
  let lastReport = -1;
  let previousReport = -1;
  lines.forEach((line, index) => {
    const tokens = TOKENS.exec(line);
    if (!tokens) return;
    usage.push({ input: count(tokens[1] ?? "0"), output: count(tokens[2] ?? "0") });
    const cost = COST.exec(line);
    if (cost) session = Number(cost[2]);
    previousReport = lastReport;
    lastReport = index;
  });
  if (lastReport < 0) {
    // No model call finished: an API error (or a rate limit aider gave up retrying) ends the run, often with exit 0.
    const error = API_ERROR.exec(output)?.[0]?.trim();
    return error ? { error } : {};
  }
  const reply = lines
    .slice(previousReport + 1, lastReport)
    .join("\n")
    .trim();
  return {
    ...(reply ? { finalMessage: reply.slice(-FINAL_CHARS) } : {}),
    usage,
    ...(session !== undefined && Number.isFinite(session) ? { costUsd: session } : {}),
  };
}

/** `1,250` → 1250, `3.0k` → 3000, `1.2M` → 1200000, as aider formats token counts. */
function count(text: string): number {
  const value = Number.parseFloat(text.replaceAll(",", ""));
  if (!Number.isFinite(value)) return 0;
  const scale = text.endsWith("M") ? 1_000_000 : text.endsWith("k") ? 1000 : 1;
  return Math.round(value * scale);
}

export const createAiderAdapter = (config: Config): AgentAdapter => createCliAdapter(aiderSpec, config);
