/**
 * The Gemini API as Gemini CLI calls it under `GOOGLE_GEMINI_BASE_URL`:
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (data-only events), `:generateContent`
 * (one JSON answer, its side calls) and `:countTokens`; errors in Google's shape.
 */
import { nextMove, type Script, type Step, USAGE } from "./script.js";
import type { Answer, Json } from "./wire.js";

export function geminiAnswer(path: string, body: Json, text: string, script: Script): Answer {
  if (path.includes(":countTokens")) return { kind: "json", body: { totalTokens: USAGE.input } };
  const contents = Array.isArray(body.contents) ? (body.contents as Json[]) : [];
  let done = 0;
  for (const content of contents) {
    const parts = Array.isArray(content.parts) ? (content.parts as Json[]) : [];
    done += parts.filter((p) => p.functionResponse !== undefined).length;
  }
  const hasTools = /"read_file"/.test(text);
  const move = nextMove(script, text, done, hasTools ? false : sideAnswer(text));
  const { step } = move;
  const model = /models\/([^:/]+):/.exec(path)?.[1] ?? "scripted";
  const answer = {
    candidates: [{ content: { role: "model", parts: [partFor(step)] }, finishReason: "STOP", index: 0 }],
    usageMetadata: {
      promptTokenCount: USAGE.input + USAGE.cachedInput,
      cachedContentTokenCount: USAGE.cachedInput,
      candidatesTokenCount: USAGE.output,
      totalTokenCount: USAGE.input + USAGE.cachedInput + USAGE.output,
    },
    modelVersion: model,
  };
  const recorded = { step: move.answered, ...(move.turn ? { turn: move.turn } : {}) };
  if (!path.includes(":streamGenerateContent")) return { kind: "json", body: answer, ...recorded };
  return { kind: "sse", events: [{ data: answer }], ...recorded };
}

/** A side call that asks for JSON (Gemini CLI's routing and next-speaker checks) gets JSON. */
function sideAnswer(text: string): string {
  if (/next_speaker/.test(text)) return JSON.stringify({ reasoning: "done", next_speaker: "user" });
  if (/responseMimeType"\s*:\s*"application\/json"/.test(text))
    return JSON.stringify({ reasoning: "simple", model_choice: "flash" });
  return "Cart line totals";
}

function partFor(step: Step): Json {
  switch (step.kind) {
    case "final":
      return { text: step.text };
    case "read":
      return { functionCall: { name: "read_file", args: { file_path: step.path } } };
    case "write":
      return { functionCall: { name: "write_file", args: { file_path: step.path, content: step.content } } };
    case "edit":
      return {
        functionCall: {
          name: "replace",
          args: {
            file_path: step.path,
            instruction: "Multiply the price by the quantity.",
            old_string: step.oldText,
            new_string: step.newText,
          },
        },
      };
  }
}

const STATUSES: Record<number, string> = {
  401: "UNAUTHENTICATED",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  529: "UNAVAILABLE",
};

export function geminiError(status: number): Json {
  const message =
    status === 401 ? "API key not valid. Please pass a valid API key." : `scripted ${STATUSES[status]}`;
  return { error: { code: status, message, status: STATUSES[status] ?? "INTERNAL" } };
}
