import type { ServerResponse } from "node:http";
import { listRuns } from "../ledger/runs.js";
import { queuedStories, type RunView, RunWatcher } from "./run-view.js";

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
  private readonly clients = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;

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
    for (const client of this.clients) client.end();
    this.clients.clear();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** A run's watcher; a run directory not seen yet is looked for at once rather than at the next poll. */
  watcher(runId: string): RunWatcher | undefined {
    if (!this.watchers.has(runId)) this.poll();
    return this.watchers.get(runId);
  }

  list(): RunListItem[] {
    return [...this.watchers.values()].map((watcher) => watcher.summary()).reverse();
  }

  /** A run's view with, for a live run, the feature's stories it has not reached yet. */
  view(runId: string): RunView | undefined {
    const watcher = this.watcher(runId);
    if (!watcher) return undefined;
    const view = watcher.view();
    if (view.live && view.feature) {
      view.stories.push(...queuedStories(this.root, view.feature, new Set(view.stories.map((s) => s.id))));
    }
    return view;
  }

  /** The newest live run, else the newest run. */
  currentRunId(): string | undefined {
    const all = [...this.watchers.values()];
    return (all.filter((w) => w.summary().live).at(-1) ?? all.at(-1))?.runId;
  }

  /** Opens an event stream; false when the bound on clients is reached. */
  subscribe(response: ServerResponse): boolean {
    if (this.clients.size >= this.options.maxClients) return false;
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    this.clients.add(response);
    response.on("close", () => this.clients.delete(response));
    this.send(response, "runs", this.list());
    const current = this.currentRunId();
    if (current) this.send(response, "run", this.view(current));
    return true;
  }

  private poll(): void {
    const changed: string[] = [];
    let added = false;
    for (const runId of listRuns(this.root)) {
      if (!this.watchers.has(runId)) {
        this.watchers.set(runId, new RunWatcher(this.root, runId));
        added = true;
      }
    }
    for (const watcher of this.watchers.values()) {
      if (watcher.open && watcher.refresh()) changed.push(watcher.runId);
    }
    if (this.clients.size === 0) return;
    if (added || changed.length > 0) this.broadcast("runs", this.list());
    for (const runId of changed) this.broadcast("run", this.view(runId));
  }

  /** One frame, serialized once, to every client. */
  private broadcast(event: string, data: unknown): void {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const client of this.clients) this.write(client, frame);
  }

  private send(client: ServerResponse, event: string, data: unknown): void {
    this.write(client, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private write(client: ServerResponse, frame: string): void {
    // A client whose socket buffer is already over 1 MiB is not reading: drop it.
    if (client.writableLength > 1024 * 1024) {
      client.destroy();
      this.clients.delete(client);
      return;
    }
    client.write(frame);
  }
}
