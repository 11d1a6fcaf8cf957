/**
 * What the fake agent CLIs (fixtures/fake-cli.sh) print, shaped like each real CLI's documented
 * non-interactive output: rendered here once per reset of the fakes' modes into files the sh fake copies
 * out, so a session costs no node start. noCost: tokens but no cost. final: the final message (where each
 * CLI puts it), after an earlier message that carries a decoy marker.
 */

export type FakeMode = "success" | "error" | "ratelimit";
export interface FakeOutput {
  stdout: string;
  stderr: string;
  code: number;
}

const DECOY = "Progress so far.\n\n## CHECKPOINT REACHED\n";

/** One CLI's output in one mode. */
export function fakeOutput(
  cli: string,
  mode: FakeMode,
  options: { noCost?: boolean; final?: string | undefined } = {},
): FakeOutput {
  const noCost = options.noCost === true;
  const final = options.final;
  let stdout = "";
  let stderr = "";
  const out = (line: string) => {
    stdout += `${line}\n`;
  };
  const json = (value: unknown) => out(JSON.stringify(value));
  const err = (text: string) => {
    stderr += text;
  };
  const plays: Record<string, (mode: FakeMode) => number> = { claude, codex, gemini, aider, opencode };
  const play = plays[cli];
  if (!play) throw new Error(`no fake output for ${cli}`);
  const code = play(mode);
  return { stdout, stderr, code };

  function claude(mode: FakeMode): number {
    if (mode === "success") {
      json({
        type: "result",
        subtype: "success",
        is_error: false,
        duration_ms: 1998,
        duration_api_ms: 1976,
        num_turns: 4,
        result: final ?? "Implemented the story; tests pass.",
        stop_reason: "end_turn",
        session_id: "0e639165-79b1-4bd4-bb0f-4cb4c15115d4",
        ...(noCost ? {} : { total_cost_usd: 0.0421 }),
        usage: {
          input_tokens: 1200,
          cache_creation_input_tokens: 300,
          cache_read_input_tokens: 500,
          output_tokens: 450,
        },
      });
      return 0;
    }
    const message =
      mode === "ratelimit"
        ? 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization"}}'
        : "Execution error: the tool process crashed";
    json({
      type: "result",
      subtype: mode === "ratelimit" ? "success" : "error_during_execution",
      is_error: true,
      duration_ms: 120,
      num_turns: 1,
      result: message,
      session_id: "s",
      total_cost_usd: 0,
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    return 1;
  }

  function codex(mode: FakeMode): number {
    err("Reading prompt from stdin...\n");
    json({ type: "thread.started", thread_id: "0199a213-81c0-7800-8aa1-bbab2a035a53" });
    json({ type: "turn.started" });
    if (mode === "success") {
      json({ type: "item.completed", item: { id: "item_0", type: "reasoning", text: "**Planning**" } });
      json({
        type: "item.started",
        item: { id: "item_1", type: "command_execution", command: "bash -lc ls", status: "in_progress" },
      });
      json({
        type: "item.completed",
        item: {
          id: "item_1",
          type: "command_execution",
          command: "bash -lc ls",
          aggregated_output: "src\n",
          exit_code: 0,
          status: "completed",
        },
      });
      if (final) json({ type: "item.completed", item: { id: "item_d", type: "agent_message", text: DECOY } });
      json({
        type: "item.completed",
        item: {
          id: "item_2",
          type: "agent_message",
          text: final ?? "Done. I implemented the story and added tests.",
        },
      });
      json({
        type: "turn.completed",
        usage: { input_tokens: 24763, cached_input_tokens: 24448, output_tokens: 1122 },
      });
      return 0;
    }
    const message =
      mode === "ratelimit"
        ? "exceeded retry limit, last status: 429 Too Many Requests"
        : "model response stream ended unexpectedly";
    json({ type: "error", message });
    json({ type: "turn.failed", error: { message } });
    return 1;
  }

  function gemini(mode: FakeMode): number {
    err("Loaded cached credentials.\n");
    if (mode === "success") {
      out(
        JSON.stringify(
          {
            session_id: "abc",
            response: final ?? "I implemented the story.",
            stats: {
              models: {
                "gemini-2.5-flash": {
                  api: { totalRequests: 3, totalErrors: 0, totalLatencyMs: 5053 },
                  tokens: {
                    prompt: 20000,
                    candidates: 1500,
                    total: 21800,
                    cached: 12000,
                    thoughts: 250,
                    tool: 50,
                  },
                },
                "gemini-2.5-flash-lite": {
                  api: { totalRequests: 1, totalErrors: 0, totalLatencyMs: 300 },
                  tokens: { prompt: 1000, candidates: 20, total: 1020, cached: 0, thoughts: 0, tool: 0 },
                },
              },
              tools: {
                totalCalls: 2,
                totalSuccess: 2,
                totalFail: 0,
                totalDurationMs: 1881,
                totalDecisions: { accept: 0, reject: 0, modify: 0, auto_accept: 2 },
                byName: {},
              },
              files: { totalLinesAdded: 12, totalLinesRemoved: 1 },
            },
          },
          null,
          2,
        ),
      );
      return 0;
    }
    const error =
      mode === "ratelimit"
        ? {
            type: "ApiError",
            message:
              "[429 Too Many Requests] Quota exceeded for quota metric 'Generate Content API requests per minute'",
            code: 429,
          }
        : { type: "ApiError", message: "Internal error encountered.", code: 500 };
    out(JSON.stringify({ session_id: "abc", response: "", stats: { models: {} }, error }, null, 2));
    return 1;
  }

  function aider(mode: FakeMode): number {
    out("Aider v0.86.2");
    out("Model: anthropic/claude-sonnet-4-5 with diff edit format");
    out("Git repo: .git with 24 files");
    out("Repo-map: using 4096 tokens, auto refresh");
    out("");
    if (mode === "success") {
      out(final ? DECOY : "I'll add the cart total and a test for it.");
      out("");
      out("src/cart.js");
      out("Applied edit to src/cart.js");
      out(
        noCost
          ? "Tokens: 3.0k sent, 1,250 received."
          : "Tokens: 3.0k sent, 1,250 received. Cost: $0.0063 message, $0.0063 session.",
      );
      out("");
      out("The cart now sums its lines; test/cart.test.js covers it.");
      out("Applied edit to test/cart.test.js");
      if (final) out(final);
      out(
        noCost
          ? "Tokens: 12k sent, 800 received."
          : "Tokens: 12k sent, 800 received. Cost: $0.04 message, $0.0463 session.",
      );
      return 0;
    }
    if (mode === "ratelimit") {
      out(
        'litellm.RateLimitError: AnthropicException - {"type":"error","error":{"type":"rate_limit_error","message":"rate limited"}}',
      );
      out("The API provider has rate limited you. Try again later or check your quotas.");
      return 0; // aider gives up on the message and exits 0: the adapter must read the failure from the text.
    }
    out("litellm.AuthenticationError: AnthropicException - invalid x-api-key");
    return 1;
  }

  function opencode(mode: FakeMode): number {
    const base = { timestamp: 1767225600000, sessionID: "ses_fc7d2c1daffeoHDeorpPDSsbrN" };
    json({ type: "step_start", ...base, part: { type: "step-start" } });
    if (mode === "success") {
      json({
        type: "tool_use",
        ...base,
        part: { type: "tool", tool: "edit", state: { status: "completed", title: "src/cart.js" } },
      });
      json({
        type: "step_finish",
        ...base,
        part: {
          type: "step-finish",
          reason: "tool-calls",
          tokens: { total: 9000, input: 1000, output: 200, reasoning: 50, cache: { write: 7000, read: 750 } },
          cost: noCost ? 0 : 0.0304,
        },
      });
      if (final) json({ type: "text", ...base, part: { type: "text", text: DECOY } });
      json({
        type: "text",
        ...base,
        part: { type: "text", text: final ?? "Implemented the story.", time: { start: 1, end: 2 } },
      });
      json({
        type: "step_finish",
        ...base,
        part: {
          type: "step-finish",
          reason: "stop",
          tokens: { total: 8100, input: 100, output: 40, reasoning: 0, cache: { write: 0, read: 7960 } },
          cost: noCost ? 0 : 0.0021,
        },
      });
      return 0;
    }
    const message =
      mode === "ratelimit"
        ? "Rate limit exceeded: 429 Too Many Requests"
        : "Bad request: invalid tool schema";
    json({ type: "error", ...base, error: { name: "APIError", data: { message } } });
    return 1;
  }
}
