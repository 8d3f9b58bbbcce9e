import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

describe("list_permissions", () => {
  it("lists the mode, each rule with its file, unreadable rules and the grants", async () => {
    ws = await createTempWorkspace({
      ".agents/settings.json": JSON.stringify({
        approvalMode: "auto-edit",
        permissions: { allow: ["Bash(npm test)"], deny: ["Bash(rm -rf"] },
      }),
      ".claude/settings.json": JSON.stringify({ permissions: { ask: ["Bash(git push:*)"] } }),
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    session.permissions.grants.add("WebSearch", "answer: always for this session");
    const result = await session.pipeline.run({ name: "list_permissions", args: {} });
    expect(result.error).toBe(false);
    expect(result.text).toBe(
      [
        "Approval mode: auto-edit (read-only tools and file edits run; commands and network tools ask); from approvalMode in .agents/settings.json.",
        "",
        "Rules (deny beats ask beats allow):",
        "  ask   Bash(git push:*)  [.claude/settings.json]",
        "  allow Bash(npm test)  [.agents/settings.json]",
        "",
        "Grants this session:",
        "  WebSearch  [answer: always for this session]",
        "",
        "Rules that could not be read:",
        '  Bash(rm -rf [.agents/settings.json]: "Bash(rm -rf" is not a rule: write Tool or Tool(specifier)',
      ].join("\n"),
    );
    expect(result.metadata).toMatchObject({
      approvalMode: "auto-edit",
      rules: [
        { kind: "ask", rule: "Bash(git push:*)", file: ".claude/settings.json" },
        { kind: "allow", rule: "Bash(npm test)", file: ".agents/settings.json" },
      ],
      grants: [{ rule: "WebSearch", source: "answer: always for this session" }],
    });
  });

  it("runs in plan mode (it is read-only)", async () => {
    ws = await createTempWorkspace({});
    session = createGantrySession({ workspace: ws.root, home: ws.home, approvalMode: "plan" });
    const result = await session.pipeline.run({ name: "list_permissions", args: {} });
    expect(result.text).toContain(
      "Approval mode: plan (read-only tools only; everything else is denied); from given by the caller",
    );
  });
});
