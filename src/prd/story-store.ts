import { readFileSync } from "node:fs";
import type { StoryStatus } from "../model/story.js";
import { type AtomicWriteOptions, jsonText, writeJsonAtomic } from "../util/atomic-write.js";
import { type OrderedFile, writeInOrder } from "../util/ordered-writes.js";
import { type PrdDocument, restoreOwned } from "./owned-prd.js";
import { applyPatch, fileKey, keyOf, type StoryPatch } from "./save.js";
import { type Prd, type Story, statusOf } from "./story.js";

/** Told what was put back when prd.json no longer held what gantry last wrote there. */
export type OnRestore = (changes: string[]) => void;

/**
 * The run's view of the PRD: stories in memory, every change written back to prd.json at once.
 * During the run prd.json is written only by gantry: the store keeps its own copy of the document
 * (as loaded, plus its own patches), and whenever it finds the file is not the one it wrote last, at
 * its next write or at `settle()`, it puts its copy back and reports what someone else changed.
 */
export class StoryStore {
  private readonly byId: Map<string, Story>;
  /** prd.json as gantry means it to be: the raw document loaded, with gantry's patches applied. */
  private readonly owned: PrdDocument;
  /** The stat key of the file gantry wrote last; while the file still has it, nobody else wrote. */
  private writtenKey: string | undefined;
  /** Deferred changes not written yet. */
  private pending = false;
  /** Stories someone added to the file during the run, as last kept. */
  private added: Record<string, unknown>[] = [];
  /** Counts the writes begun: a staged write placed after a newer one began would put old content back. */
  private writes = 0;
  /** The writes begun by `updateSoon`, settled (a failure is kept for `landed()` to throw). */
  private landing: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    readonly prd: Prd,
    private readonly onRestore: OnRestore = () => {},
  ) {
    this.byId = new Map(prd.userStories.map((s) => [s.id, s]));
    this.owned = JSON.parse(readFileSync(path, "utf8")) as PrdDocument;
    this.writtenKey = fileKey(path);
  }

  get(id: string): Story | undefined {
    return this.byId.get(id);
  }

  status(id: string): StoryStatus | undefined {
    const story = this.byId.get(id);
    return story ? statusOf(story) : undefined;
  }

  /** `durable: false` where a crash of the machine may keep the previous version (a pass's start): one fsync fewer. */
  update(id: string, patch: StoryPatch, options: AtomicWriteOptions = {}): void {
    this.defer(id, patch);
    this.write(options);
  }

  /**
   * As `update` with `durable: false`, but the write goes on in the threadpool while the caller carries on;
   * `landed()` waits for it. A newer write made meanwhile supersedes it (it is then dropped, never put back).
   */
  updateSoon(id: string, patch: StoryPatch): void {
    const step = writeInOrder([this.stage(id, patch)], { durable: false });
    const before = this.landing;
    this.landing = Promise.all([before, step]);
    // Not lost when nobody waits: kept for landed().
    this.landing.catch(() => undefined);
  }

  /** Resolves once every `updateSoon` write begun so far is on disk (or superseded); throws a write's error. */
  async landed(): Promise<void> {
    await this.landing;
  }

  /**
   * The story changed and prd.json as a file for a durable step with others (util/ordered-writes.ts):
   * written and durable when that step resolves, unless a newer write was made in full meanwhile.
   */
  stage(id: string, patch: StoryPatch): OrderedFile {
    this.defer(id, patch);
    this.pending = false;
    const write = ++this.writes;
    return {
      path: this.path,
      content: jsonText(this.document()),
      current: () => this.writes === write,
      placed: (stats) => {
        this.writtenKey = keyOf(stats);
      },
    };
  }

  /**
   * What `stage(id, patch)` would write now, changing nothing (a commit made ahead builds its tree from it and
   * is used only when the file then holds the same). Undefined for a story the store's copy lacks.
   */
  preview(id: string, patch: StoryPatch): { path: string; content: string } | undefined {
    const owned = this.owned.userStories?.find((s) => s.id === id);
    if (!owned) return undefined;
    const patched = { ...owned };
    applyPatch(patched, patch);
    const doc = this.document();
    const userStories = doc.userStories?.map((s) => (s === owned ? patched : s));
    return { path: this.path, content: jsonText({ ...doc, userStories }) };
  }

  /**
   * Changes a story in memory only; the next `update` (or `settle`) writes it along with its own change,
   * one fsync fewer. For what a crash may lose: the story's status stays what the file last said, and a
   * story the file says is pending or in progress runs again on resume either way.
   */
  defer(id: string, patch: StoryPatch): void {
    const story = this.byId.get(id);
    if (!story) return;
    applyPatch(story as Record<string, unknown>, patch);
    // Someone else's edit is found (and put back) against the file gantry last wrote, before gantry's own.
    this.guard();
    const owned = this.owned.userStories?.find((s) => s.id === id);
    if (owned) applyPatch(owned, patch);
    this.pending = true;
  }

  /** Checks prd.json against gantry's copy now (the end of a run), restoring it if someone edited it. */
  settle(): void {
    if (this.guard() || this.pending) this.write();
  }

  private write(options: AtomicWriteOptions = {}): void {
    this.pending = false;
    this.writes += 1;
    this.writtenKey = keyOf(writeJsonAtomic(this.path, this.document(), options));
  }

  /**
   * Compares the file with gantry's copy unless it is still the file gantry wrote last (the fast
   * path: no read, no parse). Reports what someone else changed; true when the file must be rewritten.
   */
  private guard(): boolean {
    if (this.writtenKey !== undefined && this.writtenKey === fileKey(this.path)) return false;
    const { doc, changes } = this.restore();
    this.added = (doc.userStories ?? []).slice(this.owned.userStories?.length ?? 0);
    if (changes.length > 0) this.onRestore(changes);
    return changes.length > 0;
  }

  /** What prd.json should hold: gantry's copy and the stories others added (kept, without status). */
  private document(): PrdDocument {
    return this.added.length === 0
      ? this.owned
      : { ...this.owned, userStories: [...(this.owned.userStories ?? []), ...this.added] };
  }

  private restore(): { doc: PrdDocument; changes: string[] } {
    let found: unknown;
    try {
      found = JSON.parse(readFileSync(this.path, "utf8"));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const what = code === "ENOENT" ? "deleted" : code ? `unreadable (${code})` : "not valid JSON";
      return { doc: this.owned, changes: [`the file was ${what}; restored`] };
    }
    return restoreOwned(this.owned, found);
  }
}
