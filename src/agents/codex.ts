import type { Config } from "../config/schema.js";
import { oneLine } from "../util/text.js";
import type { AgentAdapter } from "./adapter.js";
import { type CliSpec, createCliAdapter, type ModelUsage, type ParsedSession } from "./cli-adapter.js";
import { codexReadiness } from "./codex-readiness.js";
import { jsonLines, num, obj, str } from "./output.js";

/** Codex's own sandbox failing to start a command (nested namespaces, its helper missing). */
const OWN_SANDBOX_FAILED =
  /^bwrap: |setting up uid map|codex-linux-sandbox|landlock|seccomp.*(fail|denied)/im;

/**
 * Codex CLI: `codex exec --json --model M --sandbox S -`, the prompt on standard input (`-`). Inside gantry's
 * sandbox S is `danger-full-access` (gantry's sandbox is the boundary; Codex's own cannot nest in it),
 * outside it `workspace-write`. JSONL events: the last `agent_message` item is the final message,
 * `turn.completed` carries token usage; Codex reports no cost, so it is estimated from `agent.prices` or
 * unknown. See docs/agents.md.
 */
export const codexSpec: CliSpec = {
  name: "codex",
  bin: "codex",
  defaultModels: { fast: "gpt-6-luna", balanced: "gpt-6.2-sol", powerful: "gpt-6.2-astra" },
  promptOnStdin: true,
  args: (request) => [
    "exec",
    "--json",
    "--model",
    request.model,
    "--sandbox",
    request.sandbox ? "danger-full-access" : "workspace-write",
    "-",
  ],
  authHelp:
    "run `codex login`, or set OPENAI_API_KEY, or name a model_provider with its env_key in $CODEX_HOME/config.toml",
  readiness: codexReadiness,
  parse(output): ParsedSession {
    let finalMessage: string | undefined;
    const usage: ModelUsage[] = [];
    const errors: string[] = [];
    let turnFailed = false;
    let sandboxFailure: string | undefined;
    for (const event of jsonLines(output)) {
      if (event.type === "item.completed") {
        const item = obj(event.item);
        // `agent_message` today; `assistant_message` / `item_type` in the first releases of this format.
        const kind = item.type ?? item.item_type;
        if (kind === "agent_message" || kind === "assistant_message") finalMessage = str(item.text);
        const said = str(item.aggregated_output) ?? "";
        if (kind === "command_execution" && item.status === "failed" && OWN_SANDBOX_FAILED.test(said))
          sandboxFailure ??= said;
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
    // A failed turn repeats the `error` event before it: each message once.
    const error = [...new Set(errors.filter(Boolean))].join("; ") || "turn failed";
    const setupProblem = sandboxFailure
      ? `Codex's own sandbox could not run a command (${oneLine(sandboxFailure, 200)}): run it inside gantry's sandbox (agent.sandbox "auto" or "bwrap"), where gantry turns Codex's off, or fix Codex's sandbox (CODEX_HOME outside a temporary directory, user namespaces allowed)`
      : undefined;
    return {
      ...(finalMessage !== undefined ? { finalMessage } : {}),
      ...(usage.length > 0 ? { usage } : {}),
      ...(failed ? { error } : setupProblem ? { error: setupProblem } : {}),
      ...(setupProblem ? { setupProblem } : {}),
    };
  },
};

export const createCodexAdapter = (config: Config): AgentAdapter => createCliAdapter(codexSpec, config);
