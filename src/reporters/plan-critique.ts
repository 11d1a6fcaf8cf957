import { join } from "node:path";
import { critiqueLines, type PlanCritiqueFile, readPlanCritique } from "../plan/critique-file.js";
import { markdownCell } from "./format.js";

/** The feature's plan-critique.json (docs/planning.md), shown by the reports; undefined when there is none. */
export function featureCritique(root: string, feature: string): PlanCritiqueFile | undefined {
  return feature ? readPlanCritique(join(root, ".gantry", "features", feature)) : undefined;
}

/** The critique as a nested markdown list: the verdict, each objection, its anchors and its reply. */
export function critiqueMarkdown(doc: PlanCritiqueFile, heading: string): string {
  const items = critiqueLines(doc).map((line) => {
    const indent = line.length - line.trimStart().length;
    return `${" ".repeat(indent)}- ${markdownCell(line.trim())}`;
  });
  return `${heading}\n\n${items.join("\n")}\n`;
}
