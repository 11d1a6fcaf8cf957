import { existsSync } from "node:fs";
import { join } from "node:path";
import { requestFile, responseFile } from "../interaction/channels/file.js";
import { RUN_SCOPE } from "../ledger/entry.js";
import { critiqueLines, readPlanCritique } from "../plan/critique-file.js";
import { processAlive } from "../process/process-group.js";
import { StoryFold } from "../reporters/story-fold.js";
import type { EventArgs } from "../reporters/types.js";
import { STATE_FILE } from "../runs/run-state.js";
import { EventsTail, type LoggedEvent } from "./events-tail.js";
import { LogTail, logLine } from "./log-lines.js";
import { DECISIONS_KEPT, reviewDecisionView } from "./review-view.js";
import { EVENTS_LOG, RUN_ENDS, runDir } from "./run-files.js";
import { StateFile } from "./state-file.js";
import { roundUsd, StoryJson, storyCopy } from "./story-json.js";
import type { GateView, PendingRequest, RunView, StoryView } from "./view-types.js";

const LOG_TAIL = 40;
const INTERACTION_DIR = "interaction";

/** A run's view for the page, folded from its events.jsonl as it grows; the same for a live and a finished run. */
export class RunWatcher {
  private readonly tail: EventsTail;
  private readonly stories = new Map<string, StoryView>();
  /** Each story's status and passes, counted as the terminal and the reports count them. */
  private readonly progress = new StoryFold();
  private readonly storyJson = new StoryJson();
  private readonly requests = new Map<string, Omit<PendingRequest, "answerable">>();
  private readonly log = new LogTail(LOG_TAIL);
  private readonly runGates: GateView[] = [];
  /** Run-scoped events land here, never in the story list. */
  private readonly runScope: StoryView = {
    id: RUN_SCOPE,
    title: "the run",
    status: "",
    attempts: 0,
    costUsd: 0,
    costBasis: [],
    gates: this.runGates,
  };
  private status = "starting";
  private ended = false;
  private feature: string | undefined;
  private startedAt: string | undefined;
  private endedAt: string | undefined;
  private totalStories: number | undefined;
  private costUsd = 0;
  private readonly costBasis = new Set<string>();
  private current: string | undefined;
  private live = false;
  /** Goes up with every change the page would show. */
  version = 0;

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

  /** What the run list shows, without copying the stories and the log. */
  summary() {
    return {
      runId: this.runId,
      ...(this.feature ? { feature: this.feature } : {}),
      status: this.status,
      live: this.live,
      ...(this.startedAt ? { startedAt: this.startedAt } : {}),
      costUsd: roundUsd(this.costUsd),
      stories: this.stories.size,
    };
  }

  /** Live at the last refresh, and its process is still there now (one signal-0 probe, no file read). */
  stillLive(): boolean {
    const pid = this.state.data?.pid;
    return this.live && pid !== undefined && processAlive(pid);
  }

  /** Whether the run can still change: not ended, or its process is still there. */
  get open(): boolean {
    return !this.ended || this.live;
  }

  /** Reads what was appended and the run's liveness; true when anything changed. */
  refresh(): boolean {
    const state = this.state.read();
    const live = state?.status === "running" && processAlive(state.pid);
    const before = this.version;
    this.fold(this.tail.read());
    this.feature ??= state?.feature;
    this.startedAt ??= state?.startedAt;
    if (live !== this.live) {
      this.live = live;
      this.version += 1;
    }
    if (!this.ended && !live && state && state.status !== "running") {
      this.status = state.status;
    } else if (!this.ended && !live && this.version > 0 && this.status === "running") {
      this.status = "interrupted";
    }
    // Only a live run keeps its events.jsonl open: a root may hold thousands of ended or interrupted runs.
    if (!this.live) this.tail.close();
    return this.version !== before;
  }

  /**
   * Only what was appended to events.jsonl (a question asked since the last poll), not the state: what an
   * answer needs, without re-reading state.json per request. True when anything changed.
   */
  readEvents(): boolean {
    const before = this.version;
    this.fold(this.tail.readAppended());
    return this.version !== before;
  }

  /** Releases the open events.jsonl (the server is stopping). */
  close(): void {
    this.tail.close();
  }

  private fold(events: LoggedEvent[]): void {
    for (const event of events) {
      try {
        this.apply(event);
      } catch {
        // A line that is not the event its type names (a bug, or the file edited by hand) is skipped: the
        // server keeps serving every other run and line.
      }
    }
  }

  view(): RunView {
    return this.viewWith([...this.stories.values()].map(storyCopy));
  }

  /** The view without its stories, and each story's JSON apart (made again only for a story that changed). */
  viewAndStoriesJson(): { view: RunView; stories: string[]; logJson: string } {
    const stories = [...this.stories.values()].map((story) => this.storyJson.of(story));
    return { view: this.viewWith([]), stories, logJson: this.log.toJson() };
  }

