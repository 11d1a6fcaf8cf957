/** One word for /bin/sh: single-quoted, a `'` inside written as `'\''`, so nothing in it is expanded. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
