import { existsSync } from "node:fs";
import { join } from "node:path";
import { requestFile, responseFile } from "../interaction/channels/file.js";
import { critiqueLines, readPlanCritique } from "../plan/critique-file.js";
import { processAlive } from "../process/process-group.js";
import { STATE_FILE } from "../runs/run-state.js";
import { EventsTail } from "./events-tail.js";
import { EVENTS_LOG, runDir } from "./run-files.js";
import { RunFold } from "./run-fold.js";
import { StateFile } from "./state-file.js";
import { roundUsd, storyCopy } from "./story-json.js";
import type { PendingRequest, RunView, StoryView } from "./view-types.js";

const INTERACTION_DIR = "interaction";

/**
 * A run's view for the page: its events.jsonl read as it grows and folded (run-fold.ts), its state.json and
 * process for whether it is live; the same for a live and a finished run.
 */
export class RunWatcher {
  private readonly tail: EventsTail;
  private readonly run = new RunFold();
  private live = false;

  private readonly dir: string;
  private readonly state: StateFile;

  /** The feature's plan critique as lines, read once the feature is known (null: it has none). */
  private critique: string[] | null | undefined;

  constructor(
    private readonly root: string,
    readonly runId: string,
  ) {
    this.dir = runDir(root, runId);
    this.state = new StateFile(join(this.dir, STATE_FILE));
    this.tail = new EventsTail(join(this.dir, EVENTS_LOG));
  }

  /** Goes up with every change the page would show. */
  get version(): number {
    return this.run.version;
  }

  /** What the run list shows, without copying the stories and the log. */
  summary() {
    const run = this.run;
    return {
      runId: this.runId,
      ...(run.feature ? { feature: run.feature } : {}),
      status: run.status,
      live: this.live,
      ...(run.startedAt ? { startedAt: run.startedAt } : {}),
      costUsd: roundUsd(run.costUsd),
      stories: run.stories.size,
    };
  }

  /** Live at the last refresh, and its process is still there now (one signal-0 probe, no file read). */
  stillLive(): boolean {
    const pid = this.state.data?.pid;
    return this.live && pid !== undefined && processAlive(pid);
  }

  /** Whether the run can still change: not ended, or its process is still there. */
  get open(): boolean {
    return !this.run.ended || this.live;
  }

  /** Reads what was appended and the run's liveness; true when anything changed. */
  refresh(): boolean {
    const run = this.run;
    const state = this.state.read();
    const live = state?.status === "running" && processAlive(state.pid);
    const before = run.version;
    run.fold(this.tail.read());
    run.feature ??= state?.feature;
    run.startedAt ??= state?.startedAt;
    if (live !== this.live) {
      this.live = live;
      run.version += 1;
    }
    if (!run.ended && !live && state && state.status !== "running") {
      run.status = state.status;
    } else if (!run.ended && !live && run.version > 0 && run.status === "running") {
      run.status = "interrupted";
    }
    // Only a live run keeps its events.jsonl open: a root may hold thousands of ended or interrupted runs.
    if (!this.live) this.tail.close();
    return run.version !== before;
  }

  /**
   * Only what was appended to events.jsonl (a question asked since the last poll), not the state: what an
   * answer needs, without re-reading state.json per request. True when anything changed.
   */
  readEvents(): boolean {
    const before = this.run.version;
    this.run.fold(this.tail.readAppended());
    return this.run.version !== before;
  }

  /** Releases the open events.jsonl (the server is stopping). */
  close(): void {
    this.tail.close();
  }

  view(): RunView {
    return this.viewWith([...this.run.stories.values()].map(storyCopy));
  }

  /** The view without its stories, and each story's JSON apart (made again only for a story that changed). */
  viewAndStoriesJson(): { view: RunView; stories: string[]; logJson: string } {
    const stories = [...this.run.stories.values()].map((story) => this.run.storyJson.of(story));
    return { view: this.viewWith([]), stories, logJson: this.run.log.toJson() };
  }

  /** Whether the run has reached this story (it has an event of it). */
  knows(storyId: string): boolean {
    return this.run.stories.has(storyId);
  }

  /** The question still open with this id, if any. */
  pendingRequest(id: string): Omit<PendingRequest, "answerable"> | undefined {
    return this.run.requests.get(id);
  }

  private viewWith(stories: StoryView[]): RunView {
    const run = this.run;
    const dir = join(this.dir, INTERACTION_DIR);
    const pending = [...run.requests.values()].map((request) => ({
      ...request,
      answerable:
        this.live && existsSync(requestFile(dir, request.id)) && !existsSync(responseFile(dir, request.id)),
    }));
    return {
      runId: this.runId,
      ...(run.feature ? { feature: run.feature } : {}),
      status: run.status,
      live: this.live,
      ...(run.startedAt ? { startedAt: run.startedAt } : {}),
      ...(run.endedAt ? { endedAt: run.endedAt } : {}),
      ...(run.totalStories !== undefined ? { totalStories: run.totalStories } : {}),
      costUsd: roundUsd(run.costUsd),
      costBasis: [...run.costBasis].sort(),
      ...(run.current ? { currentStory: run.current } : {}),
      stories,
      gates: [...run.runGates],
      ...(this.planCritique() ? { planCritique: this.critique ?? [] } : {}),
      pending,
      log: [...run.log.lines],
    };
  }

  private planCritique(): boolean {
    if (this.critique === undefined && this.run.feature) {
      const doc = readPlanCritique(join(this.root, ".gantry", "features", this.run.feature));
      this.critique = doc ? critiqueLines(doc) : null;
    }
    return Boolean(this.critique);
  }
}
