/**
 * How a prompt is fitted to `agent.maxPromptChars`: sections in order, some of which may shrink.
 */

/** A section cut to less than this is dropped instead. */
const MIN_SECTION = 160;

/**
 * Parts of the prompt in order. `cut` marks what may shrink to fit `maxChars`, lowest first: the raw output
 * tail (1), a check's raw output (2), the files named (3), the dependencies (4), the description (5), the
 * review findings (6), the test failures (7). The title, the acceptance criteria and the instructions
 * never shrink, even when they alone are over the limit.
 */
export interface Section {
  text: string;
  cut?: number;
  shrink?: (budget: number) => string;
}

/** Shrinks the cuttable sections, lowest `cut` first, until the prompt fits; never the others. */
export function fit(sections: Section[], max: number): string {
  const join = () => sections.map((s) => s.text).join("\n");
  let text = join();
  const cuttable = sections.filter((s) => s.shrink).sort((a, b) => (a.cut ?? 0) - (b.cut ?? 0));
  for (const section of cuttable) {
    if (text.length <= max) break;
    const budget = section.text.length - (text.length - max);
    section.text = budget >= MIN_SECTION && section.shrink ? section.shrink(budget) : "";
    const kept = sections.filter((s) => s.text !== "");
    sections.length = 0;
    sections.push(...kept);
    text = join();
  }
  return text;
}

export function listText(heading: string, lines: string[]): string {
  return `${heading}${lines.join("\n")}\n`;
}

/** The first items that fit, then how many were left out. */
export function listOf(heading: string, lines: string[]): (budget: number) => string {
  return (budget) => {
    const kept: string[] = [];
    let size = heading.length + 40;
    for (const line of lines) {
      if (size + line.length + 1 > budget) break;
      kept.push(line);
      size += line.length + 1;
    }
    const left = lines.length - kept.length;
    return `${heading}${[...kept, `- … ${left} more left out to fit the prompt size limit`].join("\n")}\n`;
  };
}

export function headOf(heading: string, body: string): (budget: number) => string {
  const note = "\n[… cut to fit the prompt size limit]\n";
  return (budget) => `${heading}${body.slice(0, Math.max(0, budget - heading.length - note.length))}${note}`;
}

/** A fenced block of output, cut from the front (the end of a log says most). */
export function fenced(heading: string, body: string, cut: number): Section {
  const fence = body.includes("```") ? "````" : "```";
  const wrap = (text: string) => `${heading}\n\n${fence}\n${text}\n${fence}\n`;
  const note = "[… earlier output cut]\n";
  return {
    text: wrap(body),
    cut,
    shrink: (budget) => wrap(`${note}${body.slice(-Math.max(0, budget - wrap("").length - note.length))}`),
  };
}
