/**
 * The "Your answer" section of a prompt whose session answers in a JSON file (plan, critic, plan reply):
 * where to write it and an example of its shape.
 */
export function answerFileSection(outputFile: string, example: readonly string[]): string[] {
  return ["## Your answer", "", `Write JSON to ${outputFile}:`, "", "```json", ...example, "```"];
}
