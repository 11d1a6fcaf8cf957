// Loaded into each test file's process (with --import, which node's run() passes on to the files it
// starts) when TESTS_FILE_CPU is set: at exit the file's CPU seconds, user+sys of itself and of every
// child it waited for (with theirs, from /proc/self/stat), and when the process started and ended (ms
// since the epoch) are appended as a line to TESTS_FILE_CPU.parts. Children left running at exit are
// not counted.
import { appendFileSync, readFileSync } from "node:fs";

const file = process.argv[1] ?? "";
const path = process.env.TESTS_FILE_CPU;
if (path && /\.test\.[jt]s$/.test(file))
  process.on("exit", () => {
    // Fields 14-17 of /proc/PID/stat (utime, stime, cutime, cstime), after the command's closing paren.
    const ticks = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ").slice(11, 15);
    const seconds = ticks.reduce((sum, t) => sum + Number(t), 0) / 100;
    const line = [file, seconds, Math.round(performance.timeOrigin), Date.now()];
    appendFileSync(`${path}.parts`, `${JSON.stringify(line)}\n`);
  });
