import type { Channel, ChannelReply, InteractionRequest } from "../broker.js";
import { createFileChannel } from "./file.js";

export interface ServeChannelOptions {
  /** `<runDir>/interaction`: where `gantry serve` finds the request and writes the one answer. */
  dir: string;
  pollMs: number;
  /** The terminal's prompt, asked at the same time when there is a terminal: the first answer wins. */
  terminal?: Channel;
}

/**
 * Answered from `gantry serve` (the page, or a signed device request): the request is published as the
 * file channel publishes it, and the server writes `<id>.response.json` at most once (docs/serve.md).
 * With a terminal, its prompt races the server; the loser is stopped.
 */
export function createServeChannel({ dir, pollMs, terminal }: ServeChannelOptions): Channel {
  const files = createFileChannel({ dir, pollMs, name: "serve" });
  return {
    name: "serve",
    async notify(request, signal) {
      await files.notify?.(request, signal);
      await terminal?.notify?.(request, signal);
    },
    ask(request, signal) {
      return terminal ? firstAnswer([files, terminal], request, signal) : files.ask(request, signal);
    },
  };
}

/** The first channel to give an answer; when none does, the first channel's reason. Stops the others. */
async function firstAnswer(
  channels: Channel[],
  request: InteractionRequest,
  signal: AbortSignal,
): Promise<ChannelReply> {
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  try {
    const replies = channels.map((channel) => channel.ask(request, both));
    const answered = replies.map((reply) =>
      reply.then((r) => ("action" in r ? r : new Promise<ChannelReply>(() => {}))),
    );
    const all = Promise.all(replies).then((rs) => rs[0] as ChannelReply);
    return await Promise.race([...answered, all]);
  } finally {
    stop.abort();
  }
}
