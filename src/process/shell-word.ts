/** One word a helper shell's `eval "set -- …"` turns back into exactly `word` (a newline as `$NL`). */
export function quoteWord(word: string): string {
  return `'${word.replaceAll("'", "'\\''").replaceAll("\n", `'"$NL"'`)}'`;
}
