import { RUN_SCOPE } from "../ledger/entry.js";
import { StoryFold } from "../reporters/story-fold.js";
import type { EventArgs } from "../reporters/types.js";
import type { LoggedEvent } from "./events-tail.js";
import { LogTail, logLine } from "./log-lines.js";
import { DECISIONS_KEPT, reviewDecisionView } from "./review-view.js";
import { RUN_ENDS } from "./run-files.js";
import { StoryJson } from "./story-json.js";
import type { GateView, PendingRequest, StoryView } from "./view-types.js";

const LOG_TAIL = 40;

/**
 * What the page shows of a run, folded from its events one by one: the stories with their gates, reviews and
 * cost, the run's own gates, the open questions, the log's last lines, the status as the events tell it.
 * Reading the files and the run's liveness is the watcher's (run-view.ts).
 */
export class RunFold {
  readonly stories = new Map<string, StoryView>();
  /** Each story's status and passes, counted as the terminal and the reports count them. */
  private readonly progress = new StoryFold();
  /** Each story's JSON, made again only for a story that changed. */
  readonly storyJson = new StoryJson();
  readonly requests = new Map<string, Omit<PendingRequest, "answerable">>();
  readonly log = new LogTail(LOG_TAIL);
  readonly runGates: GateView[] = [];
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
  status = "starting";
  ended = false;
  feature: string | undefined;
  startedAt: string | undefined;
  endedAt: string | undefined;
  totalStories: number | undefined;
  costUsd = 0;
  readonly costBasis = new Set<string>();
  current: string | undefined;
  /** Goes up with every change the page would show. */
  version = 0;

  fold(events: LoggedEvent[]): void {
    for (const event of events) {
      try {
        this.apply(event);
      } catch {
        // A line that is not the event its type names (a bug, or the file edited by hand) is skipped: the
        // server keeps serving every other run and line.
      }
    }
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
