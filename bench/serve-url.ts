import type { ChildProcess } from "node:child_process";

/** The URL and token a starting `gantry serve` prints on its standard output; an error after `timeoutMs`. */
export function serveUrl(server: ChildProcess, timeoutMs = 30_000): Promise<{ url: string; token: string }> {
  let out = "";
  return new Promise((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`gantry serve printed no URL in ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    server.stdout?.on("data", (chunk) => {
      out += chunk;
      const match = /(http:\/\/\S+\/)#token=(\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        done({ url: match[1] as string, token: match[2] as string });
      }
    });
  });
}
