/** How far past the cut point a line start may be looked for, so a parser never sees half a line. */
const LINE_SEARCH = 4096;

/**
 * Keeps the last `limit` characters of a stream in bounded memory (at most about twice the limit between
 * compactions) and counts everything that went through.
 */
export class OutputTail {
  private chunks: string[] = [];
  private kept = 0;
  /** Bytes pushed in all, when the caller says how many; UTF-8 bytes of the text otherwise. */
  totalBytes = 0;

  constructor(private readonly limit: number) {}

  push(text: string, bytes: number = Buffer.byteLength(text, "utf8")): void {
    this.totalBytes += bytes;
    if (!text) return;
    this.chunks.push(text);
    this.kept += text.length;
    if (this.kept > this.limit * 2) this.compact();
  }

  text(): string {
    this.compact();
    return this.chunks.join("");
  }

  private compact(): void {
    if (this.kept <= this.limit) return;
    const joined = this.chunks.join("");
    const start = joined.length - this.limit;
    // Start at a line boundary when one is near; otherwise never inside a surrogate pair.
    const newline = joined.indexOf("\n", start);
    let cut = newline >= 0 && newline - start < LINE_SEARCH ? newline + 1 : start;
    if (cut === start && isLowSurrogate(joined.charCodeAt(cut))) cut += 1;
    const kept = joined.slice(cut);
    this.chunks = [kept];
    this.kept = kept.length;
  }
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
