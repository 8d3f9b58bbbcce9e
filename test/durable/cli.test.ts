import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GANTRY_BIN, runGantry } from "../support/cli.js";
import { createTempWorkspace } from "../support/workspace.js";

const NOWHERE = "http://127.0.0.1:9";

describe("durable session commands", () => {
  it.each([
    [["worker"], /gantry worker needs --port N/],
    [["worker", "--port", "70000"], /--port N \(0-65535\)/],
    [["worker", "--port", "1", "--admin", "not a url"], /--admin must be a URL/],
    [["submit", "-p", "hi", "--repo", "/r"], /gantry submit needs --ingress URL/],
    [["submit", "--ingress", NOWHERE, "--repo", "/r"], /gantry submit needs -p/],
    [["submit", "--ingress", NOWHERE, "-p", "hi"], /needs --repo URL-or-path/],
    [
      ["submit", "--ingress", NOWHERE, "-p", "hi", "--repo", "/r", "--approval-mode", "wild"],
      /--approval-mode must be/,
    ],
    [["sessions", "--ingress", NOWHERE, "--follow"], /--follow needs a session id/],
    [["approve", "--ingress", NOWHERE, "gs-1"], /gantry approve needs/],
    [["cancel", "--ingress", NOWHERE], /gantry cancel needs/],
  ])("gantry %j is a usage error naming the fix", async (args, message) => {
    const ws = await createTempWorkspace();
    try {
      const run = await runGantry(args, { env: { HOME: ws.home } });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
    } finally {
      await ws.cleanup();
    }
  });

  it("says which ingress it cannot reach", async () => {
    const ws = await createTempWorkspace();
    try {
      const run = await runGantry(["submit", "--ingress", NOWHERE, "-p", "hi", "--repo", "."], {
        env: { HOME: ws.home },
        cwd: ws.root,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`cannot reach Restate's ingress at ${NOWHERE}`);
    } finally {
      await ws.cleanup();
    }
  });

  it("loads Restate's SDK only in the worker's chunk, never at start-up", () => {
    const dir = path.dirname(GANTRY_BIN);
    const withSdk = readdirSync(dir).filter((file) =>
      readFileSync(path.join(dir, file), "utf8").includes("@restatedev/"),
    );
    expect(withSdk).toHaveLength(1);
    expect(withSdk[0]).toMatch(/^worker-/);
  });
});
