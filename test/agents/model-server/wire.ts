/** What a provider module hands the server to send: one JSON body, or server-sent events. */
export type Json = Record<string, unknown>;

/** `step`: what the server records as answered; `turn`: the script's turn that played it. */
export type Answer =
  | { kind: "json"; body: Json; step?: string; turn?: string }
  /** `event` names the SSE event (Anthropic, OpenAI); absent, only `data:` lines are sent (Gemini). */
  | { kind: "sse"; events: { event?: string; data: Json }[]; step?: string; turn?: string };
