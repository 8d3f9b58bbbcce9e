import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ModelServer, Protocol } from "../../support/model-server.js";

/**
 * A real HTTP front for several scripted model servers: each request goes to the first route whose
 * marker appears in the request body. Parallel subagents each get their own script, so their turns
 * never race for one queue.
 */
export interface ModelRouter {
  baseUrl(protocol: Protocol): string;
  /** Requests that matched no route (asserted empty by tests). */
  unrouted: string[];
  close(): Promise<void>;
}

export async function startModelRouter(
  routes: { marker: string; server: ModelServer }[],
): Promise<ModelRouter> {
  const unrouted: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const text = body.toString("utf8");
      const route = routes.find((r) => text.includes(r.marker));
      if (!route) {
        unrouted.push(text.slice(0, 2000));
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "model router: no route matches this request" } }));
        return;
      }
      const target = new URL(route.server.origin);
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host, "content-length": String(body.length) },
        },
        (upstream) => {
          res.writeHead(upstream.statusCode ?? 500, upstream.headers);
          upstream.pipe(res);
        },
      );
      forward.on("error", (error) => {
        if (!res.headersSent) res.writeHead(502);
        res.end(String(error));
      });
      res.on("close", () => forward.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: (protocol) => (protocol === "gemini" ? `${origin}/v1beta` : `${origin}/v1`),
    unrouted,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
