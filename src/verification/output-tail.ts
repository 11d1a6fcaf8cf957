/** Keeps the last `limit` characters of a stream in bounded memory and counts the rest. */
export class OutputTail {
  private chunks: string[] = [];
  private kept = 0;
  totalBytes = 0;

  constructor(private readonly limit: number) {}

  push(text: string): void {
    this.totalBytes += text.length;
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
    // Start at a line boundary so a parser never sees half a line.
    const newline = joined.indexOf("\n", start);
    const cut = newline >= 0 && newline - start < 4096 ? newline + 1 : start;
    const kept = joined.slice(cut);
    this.chunks = [kept];
    this.kept = kept.length;
  }
}
