/**
 * What a CLI told the model its tools did, read from a recorded request in each provider's shape:
 * Anthropic's `tool_result` blocks, the Responses API's `*_call_output` items, Gemini's `functionResponse`
 * parts. Each result as text (JSON when it is not a string), in conversation order.
 */
import type { Recorded } from "./server.js";
import type { Json } from "./wire.js";

const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

export function toolResults(request: Recorded): string[] {
  const { body } = request;
  switch (request.provider) {
    case "anthropic":
      return list(body.messages)
        .flatMap((m) => list(m.content))
        .filter((c) => c.type === "tool_result")
        .map((c) => asText(c.content));
    case "openai":
      return list(body.input)
        .filter((i) => /(^|_)call_output$/.test(String(i.type)))
        .map((i) => asText(i.output));
    case "gemini":
      return list(body.contents)
        .flatMap((c) => list(c.parts))
        .filter((p) => p.functionResponse !== undefined)
        .map((p) => asText((p.functionResponse as Json).response));
    default:
      return [];
  }
}
