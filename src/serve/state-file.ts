import { readFileSync, statSync } from "node:fs";
import type { RunStateData } from "../runs/run-state.js";

/** A run's state.json, parsed again only when the file changed (the run rewrites it by rename, a few times a story). */
export class StateFile {
  /** As last parsed, and the identity of the file it came from (a rename makes a new inode). */
  private last: { data: RunStateData | undefined; stamp: string } = { data: undefined, stamp: "" };

  constructor(private readonly path: string) {}

  /** As last read, without looking at the file. */
  get data(): RunStateData | undefined {
    return this.last.data;
  }

  read(): RunStateData | undefined {
    const stat = statSync(this.path, { throwIfNoEntry: false });
    if (!stat) {
      this.last = { data: undefined, stamp: "" };
      return undefined;
    }
    const stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    if (stamp === this.last.stamp) return this.last.data;
    let data: RunStateData | undefined;
    try {
      data = JSON.parse(readFileSync(this.path, "utf8")) as RunStateData;
    } catch {
      data = undefined;
    }
    this.last = { data, stamp };
    return data;
  }
}
