import { createInterface } from "node:readline/promises";
import type { InteractionAction } from "../../config/schema.js";
import type { Channel, ChannelReply, InteractionRequest } from "../broker.js";

export interface CliChannelOptions {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Standard error: standard output may carry --json. */
  output: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * A prompt in the terminal: the question, its options and the timeout on standard error, the answer
 * (a number or an option's name) on standard input. Only when standard input is a terminal; otherwise
 * nobody is there and the fallback is taken. One question at a time.
 */
export function createCliChannel({ input, output }: CliChannelOptions): Channel {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };
  return {
    name: "cli",
    async notify(request) {
      output.write(`\ngantry: ${request.trigger}: ${request.summary}\n`);
    },
    ask(request, signal) {
      if (!input.isTTY) return Promise.resolve({ unanswered: "standard input is not a terminal" });
      return serial(() => prompt(request, signal, input, output));
    },
  };
}

async function prompt(
  request: InteractionRequest,
  signal: AbortSignal,
  input: CliChannelOptions["input"],
  output: CliChannelOptions["output"],
): Promise<ChannelReply> {
  if (signal.aborted) return { unanswered: "timeout" };
  const seconds = Math.round(request.timeoutMs / 1000);
  const choices = request.options.map((option, i) => `${i + 1}) ${option}`).join("  ");
  output.write(
    `\ngantry: ${request.trigger}${request.storyId ? ` (${request.storyId})` : ""}: ${request.summary}\n` +
      `  ${choices}\n  no answer in ${seconds} s takes ${request.fallback}\n`,
  );
  const rl = createInterface({ input, output, terminal: Boolean(input.isTTY && output.isTTY) });
  // In raw mode Ctrl-C reaches readline, not the process: hand it on so the run stops as it would.
  rl.on("SIGINT", () => {
    rl.close();
    process.kill(process.pid, "SIGINT");
  });
  try {
    // Bounded by the signal; each wrong answer costs the person one more line, not the run a loop.
    for (let tries = 0; tries < 100 && !signal.aborted; tries++) {
      const line = await rl.question("> ", { signal });
      const action = choose(line, request.options);
      if (action) return { action, respondedBy: "cli" };
      output.write(
        `  expected a number 1-${request.options.length} or one of: ${request.options.join(", ")}\n`,
      );
    }
    return { unanswered: "timeout" };
  } catch {
    return { unanswered: signal.aborted ? "timeout" : "standard input closed" };
  } finally {
    rl.close();
  }
}

/** `2`, `skip`, or an unambiguous start of an option (`sk`). */
export function choose(line: string, options: InteractionAction[]): InteractionAction | undefined {
  const text = line.trim().toLowerCase();
  if (!text) return undefined;
  const index = Number(text);
  if (Number.isInteger(index)) return options[index - 1];
  const matches = options.filter((option) => option.startsWith(text));
  return matches.length === 1 ? matches[0] : undefined;
}
