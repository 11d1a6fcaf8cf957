import type { Activity } from "../process/activity.js";
import type { IgnoredBook } from "./ignored-book.js";
import { newIgnoredSources } from "./ignored-files.js";

export interface LastIgnoredInput {
  /** The repository's top level: new sources are named from it. */
  top: string;
  head(): Promise<string>;
  /** What ran that could reach this tree. */
  ranHere(): Activity;
  listings: IgnoredBook;
}

/**
 * Untracked ignored paths as last listed, with what had run by then and HEAD then: a story's start reuses
 * the listing the story before it ended with when nothing ran in between, HEAD did not move (but for
 * gantry's own commit of the judged tree) and no command was running when it was made.
 */
export class LastIgnored {
  private last: { paths: Set<string>; started: number; sha: string } | undefined;

  constructor(private readonly input: LastIgnoredInput) {}

  /** The last listing while one is kept (the judge's stat baseline does not walk wholly ignored folders). */
  get paths(): ReadonlySet<string> | undefined {
    return this.last?.paths;
  }

  /** The listing now: the last one when it still holds, else listed again. */
  async now(): Promise<Set<string>> {
    const { ranHere, head } = this.input;
    const now = ranHere();
    const last = this.last;
    if (last && last.started === now.started && now.running === 0 && last.sha === (await head()))
      return last.paths;
    return this.list();
  }

  /** Listed again (from `before`, a listing made here, where only some folders changed), and kept when it may be reused. */
  async list(before?: Set<string>): Promise<Set<string>> {
    const { ranHere, head, listings } = this.input;
    const now = ranHere();
    const sha = await head();
    const paths = await (before ? listings.since(before) : listings.list());
    this.last = now.running === 0 ? { paths, started: now.started, sha } : undefined;
    return paths;
  }

  /** Source files among ignored paths that are new since `before`, relative to the repository's top. */
  async newSources(before: Set<string>): Promise<string[]> {
    const found = newIgnoredSources(this.input.top, before, await this.list(before));
    // Files about to be moved away: the next story's start lists them again.
    if (found.length > 0) this.last = undefined;
    return found;
  }

  /** gantry committed the judged tree on `from`: the working tree is unchanged, now on top of `to`. */
  committed(from: string, to: string): void {
    if (this.last && this.last.sha === from) this.last.sha = to;
  }
}
