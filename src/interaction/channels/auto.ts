import type { Channel } from "../broker.js";

/** Nobody is asked: every request takes its fallback at once. The default channel. */
export function createAutoChannel(): Channel {
  return {
    name: "auto",
    ask: async (request) => ({ action: request.fallback, respondedBy: "auto" }),
  };
}
