import { dirname } from "node:path";
import type { Config } from "../config/schema.js";
import { oneLine } from "../util/text.js";
import type { AgentAdapter } from "./adapter.js";
import { type CliSpec, createCliAdapter, type ModelUsage, type ParsedSession } from "./cli-adapter.js";
import { geminiReadiness } from "./gemini-readiness.js";
import { lastJsonDocument, num, obj, str } from "./output.js";

/** Gemini CLI's exit code for an authentication failure (its ExitCodes.FATAL_AUTHENTICATION_ERROR). */
const AUTH_EXIT = 41;

/**
 * Gemini CLI in headless mode: `gemini --output-format json --model M --approval-mode yolo --skip-trust`, the
 * prompt on standard input (a non-TTY stdin is headless mode). `--skip-trust` trusts the session's folder for
 * that session: every worktree is a new folder, and in an untrusted one yolo falls back to "default" and the
 * session exits 55. Its file tools refuse a path outside the workspace, so a session with an answer file (plan,
 * critic, research: outside the tree) adds that file's folder with `--include-directories`. The JSON document
 * carries `response`, per-model token `stats` and, on failure, `error`; Gemini reports no cost. See
 * docs/agents.md.
 */
export const geminiSpec: CliSpec = {
  name: "gemini",
  bin: "gemini",
  defaultModels: { fast: "flash-lite", balanced: "flash", powerful: "pro" },
  promptOnStdin: true,
  args: (request) => [
    "--output-format",
    "json",
    "--model",
    request.model,
    "--approval-mode",
    "yolo",
    "--skip-trust",
    ...(request.outputFile ? ["--include-directories", dirname(request.outputFile)] : []),
  ],
  authHelp:
    'set GEMINI_API_KEY (with GOOGLE_GEMINI_BASE_URL, also security.auth.selectedType "gemini-api-key" in ~/.gemini/settings.json), or log in by running `gemini` once',
  setupProblem(said, exitCode) {
    if (/not running in a trusted directory/i.test(said))
      return "Gemini CLI does not trust this folder: set GEMINI_CLI_TRUST_WORKSPACE=true or trust it with `gemini`";
    if (exitCode !== AUTH_EXIT) return undefined;
    const words = said.split("\n").find((line) => line.trim() !== "");
    return `Gemini CLI could not authenticate (exit ${AUTH_EXIT}${words ? `: ${oneLine(words, 200)}` : ""}): ${geminiSpec.authHelp}`;
  },
  readiness: geminiReadiness,
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
