// node:test reporter for mutation runs (scripts/mutation-tests.mjs): a dot per passing test, and the
// process ends at the first failing one. Stryker's command runner reads only the exit code, and most
// mutants fail some test early: the tests after it would only cost time.
export default async function* bailOnFirstFailure(source) {
  for await (const event of source) {
    if (event.type === "test:fail" && !event.data.todo && !event.data.skip) {
      process.stderr.write(`\nfailed: ${event.data.name}\n`);
      process.exit(1);
    }
    if (event.type === "test:pass") yield ".";
  }
  yield "\n";
}
