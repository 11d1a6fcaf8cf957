import { statSync } from "node:fs";
import { listRuns } from "../ledger/runs.js";
import { queuedJson, queuedStories, queuedView } from "./queued-stories.js";
import { runDir } from "./run-files.js";
import { RunWatcher } from "./run-view.js";
import type { StreamClient } from "./stream-client.js";
import { type ViewParts, viewJson, viewParts, viewPatch } from "./view-patch.js";
import type { RunView } from "./view-types.js";

export interface RunListItem {
  runId: string;
  feature?: string;
  status: string;
  live: boolean;
  startedAt?: string;
  costUsd: number;
  stories: number;
}

/**
 * Every run under .gantry/runs, watched from its files: a new run directory is picked up at the next
 * poll, a live run's events as they are appended. Changes go to the page's event streams (SSE), each
 * client bounded; a client that does not keep up is dropped, never buffered without end.
 */
export class RunHub {
  private readonly watchers = new Map<string, RunWatcher>();
  private readonly clients = new Set<StreamClient>();
  private timer: NodeJS.Timeout | undefined;
  private readonly cache = new Map<string, { parts: ViewParts; json: string; round: number }>();
  /** Polls so far: a run's view is made again at most once between two (see current()); every 40th sends a keep-alive. */
  private round = 0;
  /** The run list as JSON, made again only after a poll that changed something. */
  private listCache: string | undefined;
  private lastList = "";
  /** Each run's version when the streams were last told about it (an answer may read events between polls). */
  private readonly sent = new Map<string, number>();
  /** Each run's view as the streams last got it: the next change goes to them as a patch from it. */
  private readonly streamed = new Map<string, { parts: ViewParts; json: string }>();

  constructor(
    private readonly root: string,
    private readonly options: { pollMs: number; maxClients: number },
  ) {}

  start(): void {
    this.poll();
    this.timer = setInterval(() => this.poll(), this.options.pollMs);
  }

  stop(): void {
    clearInterval(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    for (const client of this.clients) client.end();
    this.clients.clear();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /**
   * A run's watcher; a run directory not seen yet is looked for at once rather than at the next poll
   * (that one directory: a request for a run that does not exist costs one stat, not a poll of every run).
   * `runId` is a checked run id (RUN_ID_PATTERN).
   */
  watcher(runId: string): RunWatcher | undefined {
    const known = this.watchers.get(runId);
    if (known || !statSync(runDir(this.root, runId), { throwIfNoEntry: false })?.isDirectory()) return known;
    this.poll();
    return this.watchers.get(runId);
  }

  list(): RunListItem[] {
    return [...this.watchers.values()].map((watcher) => watcher.summary()).reverse();
  }

  /** The run list as JSON, made once per change (every GET and every new client takes the same bytes). */
  listJson(): string {
    this.listCache ??= JSON.stringify(this.list());
    return this.listCache;
  }

  /** A run's view with, for a live run, the feature's stories it has not reached yet. */
  view(runId: string): RunView | undefined {
    const watcher = this.watcher(runId);
    if (!watcher) return undefined;
    const view = watcher.view();
    if (view.live && view.feature) {
      view.stories.push(
        ...queuedStories(this.root, view.feature, { has: (id) => watcher.knows(id) }, queuedView),
      );
    }
    return view;
  }

  /** The view as JSON (with its version), made once per change of the run (many clients ask for the same state). */
  viewJson(runId: string): string | undefined {
    return this.current(runId)?.json;
  }

  /**
   * The view's parts and JSON, made once per change and at most once between two polls: an answer reads the
   * events appended since the last poll (actions.ts) and so moves the run's version many times a second,
   * but a read gets the view as of the poll, as the event streams do, and its tag stays until the next poll.
   */
  private current(runId: string): { parts: ViewParts; json: string } | undefined {
    const watcher = this.watcher(runId);
    if (!watcher) return undefined;
    const cached = this.cache.get(runId);
    if (cached && (cached.parts.version === watcher.version || cached.round === this.round)) return cached;
    const { view, stories, logJson } = watcher.viewAndStoriesJson();
    if (view.live && view.feature)
      stories.push(...queuedStories(this.root, view.feature, { has: (id) => watcher.knows(id) }, queuedJson));
    const parts = viewParts(view, watcher.version, stories, logJson);
    const made = { parts, json: viewJson(parts), round: this.round };
    this.cache.set(runId, made);
    return made;
  }

  /** The newest live run, else the newest run. */
  currentRunId(): string | undefined {
    const all = [...this.watchers.values()];
    return (all.filter((w) => w.summary().live).at(-1) ?? all.at(-1))?.runId;
  }

  /** Opens an event stream; false when the bound on clients is reached. */
  subscribe(client: StreamClient): boolean {
    if (this.clients.size >= this.options.maxClients) return false;
    client.open();
    this.clients.add(client);
    client.onClose(() => this.clients.delete(client));
    let frames = frame("runs", this.listJson());
    const current = this.currentRunId();
    // What the other clients hold, so the next patch applies; the run's newer events follow in it.
    const json = current ? (this.streamed.get(current) ?? this.current(current))?.json : undefined;
    if (json) frames += frame("run", json);
    this.write(client, Buffer.from(frames, "utf8"));
    return true;
  }

  /** Reads every run's files for what changed and tells the streams (the timer's work; a test may call it). */
  poll(): void {
    this.round += 1;
    const changed: string[] = [];
    let added = false;
    for (const runId of listRuns(this.root)) {
      if (!this.watchers.has(runId)) {
        this.watchers.set(runId, new RunWatcher(this.root, runId));
        added = true;
      }
    }
    for (const watcher of this.watchers.values()) {
      if (watcher.open) watcher.refresh();
      if (watcher.version !== this.sent.get(watcher.runId)) {
        this.sent.set(watcher.runId, watcher.version);
        changed.push(watcher.runId);
      }
    }
    if (added || changed.length > 0) this.listCache = undefined;
    if (this.clients.size === 0) {
      // Nobody holds any view: the next client starts from a whole one.
      this.streamed.clear();
      return;
    }
    // Every frame of this poll in one write per client: one wake-up of each client, not one per frame.
    let frames = "";
    // A comment line now and then keeps idle streams open through proxies and finds clients that left.
    if (this.round % 40 === 0) frames += ": keep-alive\n\n";
    if (added || changed.length > 0) {
      const list = this.listJson();
      // The list changes less often than a run does: sent only when it did.
      if (list !== this.lastList) frames += frame("runs", list);
      this.lastList = list;
    }
    // A run the streams have had goes as a patch from what they had (a story or two and the new log
    // lines, not the whole 5-6 KB view to every client); a run they have not had, whole.
    for (const runId of changed) {
      const now = this.current(runId);
      if (!now) continue;
      const before = this.streamed.get(runId);
      frames += before ? frame("patch", viewPatch(before.parts, now.parts)) : frame("run", now.json);
      this.streamed.set(runId, now);
    }
    if (frames) this.broadcast(frames);
  }

  /** One frame, encoded once, to every client. */
  private broadcast(text: string): void {
    const frames = Buffer.from(text, "utf8");
    for (const client of this.clients) this.write(client, frames);
  }

  private write(client: StreamClient, frames: Buffer): void {
    // A client with over 1 MiB already waiting for it is not reading: drop it.
    if (client.waiting > 1024 * 1024) {
      client.destroy();
      this.clients.delete(client);
      return;
    }
    client.send(frames);
  }
}

const frame = (event: string, json: string) => `event: ${event}\ndata: ${json}\n\n`;
