/** What a provider module hands the server to send: one JSON body, or server-sent events. */
export type Json = Record<string, unknown>;

export type Answer =
  | { kind: "json"; body: Json; step?: string }
  /** `event` names the SSE event (Anthropic, OpenAI); absent, only `data:` lines are sent (Gemini). */
  | { kind: "sse"; events: { event?: string; data: Json }[]; step?: string };
