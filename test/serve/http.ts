import { request as httpRequest } from "node:http";

export interface Reply {
  status: number;
  body: Record<string, unknown> & { code?: string };
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One HTTP request with exactly the headers given (fetch would add and forbid some). */
export function call(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; host?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        headers: { host: options.host ?? `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => {
          let body = {};
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, body, text, headers: res.headers });
        });
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
