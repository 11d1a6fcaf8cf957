import { dirname } from "node:path";
import type { Config } from "../config/schema.js";
import type { AgentAdapter } from "./adapter.js";
import { type CliSpec, createCliAdapter, type ModelUsage, type ParsedSession } from "./cli-adapter.js";
import { jsonLines, num, obj, str } from "./output.js";

/**
 * OpenCode: `opencode run --format json --model provider/model`, the prompt on standard input (piped stdin
 * is the message). JSON events: `text` parts make the final message, each `step_finish` part carries that
 * step's `tokens` and `cost`. OpenCode asks before a tool touches a path outside the project, and a run
 * cannot answer: a session with an answer file (plan, critic, research: outside the tree) is allowed that
 * file's folder through OPENCODE_PERMISSION. Its snapshots (a copy of the tree in a git store of its own,
 * before and after every step, for its undo) are turned off: gantry's checkpoints are the undo, and they cost
 * about 30% of a session's CPU. See docs/agents.md.
 */
export const opencodeSpec: CliSpec = {
  name: "opencode",
  bin: "opencode",
  defaultModels: {
    fast: "anthropic/claude-haiku-4-5",
    balanced: "anthropic/claude-sonnet-4-5",
    powerful: "anthropic/claude-opus-4-5",
  },
  promptOnStdin: true,
  args: (request) => ["run", "--format", "json", "--model", request.model],
  env: (request): Record<string, string> => ({
    ...withoutSnapshots(process.env.OPENCODE_CONFIG_CONTENT),
    ...(request.outputFile
      ? {
          OPENCODE_PERMISSION: JSON.stringify({
            external_directory: { [`${dirname(request.outputFile)}/**`]: "allow" },
          }),
        }
      : {}),
  }),
  authHelp: "run `opencode auth login`, or set the provider's API key (ANTHROPIC_API_KEY for anthropic/...)",
  parse(output): ParsedSession {
    let finalMessage: string | undefined;
    const usage: ModelUsage[] = [];
    let cost = 0;
    const errors: string[] = [];
    for (const event of jsonLines(output)) {
      const part = obj(event.part);
      if (event.type === "text") {
        finalMessage = str(part.text) ?? finalMessage;
      } else if (event.type === "step_finish") {
        const tokens = obj(part.tokens);
        const cache = obj(tokens.cache);
        usage.push({
          input: num(tokens.input) + num(cache.read) + num(cache.write),
          output: num(tokens.output) + num(tokens.reasoning),
        });
        cost += num(part.cost);
      } else if (event.type === "error") {
        const error = event.error;
        errors.push(
          typeof error === "string"
            ? error
            : (str(obj(obj(error).data).message) ?? str(obj(error).name) ?? JSON.stringify(error)),
        );
      }
    }
    return {
      ...(finalMessage !== undefined ? { finalMessage } : {}),
      ...(usage.length > 0 ? { usage } : {}),
      // OpenCode prices from models.dev and reports 0 for a model it has no price for: that is not a cost.
      ...(cost > 0 ? { costUsd: cost } : {}),
      ...(errors.length > 0 ? { error: errors.join("; ") } : {}),
    };
  },
};

export const createOpencodeAdapter = (config: Config): AgentAdapter => createCliAdapter(opencodeSpec, config);

/**
 * OPENCODE_CONFIG_CONTENT (OpenCode's runtime overrides) with `"snapshot": false` added to the user's own,
 * unless theirs sets `snapshot` or is not a JSON object (then it is left as it is).
 */
export function withoutSnapshots(own: string | undefined): Record<string, string> {
  if (own === undefined || own.trim() === "") return { OPENCODE_CONFIG_CONTENT: '{"snapshot":false}' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(own);
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || "snapshot" in parsed)
    return {};
  return { OPENCODE_CONFIG_CONTENT: JSON.stringify({ ...parsed, snapshot: false }) };
}
