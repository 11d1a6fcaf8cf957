/**
 * The Anthropic Messages API, as Claude Code and OpenCode's `anthropic` provider call it: `POST /v1/messages`
 * answered as server-sent events (or one JSON message when `stream` is false), `count_tokens`, and errors in
 * Anthropic's shape.
 */
import { randomUUID } from "node:crypto";
import { absolute, nextMove, type Script, type Step, USAGE, workingDirectory } from "./script.js";
import type { Answer, Json } from "./wire.js";

interface Tool {
  name: string;
  input_schema?: { properties?: Record<string, unknown> };
}

export function anthropicAnswer(path: string, body: Json, text: string, script: Script): Answer {
  if (path.includes("count_tokens")) return { kind: "json", body: { input_tokens: USAGE.input } };
  const tools = (Array.isArray(body.tools) ? body.tools : []) as Tool[];
  const tool = (lower: string) => tools.find((t) => t.name.toLowerCase() === lower);
  const done = countToolResults(body.messages);
  // A side call (a title, a topic check) has no file tools: it gets a short text and moves nothing on.
  const move = nextMove(script, text, done, tool("read") ? false : "Cart line totals");
  const { step } = move;
  const block = contentFor(step, tool, workingDirectory(text));
  const message = {
    id: `msg_${randomUUID()}`,
    type: "message",
    role: "assistant",
    model: String(body.model ?? "scripted"),
    content: [block],
    stop_reason: block.type === "tool_use" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: USAGE.input,
      cache_read_input_tokens: USAGE.cachedInput,
      cache_creation_input_tokens: 0,
      output_tokens: USAGE.output,
    },
  };
  const recorded = { step: move.answered, ...(move.turn ? { turn: move.turn } : {}) };
  if (body.stream !== true) return { kind: "json", body: message, ...recorded };
  return { kind: "sse", events: streamOf(message, block), ...recorded };
}

function countToolResults(messages: unknown): number {
  let count = 0;
  for (const message of Array.isArray(messages) ? messages : []) {
    const content = (message as Json).content;
    if (!Array.isArray(content)) continue;
    count += content.filter((c) => (c as Json).type === "tool_result").length;
  }
  return count;
}

type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Json };

function contentFor(step: Step, tool: (lower: string) => Tool | undefined, cwd: string | undefined): Block {
  if (step.kind === "final") return { type: "text", text: step.text };
  const chosen = tool(step.kind === "read" ? "read" : step.kind) as Tool;
  const props = chosen.input_schema?.properties ?? {};
  // Claude Code names its fields file_path / old_string; OpenCode filePath / oldString.
  const camel = "filePath" in props;
  const input: Json = { [camel ? "filePath" : "file_path"]: absolute(cwd, step.path) };
  if (step.kind === "write") input.content = step.content;
  if (step.kind === "edit") {
    input[camel ? "oldString" : "old_string"] = step.oldText;
    input[camel ? "newString" : "new_string"] = step.newText;
  }
  return { type: "tool_use", id: `toolu_${randomUUID().replaceAll("-", "")}`, name: chosen.name, input };
}

function streamOf(message: Json & { usage: Json }, block: Block): { event: string; data: Json }[] {
  const { output_tokens, ...startUsage } = message.usage;
  const start = { ...message, content: [], stop_reason: null, usage: { ...startUsage, output_tokens: 1 } };
  const opened = block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} };
  const delta =
    block.type === "text"
      ? { type: "text_delta", text: block.text }
      : { type: "input_json_delta", partial_json: JSON.stringify(block.input) };
  return [
    { event: "message_start", data: { type: "message_start", message: start } },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: opened } },
    { event: "ping", data: { type: "ping" } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  ];
}

const ERROR_TYPES: Record<number, string> = {
  401: "authentication_error",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

export function anthropicError(status: number): Json {
  const type = ERROR_TYPES[status] ?? "api_error";
  const message = status === 401 ? "invalid x-api-key" : `scripted ${type}`;
  return { type: "error", error: { type, message } };
}
