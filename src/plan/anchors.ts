import { citationProblem, type TreeReader } from "../prd/research-findings.js";
import type { Anchor } from "./critique-schema.js";

/** What anchors are resolved against: the repository, the stories as they stand, the spec's headings. */
export interface AnchorWorld {
  tree: TreeReader;
  stories: ReadonlySet<string>;
  headings: ReadonlySet<string>;
}

/** Why an anchor does not resolve, or undefined when it does. An inference resolves nothing by itself. */
export function anchorProblem(anchor: Anchor, world: AnchorWorld): string | undefined {
  switch (anchor.kind) {
    case "file":
      return citationProblem(anchor, world.tree);
    case "story":
      return world.stories.has(anchor.story) ? undefined : `no story ${anchor.story} in the plan`;
    case "spec":
      return world.headings.has(anchor.heading.trim())
        ? undefined
        : `the spec has no heading ${JSON.stringify(anchor.heading)}`;
    case "inference":
      return "an inference points at nothing gantry can check";
  }
}

/** How an anchor is shown to a person: `src/a.js:3`, `story US-2`, `spec "Goal"`, `inference`. */
export function describeAnchor(anchor: Anchor): string {
  switch (anchor.kind) {
    case "file":
      return `${anchor.path}:${anchor.line}`;
    case "story":
      return `story ${anchor.story}`;
    case "spec":
      return `spec ${JSON.stringify(anchor.heading)}`;
    case "inference":
      return "inference";
  }
}

/** The text of every markdown heading of a spec (ATX headings, `#` to `######`, closing `#`s dropped). */
export function specHeadings(spec: string): Set<string> {
  const headings = new Set<string>();
  let fenced = false;
  for (const line of spec.split(/\r?\n/)) {
    if (/^\s{0,3}(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (match?.[1]) headings.add(match[1].trim());
  }
  return headings;
}
