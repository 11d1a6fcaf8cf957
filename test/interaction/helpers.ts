import type { InteractionAction } from "../../src/config/schema.js";
import type { InteractionRequest } from "../../src/interaction/broker.js";

/** A request as the interaction subscriber builds it. */
export function request(overrides: Partial<InteractionRequest> = {}): InteractionRequest {
  const timeoutMs = overrides.timeoutMs ?? 10_000;
  const now = Date.now();
  return {
    id: `req-${Math.random().toString(36).slice(2, 10)}`,
    trigger: "human-review",
    storyId: "US-1",
    summary: "US-1 failed at every tier",
    options: ["approve", "skip", "retry", "abort"] as InteractionAction[],
    timeoutMs,
    fallback: "skip",
    runId: "run-1",
    feature: "checkout",
    at: new Date(now).toISOString(),
    expiresAt: new Date(now + timeoutMs).toISOString(),
    ...overrides,
  };
}

export const never = new AbortController().signal;

/**
 * The script of a second process, `node -e RESPONDER <dir> <who> <delayMs>`: watches `dir` (an interaction
 * directory, or a runs directory whose `<runId>/interaction` it looks into) for `<id>.request.json`, and
 * answers each request once, `retry` when offered, else the first option (or always `action`, when given as a
 * fourth argument), written atomically.
 */
export const RESPONDER = `
const fs = require("node:fs"), path = require("node:path");
const [dir, who, delayMs, fixed] = process.argv.slice(1);
const answered = new Set();
setTimeout(() => process.exit(0), 60000);
setInterval(() => {
  if (!fs.existsSync(dir)) return;
  // The interaction directory itself, or a runs directory holding <runId>/interaction.
  const dirs = [dir, ...fs.readdirSync(dir).map((d) => path.join(dir, d, "interaction"))];
  for (const at of dirs.filter((d) => fs.existsSync(d) && fs.statSync(d).isDirectory())) {
    for (const name of fs.readdirSync(at)) {
      if (!name.endsWith(".request.json")) continue;
      const id = name.slice(0, -".request.json".length);
      if (answered.has(id)) continue;
      answered.add(id);
      const req = JSON.parse(fs.readFileSync(path.join(at, name), "utf8"));
      const action = fixed ?? (req.options.includes("retry") ? "retry" : req.options[0]);
      setTimeout(() => {
        const tmp = path.join(at, "." + id + ".tmp");
        fs.writeFileSync(tmp, JSON.stringify({ action, respondedBy: who }));
        fs.renameSync(tmp, path.join(at, id + ".response.json"));
      }, Number(delayMs));
    }
  }
}, 20);
`;
