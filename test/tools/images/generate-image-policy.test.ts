import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Settings } from "../../../src/config/settings.js";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import type { ApprovalMode } from "../../../src/policy/modes.js";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import { TINY_PNG } from "../../support/provider-json.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
let server: ModelServer | undefined;

afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  await server?.close();
  session = undefined;
  ws = undefined;
  server = undefined;
});

async function open(
  approvalMode: ApprovalMode,
  permissions: Settings["permissions"] = {},
  files: Record<string, string | Uint8Array> = {},
) {
  server = await startModelServer([]);
  ws = await createTempWorkspace(files);
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    approvalMode,
    settings: { images: { model: "openai:gpt-image-1", baseUrl: server.baseUrl("openai") }, permissions },
    variables: { OPENAI_API_KEY: "k" },
  });
  const s = session;
  return (args: Record<string, unknown>) => s.pipeline.run({ name: "generate_image", args });
}

describe("generate_image under the permission policy (network + write)", () => {
  it("asks in default and in auto-edit (it calls out to a provider); headless that is a denial", async () => {
    for (const mode of ["default", "auto-edit"] as const) {
      const generate = await open(mode);
      const result = await generate({ Prompt: "x", ImageName: "x" });
      expect(result.errorCode, mode).toBe("denied");
      expect(result.text).toContain("no allow rule matches");
      expect(server?.requests).toHaveLength(0);
      await session?.dispose();
      await ws?.cleanup();
      await server?.close();
    }
    ws = undefined;
    session = undefined;
    server = undefined;
  });

  it("is denied in plan mode", async () => {
    const generate = await open("plan");
    const result = await generate({ Prompt: "x", ImageName: "x" });
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("plan mode runs read-only tools only");
  });

  it("an Edit deny rule on the artifacts folder stops it even in yolo: the rules judge the file it saves", async () => {
    const generate = await open("yolo", { deny: ["Edit(.agents/artifacts/**)"] });
    const result = await generate({ Prompt: "x", ImageName: "mockup" });
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("rule deny Edit(.agents/artifacts/**)");
    expect(result.text).toContain(".agents/artifacts/mockup");
    expect(server?.requests).toHaveLength(0);
  });

  it("a Read deny rule binds the input images", async () => {
    const generate = await open("yolo", { deny: ["Read(./private/**)"] }, { "private/face.png": TINY_PNG });
    const result = await generate({ Prompt: "x", ImageName: "x", ImagePaths: ["private/face.png"] });
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("rule deny Read(./private/**)");
    expect(existsSync(path.join(ws?.root as string, ".agents"))).toBe(false);
  });

  it("runs with an allow rule naming the tool in auto-edit", async () => {
    const generate = await open("auto-edit", { allow: ["generate_image"] });
    server?.script({ image: { data: TINY_PNG } });
    const result = await generate({ Prompt: "x", ImageName: "ok" });
    expect(result.error).toBe(false);
    server?.assertDone();
  });
});
