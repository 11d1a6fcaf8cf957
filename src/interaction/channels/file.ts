import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { writeJsonAtomic } from "../../util/atomic-write.js";
import type { Channel, ChannelReply, InteractionRequest } from "../broker.js";

export interface FileChannelOptions {
  /** `<runDir>/interaction`. */
  dir: string;
  pollMs: number;
  /** The channel's name, and the prefix of `respondedBy`: `file` unless another channel reuses the layout. */
  name?: string;
}

export const requestFile = (dir: string, id: string) => join(dir, `${id}.request.json`);
export const responseFile = (dir: string, id: string) => join(dir, `${id}.response.json`);

/**
 * Any program can answer: the request is written (atomically) to `<dir>/<id>.request.json`, and the
 * answer is read from `<id>.response.json` beside it, `{"action": "...", "respondedBy"?: "..."}`.
 * Polled every `pollMs`, at most until the request's timeout.
 */
export function createFileChannel({ dir, pollMs, name = "file" }: FileChannelOptions): Channel {
  const publish = (request: InteractionRequest) => {
    mkdirSync(dir, { recursive: true });
    writeJsonAtomic(requestFile(dir, request.id), request);
  };
  return {
    name,
    async notify(request) {
      publish(request);
    },
    async ask(request, signal) {
      publish(request);
      const path = responseFile(dir, request.id);
      const polls = Math.ceil(request.timeoutMs / pollMs) + 1;
      for (let poll = 0; poll < polls && !signal.aborted; poll++) {
        const reply = readReply(path, name);
        if (reply) return reply;
        await sleep(pollMs, undefined, { signal }).catch(() => {});
      }
      return { unanswered: "timeout" };
    },
  };
}

/** The answer, once the file holds whole JSON; a responder that writes in place may be caught mid-write. */
function readReply(path: string, name: string): ChannelReply | undefined {
  if (!existsSync(path)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return { unanswered: `${path} is not a JSON object` };
  const { action, respondedBy } = value as { action?: unknown; respondedBy?: unknown };
  if (typeof action !== "string") return { unanswered: `${path} has no "action" string` };
  const who = typeof respondedBy === "string" && respondedBy.trim() ? `${name}:${respondedBy.trim()}` : name;
  return { action, respondedBy: who };
}
