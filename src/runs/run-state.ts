import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type AtomicWriteOptions, jsonText, writeJsonAtomic } from "../util/atomic-write.js";
import type { OrderedFile } from "../util/ordered-writes.js";

export const STATE_FILE = "state.json";

export interface RunStateData {
  v: 1;
  runId: string;
  feature: string;
  pid: number;
  startedAt: string;
  updatedAt: string;
  /** The story being worked on, if any. */
  currentStory?: string;
  /** Set just before a story's commit, cleared after it: tells resume whether the commit landed. */
  committing?: {
    storyId: string;
    subject: string;
    /** The judged tree the commit must hold (.gantry/ aside): a landed commit counts only if it does. */
    tree?: string;
  };
  iterations: number;
  status: "running" | "complete" | "paused" | "interrupted" | "error";
}

/** What resume needs, written atomically at each change. */
export class RunState {
  readonly data: RunStateData;
  /** Counts the writes begun: a staged write placed after a newer one began would put old content back. */
  private writes = 0;

  constructor(
    private readonly runDir: string,
    init: Pick<RunStateData, "runId" | "feature">,
  ) {
    const now = new Date().toISOString();
    this.data = {
      v: 1,
      ...init,
      pid: process.pid,
      startedAt: now,
      updatedAt: now,
      iterations: 0,
      status: "running",
    };
    this.save();
  }

  /** `durable: false` for what resume can do without (a pass's count, the story being worked on): one fsync fewer. */
  update(patch: Partial<RunStateData>, options: AtomicWriteOptions = {}): void {
    this.defer(patch);
    this.save(options);
  }

  /**
   * Changes the state in memory only; the next `update` writes it with its own change (one fsync fewer).
   * For what resume does not depend on between now and that next write: a crash before it leaves the
   * previous state, which resume already handles (a `committing` not yet cleared is reconciled from git).
   */
  defer(patch: Partial<RunStateData>): void {
    Object.assign(this.data, patch, { updatedAt: new Date().toISOString() });
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete (this.data as unknown as Record<string, unknown>)[key];
    }
  }

  /**
   * The state with `patch`, as a file for a durable step with others (util/ordered-writes.ts): written and
   * durable when that step resolves, unless a newer write of the state was made in full meanwhile.
   */
  stage(patch: Partial<RunStateData>): OrderedFile {
    this.defer(patch);
    const write = ++this.writes;
    return {
      path: join(this.runDir, STATE_FILE),
      content: jsonText(this.data),
      current: () => this.writes === write,
    };
  }

  private save(options: AtomicWriteOptions = {}): void {
    this.writes += 1;
    writeJsonAtomic(join(this.runDir, STATE_FILE), this.data, options);
  }
}

export function readRunState(runDir: string): RunStateData | undefined {
  const path = join(runDir, STATE_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as RunStateData;
  } catch {
    return undefined;
  }
}
