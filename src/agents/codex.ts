import type { Config } from "../config/schema.js";
import type { AgentAdapter } from "./adapter.js";
import { type CliSpec, createCliAdapter, type ModelUsage, type ParsedSession } from "./cli-adapter.js";
import { jsonLines, num, obj, str } from "./output.js";

/**
 * Codex CLI: `codex exec --json --model M --sandbox workspace-write -`, the prompt on standard input (`-`).
 * JSONL events: the last `agent_message` item is the final message, `turn.completed` carries token usage;
 * Codex reports no cost, so it is estimated from `agent.prices` or unknown. See docs/agents.md.
 */
export const codexSpec: CliSpec = {
  name: "codex",
  bin: "codex",
  defaultModels: { fast: "gpt-5.4-mini", balanced: "gpt-5.4", powerful: "gpt-5.5" },
  promptOnStdin: true,
  args: (request) => ["exec", "--json", "--model", request.model, "--sandbox", "workspace-write", "-"],
  parse(output): ParsedSession {
    let finalMessage: string | undefined;
    const usage: ModelUsage[] = [];
    const errors: string[] = [];
    let turnFailed = false;
    for (const event of jsonLines(output)) {
      if (event.type === "item.completed") {
        const item = obj(event.item);
        // `agent_message` today; `assistant_message` / `item_type` in the first releases of this format.
        const kind = item.type ?? item.item_type;
        if (kind === "agent_message" || kind === "assistant_message") finalMessage = str(item.text);
      } else if (event.type === "turn.completed") {
        const u = obj(event.usage);
        usage.push({ input: num(u.input_tokens), output: num(u.output_tokens) });
      } else if (event.type === "turn.failed") {
        turnFailed = true;
        errors.push(str(obj(event.error).message) ?? "turn failed");
      } else if (event.type === "error") {
        const message = str(event.message) ?? "";
        // Reconnect notices arrive as `error` events while the turn goes on; only a failed turn ends it.
        if (!/^reconnecting/i.test(message)) errors.push(message);
      }
    }
    const failed = turnFailed || (errors.length > 0 && usage.length === 0);
    return {
      ...(finalMessage !== undefined ? { finalMessage } : {}),
      ...(usage.length > 0 ? { usage } : {}),
      ...(failed ? { error: errors.join("; ") } : {}),
    };
  },
};

export const createCodexAdapter = (config: Config): AgentAdapter => createCliAdapter(codexSpec, config);
