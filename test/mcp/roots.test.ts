import { realpathSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import type { ToolResult } from "../../src/tools/contract.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { FILESYSTEM } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

it("offers the workspace as the MCP root: server-filesystem started without folders works in it, and only there", async () => {
  ws = await createTempWorkspace({ "notes.txt": "inside the workspace\n" });
  await writeFile(path.join(ws.home, "private.txt"), "outside\n");
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    // no folder arguments: the server asks the client for its roots
    mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM] } },
    approvalMode: "yolo",
  });
  expect(await session.mcp.startMain()).toEqual([]);
  const s = session;
  const call = (name: string, args: Record<string, unknown>) =>
    s.pipeline.run({ name: `mcp__fs__${name}`, args });
  // the server fetches the roots once it is initialised: wait for it to have them
  let allowed: ToolResult | undefined;
  for (let attempt = 0; attempt < 100; attempt++) {
    allowed = await call("list_allowed_directories", {});
    if (allowed.text.includes(realpathSync(ws.root))) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(allowed?.text).toContain(realpathSync(ws.root));
  const inside = await call("read_text_file", { path: path.join(ws.root, "notes.txt") });
  expect(inside).toMatchObject({ error: false });
  expect(inside.text).toContain("inside the workspace");
  const outside = await call("read_text_file", { path: path.join(ws.home, "private.txt") });
  expect(outside.error).toBe(true);
  expect(outside.text).not.toContain("outside\n");
}, 60_000);
