import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantryTool } from "../../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { replaceArgs } from "./edit-support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

describe("gantry tool replace_file_content", () => {
  it("edits a file from the command line in one call", async () => {
    ws = await createTempWorkspace({
      "src/app.ts": "export const port = 3000;\r\nexport const host = 'x';\r\n",
    });
    const { result } = await runGantryTool(
      "replace_file_content",
      replaceArgs("src/app.ts", "export const port = 3000;", "export const port = 8080;", 1, 1),
      { workspace: ws.root, env: { HOME: ws.home }, extra: ["--approval-mode", "auto-edit"] },
    );
    expect(result.error).toBe(false);
    expect(result.metadata.diff).toContain("+export const port = 8080;");
    expect(await readFile(path.join(ws.root, "src/app.ts"), "utf8")).toBe(
      "export const port = 8080;\r\nexport const host = 'x';\r\n",
    );
  });

  it("prints an error with a useful hint for a wrong TargetContent and leaves the file byte-identical", async () => {
    const original = "function start() {\n    listen(3000);\n}\n";
    ws = await createTempWorkspace({ "server.js": original });
    const { run, result } = await runGantryTool(
      "replace_file_content",
      replaceArgs("server.js", "\tlisten(3000);", "\tlisten(8080);", 2, 2),
      { workspace: ws.root, env: { HOME: ws.home }, extra: ["--approval-mode", "auto-edit"] },
    );
    expect(run.code).toBe(0);
    expect(result.error).toBe(true);
    expect(result.errorCode).toBe("no_match");
    expect(result.text).toContain("ignoring whitespace and indentation, is at lines 2–2");
    expect(result.text).toContain("2:     listen(3000);");
    expect(await readFile(path.join(ws.root, "server.js"))).toEqual(Buffer.from(original));
  });
});
