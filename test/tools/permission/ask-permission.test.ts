import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import { createCallbackAsker, type PermissionRequest } from "../../../src/policy/asker.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

function answering(choice: "once" | "session" | "always" | "deny") {
  const requests: PermissionRequest[] = [];
  const asker = createCallbackAsker({
    onPermission: (request) => {
      requests.push(request);
      return { choice };
    },
  });
  return { asker, requests };
}

const editDocs = {
  name: "write_to_file",
  args: { TargetFile: "docs/guide.md", Overwrite: false, CodeContent: "# Guide\n", Description: "new guide" },
};

describe("ask_permission", () => {
  it("asks the user and records (Action, Target) as a grant that later calls use", async () => {
    ws = await createTempWorkspace({});
    const { asker, requests } = answering("once");
    session = createGantrySession({ workspace: ws.root, home: ws.home, approvalMode: "default", asker });
    const granted = await session.pipeline.run({
      name: "ask_permission",
      args: { Action: "Edit", Target: "docs/**", Reason: "write the user guide" },
    });
    expect(granted).toMatchObject({
      error: false,
      metadata: { rule: "Edit(docs/**)", granted: true, saved: false },
    });
    expect(requests[0]).toMatchObject({
      tool: "ask_permission",
      subjects: ["Edit(docs/**)"],
      decision: { reason: "write the user guide" },
    });

    expect((await session.pipeline.run(editDocs)).error).toBe(false);
    expect(requests).toHaveLength(1);
    const listed = await session.pipeline.run({ name: "list_permissions", args: {} });
    expect(listed.metadata.grants).toMatchObject([
      { rule: "Edit(docs/**)", source: "ask_permission: write the user guide" },
    ]);
    expect(listed.text).toContain("Edit(docs/**)  [ask_permission: write the user guide]");
  });

  it("saves the grant for this folder in the user's home when the user says always", async () => {
    ws = await createTempWorkspace({});
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      approvalMode: "default",
      asker: answering("always").asker,
    });
    const granted = await session.pipeline.run({
      name: "ask_permission",
      args: { Action: "Bash", Target: "npm run test:*", Reason: "run tests" },
    });
    expect(granted.text).toContain("(and saved to ~/.agents/folder-permissions.json)");
    const saved = JSON.parse(await readFile(path.join(ws.home, ".agents/folder-permissions.json"), "utf8"));
    expect(saved.folders[ws.root]).toEqual({ permissions: { allow: ["Bash(npm run test:*)"] } });
  });

  it("reports a refusal, and headless says how the user could allow it", async () => {
    ws = await createTempWorkspace({});
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      approvalMode: "default",
      asker: answering("deny").asker,
    });
    const refused = await session.pipeline.run({
      name: "ask_permission",
      args: { Action: "Bash", Target: "rm -rf build", Reason: "clean" },
    });
    expect(refused).toMatchObject({
      error: true,
      errorCode: "denied",
      text: "Permission for Bash(rm -rf build) was not granted: the user said no.",
    });
    await session.dispose();
    session = createGantrySession({ workspace: ws.root, home: ws.home, approvalMode: "default" });
    const headless = await session.pipeline.run({
      name: "ask_permission",
      args: { Action: "Bash", Target: "make", Reason: "build" },
    });
    expect(headless.text).toBe(
      'Permission for Bash(make) was not granted: nobody can answer here (not an interactive terminal). The user can add "Bash(make)" to permissions.allow in ~/.agents/settings.json, or run with --approval-mode yolo.',
    );
    expect(session.permissions.grants.list()).toEqual([]);
  });

  it("rejects an Action that is neither a group nor a tool", async () => {
    ws = await createTempWorkspace({});
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      approvalMode: "default",
      asker: answering("once").asker,
    });
    const result = await session.pipeline.run({
      name: "ask_permission",
      args: { Action: "modify", Target: "/etc/hosts", Reason: "x" },
    });
    expect(result).toMatchObject({ errorCode: "invalid_arguments" });
    expect(result.text).toContain(
      'Action "modify" is neither a permission group (Bash, Command, Edit, Write',
    );
  });
});
