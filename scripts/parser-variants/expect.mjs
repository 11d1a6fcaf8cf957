// The verdict a variant's project was written to produce: the runner's exit code, what gantry must judge,
// and the counts. `status` (the parser's own reading) is the judged status unless said otherwise.
export function expect(
  exitCode,
  judged,
  runner,
  [passed, failed, skipped],
  failureNames = [],
  status = judged,
) {
  return {
    exitCode,
    judged,
    runner,
    status,
    executed: passed + failed,
    passed,
    failed,
    skipped,
    failureNames,
  };
}
