/** A file's added and removed lines between base and the judged tree; `line` is 1-based in its side's file. */
export interface FileLines {
  added: { line: number; text: string }[];
  removed: { line: number; text: string }[];
}

/**
 * The added and removed lines of `wanted` files in a `git diff -U0` patch (prefixes a/ and b/), `line`
 * 1-based in its side's file. A hunk's lines are read by the counts in its header, never by how they
 * start: an added `++ x` prints as `+++ x` and a removed `-- x` as `--- x`, and read as headers they
 * would hide the lines after them (a skip marker) or give them to another file.
 */
export function patchLines(patch: string, wanted: ReadonlySet<string>): Map<string, FileLines> {
  const lines = new Map<string, FileLines>();
  let current: FileLines | undefined;
  let oldLine = 0;
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (const text of patch.split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      if (text.startsWith("+")) {
        newLeft--;
        current?.added.push({ line: newLine++, text: text.slice(1) });
      } else if (text.startsWith("-")) {
        oldLeft--;
        current?.removed.push({ line: oldLine++, text: text.slice(1) });
      } else if (text.startsWith(" ")) {
        oldLeft--;
        newLeft--;
        oldLine++;
        newLine++;
      }
      continue;
    }
    if (text.startsWith("+++ ")) {
      const name = text.slice(4);
      // A deleted file's new side; every other name carries the b/ prefix.
      current = name === "/dev/null" ? undefined : linesOf(lines, wanted, unquotePath(name).slice(2));
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(text);
    if (!hunk) continue;
    oldLine = Number(hunk[1]);
    oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
    newLine = Number(hunk[3]);
    newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
  }
  return lines;
}

function linesOf(
  lines: Map<string, FileLines>,
  wanted: ReadonlySet<string>,
  path: string,
): FileLines | undefined {
  if (!wanted.has(path)) return undefined;
  const found = lines.get(path) ?? { added: [], removed: [] };
  lines.set(path, found);
  return found;
}

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/** git quotes a path with unusual bytes as a C string: `\t`, `\"`, `\\` and octal `\303\251` escapes. */
export function unquotePath(name: string): string {
  if (!name.startsWith('"') || !name.endsWith('"') || name.length < 2) return name;
  const bytes: number[] = [];
  const body = name.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const char = body[i] as string;
    if (char !== "\\" || i === body.length - 1) {
      bytes.push(...Buffer.from(char));
      continue;
    }
    const octal = /^[0-3][0-7]{2}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
      continue;
    }
    const next = body[++i] as string;
    bytes.push(C_ESCAPES[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString("utf8");
}

/**
 * The lines a change really added: an added line whose text (trimmed) is among the removed lines was only
 * moved or re-indented, and is left out (each removed line excuses one added line).
 */
export function newLines(lines: FileLines): { line: number; text: string }[] {
  const removed = new Map<string, number>();
  for (const { text } of lines.removed) removed.set(text.trim(), (removed.get(text.trim()) ?? 0) + 1);
  return lines.added.filter(({ text }) => {
    const moved = removed.get(text.trim()) ?? 0;
    if (moved > 0) removed.set(text.trim(), moved - 1);
    return moved === 0;
  });
}
