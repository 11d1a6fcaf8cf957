import { indexFlagsIn, readIndexFlags } from "./index-file.js";
import { IndexPaths, trackedBelow } from "./index-paths.js";
import { fileKey } from "./tamper-snapshot.js";
import type { UserIndexReset } from "./user-index.js";

/** The user's index flags and which version of the file they are from (tamper-snapshot's indexKey). */
export interface IndexFlags {
  indexKey: string;
  indexFlags: Set<string>;
}

/**
 * What this process knows of the user's index file, by version: its paths (readiness's tracked files), the
 * index gantry's last commit wrote in node, and its flags, so that at 50,000 entries the 6 MB file is read
 * again only when another process wrote it.
 */
export class UserIndexBook {
  private readonly paths = new IndexPaths();
  private written: UserIndexReset | undefined;
  /** The memory of the index gantry wrote last: the next merge reads it, so it is not lent again. */
  private lastWritten: ArrayBufferLike | undefined;
  /** Buffers the merges write into, kept for the run (a fresh 6 MB buffer costs its page faults, 40-90 ms here). */
  private readonly pool: Buffer[] = [];

  constructor(
    private readonly index: string,
    private readonly hashBytes: number,
  ) {}

  /** The tracked files below `prefix` (trackedBelow); undefined: ask git. */
  tracked(prefix: string): ReadonlySet<string> | undefined {
    return trackedBelow(this.paths, this.index, prefix, this.hashBytes);
  }

  /** The index gantry's last commit wrote in node, left for the commit to take (a commit made ahead reads it). */
  peekWritten(): UserIndexReset | undefined {
    return this.written;
  }

  /** The index gantry's last commit wrote in node, for the next commit (taken once). */
  takeWritten(): UserIndexReset | undefined {
    const written = this.written;
    this.written = undefined;
    return written;
  }

  /**
   * After gantry's commit: the flags of the index it left. Written in node, it has none (only plain entries
   * are merged: index-merge.ts) and the tracked files follow from the paths it added and removed; else
   * read in node (undefined: git is asked by the next snapshot).
   */
  committed(reset: UserIndexReset | undefined): IndexFlags | undefined {
    this.written = reset;
    this.lastWritten = reset?.bytes.buffer;
    if (reset) this.paths.written(reset);
    if (reset?.key) return { indexKey: reset.key, indexFlags: new Set() };
    const read = readIndexFlags(this.index, this.hashBytes);
    return read && { indexKey: read.key, indexFlags: read.indexFlags };
  }

  /**
   * A buffer of `size` bytes for the next merge to write the index into (mergeUserIndex's `allocate`, which
   * writes every byte: not zeroed, 6 MB of zeros cost 10-20 ms a story): one of the pool's that holds neither
   * the index written last (the merge reads it) nor the bytes the paths were last read from; else a new one, kept.
   */
  buffer(size: number): Buffer {
    const free = this.pool.find(
      (b) => b.length >= size && b.buffer !== this.lastWritten && !this.paths.holds(b.buffer),
    );
    if (!free) {
      const made = Buffer.allocUnsafeSlow(Math.ceil(size * 1.25));
      // Two lent at a time at most (the one written last and the next); a third only while the paths hold one.
      if (this.pool.length >= 3) this.pool.shift();
      this.pool.push(made);
      return made.subarray(0, size);
    }
    return free.subarray(0, size);
  }

  /** The flags of the file as it is now, from the last read of its paths when that read was of this version. */
  flagsFromLastRead(): IndexFlags | undefined {
    const key = fileKey(this.index);
    const bytes = this.paths.bytesOf(key);
    const flags = bytes && indexFlagsIn(bytes, this.hashBytes);
    return flags && { indexKey: key, indexFlags: flags };
  }
}
