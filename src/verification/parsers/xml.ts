/**
 * The few XML lexing steps the JUnit scanner needs: entity decoding, one attribute from a start tag,
 * and the end of a tag. Each is a single forward scan; none builds a document.
 */

export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z]{2,6});/g, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code =
        ref[1] === "x" || ref[1] === "X"
          ? Number.parseInt(ref.slice(2), 16)
          : Number.parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const named: Record<string, string> = {
      lt: "<",
      gt: ">",
      amp: "&",
      quot: '"',
      apos: "'",
      nbsp: "\u00a0",
    };
    return named[ref] ?? whole;
  });
}

const attrPatterns = new Map<string, RegExp>();

/** One attribute's decoded value from a start tag's text, without building the whole attribute set. */
export function attr(tag: string, name: string): string | undefined {
  if (!tag.includes(name)) return undefined;
  let pattern = attrPatterns.get(name);
  if (!pattern) {
    pattern = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, "i");
    attrPatterns.set(name, pattern);
  }
  const m = pattern.exec(tag);
  return m ? decodeEntities(m[1] ?? m[2] ?? "") : undefined;
}

export function attrInt(tag: string, name: string): number | undefined {
  const raw = attr(tag, name);
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return undefined;
  return Number.parseInt(raw, 10);
}

const TAG_SPECIAL = /[<>"']/g;

/** Index of the `>` that ends the tag opened at `from`, skipping quoted attribute values; -1 if none. */
export function tagEnd(text: string, from: number): number {
  TAG_SPECIAL.lastIndex = from;
  for (let m = TAG_SPECIAL.exec(text); m; m = TAG_SPECIAL.exec(text)) {
    const ch = m[0];
    if (ch === ">") return m.index;
    if (ch === "<") return -1;
    const close = text.indexOf(ch, m.index + 1);
    if (close < 0) return -1;
    TAG_SPECIAL.lastIndex = close + 1;
  }
  return -1;
}
