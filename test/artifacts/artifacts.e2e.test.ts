import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { TINY_PNG } from "../support/provider-json.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

/** CLI runs spawn node and load the AI SDK: slow on a busy machine. */
const E2E = { timeout: 180_000 };

let ws: TempWorkspace | undefined;
let model: ModelServer | undefined;
afterEach(async () => {
  await model?.close();
  await ws?.cleanup();
  ws = model = undefined;
});

function gantry(args: string[], input?: string) {
  if (!ws || !model) throw new Error("start the workspace and the model first");
  return runGantry([...args, "--workspace", ws.root], {
    env: { HOME: ws.home, GEMINI_API_KEY: "k", OPENAI_API_KEY: "k" },
    timeoutMs: 60_000,
    ...(input !== undefined ? { input } : {}),
  });
}

describe("artifacts end to end", () => {
  it(
    "generate_image through gantry -p: saved, seen by the model, listed by gantry artifacts",
    E2E,
    async () => {
      ws = await createTempWorkspace();
      model = await startModelServer([
        {
          toolCalls: [
            {
              name: "generate_image",
              args: { Prompt: "a tiny red square", ImageName: "square", AspectRatio: "1:1" },
            },
          ],
        },
        {
          image: { data: TINY_PNG },
          expect: (request) =>
            expect(request.path).toBe("/v1beta/models/gemini-2.5-flash-image:generateContent"),
        },
        {
          text: "Here is your square.",
          // the model is shown the image it made, not only told the path
          expect: (request) => {
            expect(request.text).toContain(Buffer.from(TINY_PNG).toString("base64"));
            expect(request.text).toContain(".agents/artifacts/square.png");
          },
        },
      ]);
      await mkdir(path.join(ws.home, ".agents"), { recursive: true });
      await writeFile(
        path.join(ws.home, ".agents/settings.json"),
        JSON.stringify({
          images: { model: "google:gemini-2.5-flash-image", baseUrl: model.baseUrl("gemini") },
        }),
      );
      const run = await gantry([
        "-p",
        "draw a square",
        "--model",
        "google:gemini-2.5-flash",
        "--base-url",
        model.baseUrl("gemini"),
        "--approval-mode",
        "yolo",
      ]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      model.assertDone();
      expect(new Uint8Array(await readFile(path.join(ws.root, ".agents/artifacts/square.png")))).toEqual(
        TINY_PNG,
      );
      const listed = await gantry(["artifacts"]);
      expect(listed.stdout).toMatch(
        /^session \d{8}-\d{6}-[0-9a-f]{6}\n {2}image {2}\.agents\/artifacts\/square\.png {2}a tiny red square\n$/,
      );
    },
  );

  it(
    "a plan written with ArtifactMetadata is listed, and a resumed session knows it (prompt and /artifacts)",
    E2E,
    async () => {
      ws = await createTempWorkspace();
      model = await startModelServer([
        {
          toolCalls: [
            {
              name: "write_to_file",
              args: {
                TargetFile: "plan.md",
                Overwrite: false,
                CodeContent: "# Plan\n1. fix the login\n",
                Description: "the plan",
                ArtifactMetadata: { ArtifactType: "plan", Summary: "Steps to fix the login bug." },
              },
            },
          ],
        },
        { text: "The plan is written." },
        {
          text: "I see the plan.",
          expect: (request) => {
            expect(request.text).toContain("# Artifacts of this session");
            expect(request.text).toContain("- .agents/artifacts/plan.md (plan): Steps to fix the login bug.");
          },
        },
      ]);
      const chat = ["--model", "openai:test-model", "--base-url", model.baseUrl("openai")];
      const first = await gantry(["-p", "plan the fix", ...chat, "--approval-mode", "auto-edit"]);
      expect(first.code).toBe(0);
      expect(await readFile(path.join(ws.root, ".agents/artifacts/plan.md"), "utf8")).toBe(
        "# Plan\n1. fix the login\n",
      );
      const listed = await gantry(["artifacts", "--continue"]);
      expect(listed.stdout).toContain("  plan  .agents/artifacts/plan.md  Steps to fix the login bug.");
      const resumed = await gantry(["-p", "go on", ...chat, "--continue"]);
      expect(resumed.code).toBe(0);
      model.assertDone();
      // the interactive UI lists them too (lines on stdin: the plain-line mode)
      const interactive = await gantry([...chat, "--continue"], "/artifacts\n");
      expect(interactive.stdout).toContain("plan  .agents/artifacts/plan.md  Steps to fix the login bug.");
    },
  );

  it(
    "after /resume in the interactive UI, /artifacts and the system prompt follow the resumed session",
    E2E,
    async () => {
      ws = await createTempWorkspace();
      model = await startModelServer([
        {
          toolCalls: [
            {
              name: "write_to_file",
              args: {
                TargetFile: "walkthrough.md",
                Overwrite: false,
                CodeContent: "# Walkthrough\n",
                Description: "walkthrough",
                ArtifactMetadata: { ArtifactType: "walkthrough", Summary: "What changed, step by step." },
              },
            },
          ],
        },
        { text: "Written." },
        { text: "A second session, nothing written." },
        {
          text: "Continuing the first.",
          expect: (request) =>
            expect(request.text).toContain(
              "- .agents/artifacts/walkthrough.md (walkthrough): What changed, step by step.",
            ),
        },
      ]);
      const chat = ["--model", "openai:test-model", "--base-url", model.baseUrl("openai")];
      const first = await gantry([
        "-p",
        "write a walkthrough",
        ...chat,
        "--approval-mode",
        "auto-edit",
        "--output-format",
        "json",
      ]);
      const firstId = JSON.parse(first.stdout).session_id as string;
      expect((await gantry(["-p", "something else", ...chat])).code).toBe(0);
      const interactive = await gantry(
        [...chat, "--continue"],
        `/artifacts\n/resume ${firstId}\n/artifacts\ngo on\n`,
      );
      expect(interactive.code).toBe(0);
      const [before, after] = interactive.stdout.split(".agents/artifacts/walkthrough.md");
      expect(before).toContain("no artifacts in this session yet");
      expect(after).toBeDefined();
      model.assertDone();
    },
  );

  it("says so when a workspace has no artifacts yet", E2E, async () => {
    ws = await createTempWorkspace();
    model = await startModelServer([]);
    const listed = await gantry(["artifacts"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe("No artifacts in this workspace's sessions yet.\n");
  });
});
