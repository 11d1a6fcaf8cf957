import type { InteractionAction } from "../config/schema.js";
import { within } from "../process/timeout.js";

/** What a channel is asked: the `interaction:request` payload plus what an outside answerer needs. */
export interface InteractionRequest {
  id: string;
  trigger: string;
  storyId?: string;
  summary: string;
  options: InteractionAction[];
  timeoutMs: number;
  fallback: InteractionAction;
  runId: string;
  feature: string;
  /** ISO times: when it was asked and when the fallback is taken. */
  at: string;
  expiresAt: string;
}

/** A channel's reply: an answer as given (checked by the broker), or why nobody answered. */
export type ChannelReply = { action: string; respondedBy: string } | { unanswered: string };

/** How a question reaches someone who can answer it: cli, file, webhook, auto. */
export interface Channel {
  readonly name: string;
  /** Asks and waits. Must settle soon after `signal` aborts (the timeout or Ctrl-C). */
  ask(request: InteractionRequest, signal: AbortSignal): Promise<ChannelReply>;
  /** Delivers a request that offers a single option: a notice, nobody is waited for. */
  notify?(request: InteractionRequest, signal: AbortSignal): Promise<void>;
  /** Releases what the channel holds (a callback server). */
  close?(): void;
}

export interface Answer {
  action: InteractionAction;
  /** Who answered: `cli`, `file[:name]`, `webhook[:name]`, `auto`; or `notice`, `timeout`, `interrupted`, `fallback`. */
  respondedBy: string;
}

export interface BrokerOptions {
  channel: Channel;
  /** The run's signal: Ctrl-C ends every wait at once with the fallback. */
  signal: AbortSignal;
  /** One line for the user when a channel could not ask or was answered with something not offered. */
  warn: (line: string) => void;
}

export interface Broker {
  ask(request: InteractionRequest): Promise<Answer>;
}

/**
 * Turns a question into exactly one answer: the channel's, when it is one of the options and arrives
 * within `timeoutMs`; otherwise the request's fallback. Never throws, never waits past the timeout.
 */
export function createBroker({ channel, signal, warn }: BrokerOptions): Broker {
  return {
    async ask(request) {
      const fallback = (respondedBy: string): Answer => ({ action: request.fallback, respondedBy });
      const only = request.options.length === 1 ? request.options[0] : undefined;
      if (only !== undefined) {
        await bounded(request.timeoutMs, signal, async (bound) => {
          try {
            await channel.notify?.(request, bound);
          } catch (error) {
            warn(
              `gantry: interaction ${request.trigger}: the ${channel.name} channel failed: ${message(error)}`,
            );
          }
          return { unanswered: "notice" };
        });
        return { action: only, respondedBy: "notice" };
      }
      if (signal.aborted) return fallback("interrupted");
      const reply = await bounded(request.timeoutMs, signal, (bound) =>
        channel.ask(request, bound).catch((error: unknown) => ({ unanswered: `failed: ${message(error)}` })),
      );
      if ("action" in reply) {
        const action = request.options.find((option) => option === reply.action);
        if (action !== undefined) return { action, respondedBy: reply.respondedBy };
        warn(
          `gantry: interaction ${request.trigger}: ${reply.respondedBy} answered "${reply.action}", expected one of ` +
            `${request.options.join(", ")}; taking the fallback (${request.fallback})`,
        );
        return fallback("fallback");
      }
      if (reply.unanswered === "timeout" || reply.unanswered === "interrupted")
        return fallback(reply.unanswered);
      warn(
        `gantry: interaction ${request.trigger}: the ${channel.name} channel could not ask (${reply.unanswered}); ` +
          `taking the fallback (${request.fallback})`,
      );
      return fallback("fallback");
    },
  };
}

/**
 * Runs `work` with a signal that aborts at the timeout or with the run, and settles by then whatever
 * `work` does: a channel that ignores its signal cannot hold the run.
 */
async function bounded(
  timeoutMs: number,
  runSignal: AbortSignal,
  work: (signal: AbortSignal) => Promise<ChannelReply>,
): Promise<ChannelReply> {
  const controller = new AbortController();
  try {
    const outcome = await within(work(controller.signal), { ms: timeoutMs, signal: runSignal });
    if (outcome.kind === "value") return outcome.value;
    return { unanswered: outcome.kind === "timeout" ? "timeout" : "interrupted" };
  } finally {
    controller.abort();
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