  /** Whether the run has reached this story (it has an event of it). */
  knows(storyId: string): boolean {
    return this.stories.has(storyId);
  }

  private viewWith(stories: StoryView[]): RunView {
    const dir = join(this.dir, INTERACTION_DIR);
    const pending = [...this.requests.values()].map((request) => ({
      ...request,
      answerable:
        this.live && existsSync(requestFile(dir, request.id)) && !existsSync(responseFile(dir, request.id)),
    }));
    return {
      runId: this.runId,
      ...(this.feature ? { feature: this.feature } : {}),
      status: this.status,
      live: this.live,
      ...(this.startedAt ? { startedAt: this.startedAt } : {}),
      ...(this.endedAt ? { endedAt: this.endedAt } : {}),
      ...(this.totalStories !== undefined ? { totalStories: this.totalStories } : {}),
      costUsd: roundUsd(this.costUsd),
      costBasis: [...this.costBasis].sort(),
      ...(this.current ? { currentStory: this.current } : {}),
      stories,
      gates: [...this.runGates],
      ...(this.planCritique() ? { planCritique: this.critique ?? [] } : {}),
      pending,
      log: [...this.log.lines],
    };
  }

  private planCritique(): boolean {
    if (this.critique === undefined && this.feature) {
      const doc = readPlanCritique(join(this.root, ".gantry", "features", this.feature));
      this.critique = doc ? critiqueLines(doc) : null;
    }
    return Boolean(this.critique);
  }

  /** The question still open with this id, if any. */
  pendingRequest(id: string): Omit<PendingRequest, "answerable"> | undefined {
    return this.requests.get(id);
  }

  /** A story about to change (every change to one goes through here): its JSON is made again. */
  private story(id: string, title?: string): StoryView {
    if (id === RUN_SCOPE) return this.runScope;
    this.storyJson.forget(id);
    let story = this.stories.get(id);
    if (!story) {
      story = {
        id,
        title: title ?? id,
        status: "pending",
        attempts: 0,
        costUsd: 0,
        costBasis: [],
        gates: [],
      };
      this.stories.set(id, story);
    }
    if (title) story.title = title;
    return story;
  }

  private apply(event: LoggedEvent): void {
    this.version += 1;
    const line = logLine(event);
    if (line !== undefined) {
      this.log.push(line);
    }
    const args = [event.type, event] as unknown as EventArgs;
    const [type, e] = args;
    switch (type) {
      case "run:start":
        this.status = "running";
        this.feature = String(e.feature);
        this.startedAt = event.at;
        this.totalStories = Number(e.totalStories);
        break;
      case "story:start":
        this.progress.apply(this.story(e.story.id, e.story.title), ...args);
        this.current = e.story.id;
        break;
      case "stage:enter":
      case "escalation:tier-change":
      case "escalation:exhausted":
        this.progress.apply(this.story(e.storyId), ...args);
        break;
      case "agent:end": {
        const story = this.story(e.storyId);
        const usd = Number(e.costUsd) || 0;
        story.costUsd += usd;
        this.costUsd += usd;
        if (!story.costBasis.includes(e.costBasis)) story.costBasis.push(String(e.costBasis));
        this.costBasis.add(String(e.costBasis));
        break;
      }
      case "review-decision:result": {
        const story = this.story(e.storyId);
        story.reviews = [...(story.reviews ?? []), reviewDecisionView(event)].slice(-DECISIONS_KEPT);
        break;
      }
      case "gate:verdict": {
        const story = this.story(e.storyId);
        story.gates.push({ gate: e.gate, verdict: e.verdict, tree: e.tree, attempt: e.attempt });
        break;
      }
      case "story:merge":
        this.progress.apply(this.story(e.storyId), ...args);
        break;
      case "story:complete":
      case "story:fail":
      case "story:skip": {
        const story = this.story(e.story.id, e.story.title);
        this.progress.apply(story, ...args);
        if (this.current === story.id) this.current = undefined;
        break;
      }
      case "interaction:request":
        this.requests.set(e.id, {
          id: e.id,
          trigger: e.trigger,
          ...(e.storyId ? { storyId: e.storyId } : {}),
          summary: e.summary,
          options: e.options,
          fallback: e.fallback,
          ...(event.at ? { at: event.at } : {}),
          ...(event.at
            ? { expiresAt: new Date(Date.parse(event.at) + Number(e.timeoutMs)).toISOString() }
            : {}),
        });
        break;
      case "interaction:response":
        this.requests.delete(e.id);
        break;
      default:
        if (RUN_ENDS.has(event.type)) {
          this.ended = true;
          this.endedAt = e.at;
          this.current = undefined;
          this.requests.clear();
          this.status = type === "run:complete" ? "complete" : type === "run:pause" ? "paused" : "error";
        } else if (line === undefined) {
          // Nothing the page shows changed (verify:start, agent:start, run:cost-check, ...: a sixth of a
          // run's events): the view, its tag and the streams stay as they were.
          this.version -= 1;
        }
    }
  }
}
