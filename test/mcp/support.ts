import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { REPO_ROOT } from "../support/cli.js";

/** The reference servers from the npm registry (dev dependencies), run under the tests' own Node. */
export const EVERYTHING = path.join(
  REPO_ROOT,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
export const FILESYSTEM = path.join(
  REPO_ROOT,
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);

/** test/mcp/edge-server.mjs: tools server-everything lacks (a withdrawn tool, audio, a broken schema, a hang at exit). */
export const edgeStdio = (mode?: "bad-schema" | "hang-on-exit") => ({
  command: process.execPath,
  args: [path.join(REPO_ROOT, "test/mcp/edge-server.mjs"), ...(mode ? [mode] : [])],
});

export const everythingStdio = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [EVERYTHING, "stdio"],
  ...extra,
});

/** A free port on 127.0.0.1, for a server started by the test. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** server-everything over HTTP (`streamableHttp` at /mcp, or `sse` at /sse), up once it says it listens. */
export async function startEverythingHttp(
  mode: "streamableHttp" | "sse",
): Promise<{ url: string; process: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => reject(new Error(`server-everything ${mode} did not start: ${seen}`)),
      20_000,
    );
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      seen += chunk;
      if (/listening on port|running on port/i.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`server-everything ${mode} exited ${code}: ${seen}`)));
  });
  const url = `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}`;
  return {
    url,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
