import type { Config } from "../config/schema.js";
import type { AgentAdapter } from "./adapter.js";
import { type CliSpec, createCliAdapter, type ModelUsage, type ParsedSession } from "./cli-adapter.js";
import { lastJsonDocument, num, obj, str } from "./output.js";

/**
 * Gemini CLI in headless mode: `gemini --output-format json --model M --approval-mode yolo`, the prompt on
 * standard input (a non-TTY stdin is headless mode). The JSON document carries `response`, per-model token
 * `stats` and, on failure, `error`; Gemini reports no cost. See docs/agents.md.
 */
export const geminiSpec: CliSpec = {
  name: "gemini",
  bin: "gemini",
  defaultModels: { fast: "flash-lite", balanced: "flash", powerful: "pro" },
  promptOnStdin: true,
  args: (request) => ["--output-format", "json", "--model", request.model, "--approval-mode", "yolo"],
  parse(output): ParsedSession {
    const doc = lastJsonDocument(output);
    if (!doc) return {};
    const usage: ModelUsage[] = [];
    for (const [model, stats] of Object.entries(obj(obj(doc.stats).models))) {
      const tokens = obj(obj(stats).tokens);
      usage.push({
        model,
        input: num(tokens.prompt) + num(tokens.tool),
        output: num(tokens.candidates) + num(tokens.thoughts),
      });
    }
    const error = doc.error === undefined || doc.error === null ? undefined : obj(doc.error);
    const response = str(doc.response);
    return {
      ...(response !== undefined ? { finalMessage: response } : {}),
      ...(usage.length > 0 ? { usage } : {}),
      ...(error
        ? {
            error: [str(error.type), error.code, str(error.message)].filter((x) => x !== undefined).join(" "),
          }
        : {}),
    };
  },
};

export const createGeminiAdapter = (config: Config): AgentAdapter => createCliAdapter(geminiSpec, config);
