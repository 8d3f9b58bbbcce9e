import { readdir } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createConversation } from "../../src/agent/conversation.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { runAgentLoop } from "../../src/agent/loop.js";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { createModelClient } from "../../src/models/client.js";
import { createLanguageModel } from "../../src/models/provider.js";
import { MAX_TOOL_ARGUMENT_BYTES } from "../../src/tools/validation.js";
import { type ModelServer, type Protocol, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

const PROVIDER = { openai: "openai", anthropic: "anthropic", gemini: "google" } as const;

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  await server?.close();
  await ws?.cleanup();
  server = session = ws = undefined;
});

async function openSession() {
  ws = await createTempWorkspace({});
  session = createGantrySession({ workspace: ws.root, home: ws.home, approvalMode: "yolo" });
  return session;
}

function modelFor(protocol: Protocol, origin: ModelServer) {
  const made = createLanguageModel({
    model: `${PROVIDER[protocol]}:test`,
    baseUrl: origin.baseUrl(protocol),
    env: { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", GEMINI_API_KEY: "k" },
  });
  if (!made.ok) throw new Error(made.message);
  return createModelClient(made.value.spec, made.value.model, 100_000);
}

describe.each(["openai", "anthropic", "gemini"] as const)(
  "an endless tool-call argument over %s",
  (protocol) => {
    it("is cut soon after the argument limit, and the model is told so and goes on", async () => {
      const { pipeline } = await openSession();
      let secondRequest = "";
      server = await startModelServer([
        { text: "Writing it.", endlessToolCall: { name: "write_to_file", field: "CodeContent" } },
        {
          text: "Understood, I will write it in parts.",
          expect: (request) => void (secondRequest = request.text),
        },
      ]);
      const events: AgentEvent[] = [];
      const result = await runAgentLoop(createConversation(), modelFor(protocol, server), pipeline, {
        system: "test",
        input: [{ role: "user", text: "write a huge file" }],
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        onEvent: (event) => events.push(event),
      });
      server.assertDone();
      expect(result.reason).toBe("completed");
      expect(result.text).toBe("Understood, I will write it in parts.");
      // the model's stream stopped a little past the limit instead of growing without end
      expect(server.stats.endlessBytes).toBeGreaterThan(MAX_TOOL_ARGUMENT_BYTES / 2);
      expect(server.stats.endlessBytes).toBeLessThan(4 * MAX_TOOL_ARGUMENT_BYTES);
      expect(secondRequest).toContain("limit of 10485760 bytes");
      expect(secondRequest.length).toBeLessThan(100_000);
      const results = events.flatMap((event) => (event.type === "tool_result" ? [event.result] : []));
      if (protocol === "gemini") {
        // Gemini sends a call whole in one line: the line is cut, and the model is told in a note
        expect(results).toEqual([]);
        expect(secondRequest).toContain("[gantry] Your last answer was lost");
      } else {
        // the streaming protocols: the call is cut and answered with the error, never run
        expect(results).toMatchObject([{ error: true, errorCode: "too_large" }]);
      }
      expect(await readdir(ws?.root as string)).toEqual([]);
    });
  },
);

describe("the pipeline's argument limit", () => {
  it("refuses a call whose arguments are over 10 MB before anything runs", async () => {
    const { pipeline } = await openSession();
    const huge = "x".repeat(MAX_TOOL_ARGUMENT_BYTES + 1);
    for (const args of [
      { TargetFile: "big.txt", Overwrite: false, CodeContent: huge, Description: "big" },
      JSON.stringify({ TargetFile: "big.txt", Overwrite: false, CodeContent: huge, Description: "big" }),
    ]) {
      const result = await pipeline.run({ name: "write_to_file", args });
      expect(result.errorCode).toBe("too_large");
      expect(result.text).toContain("limit of 10485760 bytes");
    }
    expect(await readdir(ws?.root as string)).toEqual([]);
  });

  it("lets a call just under the limit through", async () => {
    const { pipeline } = await openSession();
    const content = "y".repeat(MAX_TOOL_ARGUMENT_BYTES - 200);
    const result = await pipeline.run({
      name: "write_to_file",
      args: { TargetFile: "big.txt", Overwrite: false, CodeContent: content, Description: "big" },
    });
    expect(result.error).toBe(false);
  });
});
