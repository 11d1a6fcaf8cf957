import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serveDir } from "../token.js";

export const NONCES_FILE = "nonces.jsonl";

/**
 * The nonces seen, kept on disk so a request cannot be replayed after a restart. A nonce is kept until
 * its timestamp could no longer pass the freshness check; after that a replay is refused as stale.
 * When the store holds `capacity` live nonces a new request is refused: nothing live is ever evicted.
 */
export class NonceStore {
  private readonly seen = new Map<string, number>();
  private readonly file: string;

  constructor(
    root: string,
    private readonly capacity: number,
  ) {
    this.file = join(serveDir(root), NONCES_FILE);
    if (existsSync(this.file)) {
      for (const line of readFileSync(this.file, "utf8").split("\n")) {
        try {
          const { key, until } = JSON.parse(line) as { key: string; until: number };
          if (typeof key === "string" && typeof until === "number") this.seen.set(key, until);
        } catch {}
      }
    }
    this.compact(Date.now());
  }

  /** "new" records it (on disk first); "replayed" and "full" record nothing. */
  take(deviceId: string, nonce: string, until: number, now = Date.now()): "new" | "replayed" | "full" {
    const key = `${deviceId}:${nonce}`;
    const known = this.seen.get(key);
    if (known !== undefined && known > now) return "replayed";
    if (this.seen.size >= this.capacity) {
      this.compact(now);
      if (this.seen.size >= this.capacity) return "full";
    }
    appendFileSync(this.file, `${JSON.stringify({ key, until })}\n`, { mode: 0o600 });
    this.seen.set(key, until);
    return "new";
  }

  /** Drops the nonces whose timestamps are stale by now and rewrites the file with the rest. */
  private compact(now: number): void {
    for (const [key, until] of this.seen) if (until <= now) this.seen.delete(key);
    const lines = [...this.seen].map(([key, until]) => `${JSON.stringify({ key, until })}\n`).join("");
    writeFileSync(this.file, lines, { mode: 0o600 });
  }
}
