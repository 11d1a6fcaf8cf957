import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { EventBus } from "../bus/event-bus.js";
import type { RunControl } from "../model/run-control.js";
import { STORY_ID_PATTERN } from "../prd/story.js";

/** `<runDir>/control/`: where `gantry serve` leaves a control for the run (src/serve/controls.ts). */
export const CONTROL_DIR = "control";
const ACTIONS = new Set(["pause", "skip", "abort"]);
const MAX_PER_POLL = 20;

export interface ServeControlDeps {
  runDir: string;
  control: RunControl;
  warn: (line: string) => void;
  pollMs?: number;
  /** What abort does: the same as Ctrl-C, by default a SIGINT to this process. */
  interrupt?: () => void;
}

/**
 * Takes the controls `gantry serve` writes under the run directory, each once, in the order written:
 * pause after the current story, skip a story when it comes up, abort (as Ctrl-C). Each is recorded as
 * `run:control` before it acts. None of them can make a story pass.
 */
export function wireServeControl(bus: EventBus, deps: ServeControlDeps): () => void {
  const dir = join(deps.runDir, CONTROL_DIR);
  const interrupt = deps.interrupt ?? (() => process.kill(process.pid, "SIGINT"));
  let current: string | undefined;
  let pauseAfterStory: string | undefined;

  const offStart = bus.on("story:start", "serve-control", (event) => {
    current = event.story.id;
  });
  const ended = (storyId: string) => {
    if (storyId === current) current = undefined;
    if (pauseAfterStory !== undefined) deps.control.requestPause(pauseAfterStory);
  };
  const offs = [
    offStart,
    bus.on("story:complete", "serve-control", (e) => ended(e.story.id)),
    bus.on("story:fail", "serve-control", (e) => ended(e.story.id)),
    bus.on("story:skip", "serve-control", (e) => ended(e.story.id)),
  ];

  const take = (control: { action: string; storyId?: string; by: string }) => {
    bus.emit("run:control", {
      action: control.action as "pause" | "skip" | "abort",
      ...(control.storyId ? { storyId: control.storyId } : {}),
      by: control.by,
    });
    if (control.action === "pause") {
      pauseAfterStory = `paused from gantry serve (${control.by})`;
      if (current === undefined) deps.control.requestPause(pauseAfterStory);
    } else if (control.action === "skip" && control.storyId) {
      deps.control.vetoStory(control.storyId, `skipped from gantry serve (${control.by})`);
    } else if (control.action === "abort") {
      void bus.flush().then(interrupt);
    }
  };

  const poll = () => {
    let names: string[];
    try {
      names = readdirSync(dir)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .slice(0, MAX_PER_POLL);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      const control = read(path);
      rmSync(path, { force: true });
      if (control) take(control);
      else deps.warn(`gantry: ${path}: not a control from gantry serve; ignored`);
    }
  };
  const timer = setInterval(poll, deps.pollMs ?? 250);
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const off of offs) off();
  };
}

function read(path: string): { action: string; storyId?: string; by: string } | undefined {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    const { action, storyId, by } = value;
    if (typeof action !== "string" || !ACTIONS.has(action) || typeof by !== "string") return undefined;
    if (storyId !== undefined && (typeof storyId !== "string" || !STORY_ID_PATTERN.test(storyId)))
      return undefined;
    if (action === "skip" && storyId === undefined) return undefined;
    return { action, by: by.slice(0, 80), ...(typeof storyId === "string" ? { storyId } : {}) };
  } catch {
    return undefined;
  }
}
