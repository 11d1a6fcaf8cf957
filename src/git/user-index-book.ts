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

  constructor(
    private readonly index: string,
    private readonly hashBytes: number,
  ) {}

  /** The tracked files below `prefix` (trackedBelow); undefined: ask git. */
  tracked(prefix: string): ReadonlySet<string> | undefined {
    return trackedBelow(this.paths, this.index, prefix, this.hashBytes);
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
    if (reset) this.paths.written(reset);
    if (reset?.key) return { indexKey: reset.key, indexFlags: new Set() };
    const read = readIndexFlags(this.index, this.hashBytes);
    return read && { indexKey: read.key, indexFlags: read.indexFlags };
  }

  /** The flags of the file as it is now, from the last read of its paths when that read was of this version. */
  flagsFromLastRead(): IndexFlags | undefined {
    const key = fileKey(this.index);
    const bytes = this.paths.bytesOf(key);
    const flags = bytes && indexFlagsIn(bytes, this.hashBytes);
    return flags && { indexKey: key, indexFlags: flags };
  }
}
