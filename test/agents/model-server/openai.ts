/**
 * The OpenAI Responses API as Codex calls a `wire_api = "responses"` provider: `POST /v1/responses`
 * answered as server-sent events. Codex's tools are reached the way this Codex offers them: through its
 * code-mode `exec` tool (JavaScript calling `tools.exec_command` / `tools.apply_patch`), or, when it offers
 * them directly, `exec_command` and the freeform `apply_patch`.
 */
import { randomUUID } from "node:crypto";
import { nextMove, type Script, type Step, USAGE } from "./script.js";
import type { Answer, Json } from "./wire.js";

export function responsesAnswer(body: Json, text: string, script: Script): Answer {
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  const done = input.filter((i) => /(^|_)call_output$/.test(String(i.type))).length;
  const hasTools = /"exec_command"|"apply_patch"|"exec"/.test(text);
  const move = nextMove(script, text, done, hasTools ? false : "Cart line totals");
  const { step } = move;
  const codeMode = /"type":\s*"custom",\s*"name":\s*"exec"/.test(text);
  const item = itemFor(step, codeMode);
  const id = `resp_${randomUUID()}`;
  const usage = {
    input_tokens: USAGE.input + USAGE.cachedInput,
    input_tokens_details: { cached_tokens: USAGE.cachedInput },
    output_tokens: USAGE.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: USAGE.input + USAGE.cachedInput + USAGE.output,
  };
  const model = String(body.model ?? "scripted");
  const response = { id, object: "response", model, status: "completed", output: [item], usage };
  const events: { event: string; data: Json }[] = [
    {
      event: "response.created",
      data: { type: "response.created", response: { ...response, status: "in_progress", output: [] } },
    },
    {
      event: "response.output_item.added",
      data: { type: "response.output_item.added", output_index: 0, item },
    },
  ];
  if (item.type === "message") {
    events.push({
      event: "response.output_text.delta",
      data: {
        type: "response.output_text.delta",
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        delta: step.kind === "final" ? step.text : "",
      },
    });
  }
  events.push(
    {
      event: "response.output_item.done",
      data: { type: "response.output_item.done", output_index: 0, item },
    },
    { event: "response.completed", data: { type: "response.completed", response } },
  );
  return { kind: "sse", events, step: move.answered, ...(move.turn ? { turn: move.turn } : {}) };
}

function itemFor(step: Step, codeMode: boolean): Json {
  const callId = `call_${randomUUID().replaceAll("-", "")}`;
  if (step.kind === "final") {
    return {
      type: "message",
      id: `msg_${randomUUID()}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: step.text, annotations: [] }],
    };
  }
  const patch = step.kind === "read" ? undefined : patchFor(step);
  if (codeMode) {
    const source =
      patch === undefined
        ? `const r = await tools.exec_command({ cmd: ${JSON.stringify(`cat ${step.path}`)} });\ntext(r.output);\n`
        : `text(await tools.apply_patch(${JSON.stringify(patch)}));\n`;
    return {
      type: "custom_tool_call",
      id: `ctc_${callId}`,
      call_id: callId,
      name: "exec",
      input: source,
      status: "completed",
    };
  }
  if (patch !== undefined) {
    return {
      type: "custom_tool_call",
      id: `ctc_${callId}`,
      call_id: callId,
      name: "apply_patch",
      input: patch,
      status: "completed",
    };
  }
  return {
    type: "function_call",
    id: `fc_${callId}`,
    call_id: callId,
    name: "exec_command",
    arguments: JSON.stringify({ cmd: `cat ${step.path}` }),
    status: "completed",
  };
}

/** Codex's patch format: paths relative to the session's directory. */
function patchFor(step: Exclude<Step, { kind: "read" | "final" }>): string {
  const body =
    step.kind === "write"
      ? `*** Add File: ${step.path}\n${plusLines(step.content)}`
      : `*** Update File: ${step.path}\n@@\n-${step.oldText}\n+${step.newText}\n`;
  return `*** Begin Patch\n${body}*** End Patch\n`;
}

const plusLines = (content: string) =>
  content
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => `+${line}\n`)
    .join("");

const ERROR_CODES: Record<number, string> = {
  401: "invalid_api_key",
  429: "rate_limit_exceeded",
  500: "server_error",
  529: "server_is_overloaded",
};

export function responsesError(status: number): Json {
  const code = ERROR_CODES[status] ?? "server_error";
  const message = status === 401 ? "Incorrect API key provided" : `scripted ${code}`;
  return { error: { message, type: status === 401 ? "invalid_request_error" : code, param: null, code } };
}
