import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startModelServer } from "../support/model-server.js";
import { createTempWorkspace } from "../support/workspace.js";
import { E2E, gantryOn, serverAndWorkspace } from "./e2e-cli.js";

// Hooks that read `transcript_path` as their harness writes it: each script below is written the way
// such hooks are for that harness (a Stop hook that finds the last answer and the tools the agent used),
// and runs unchanged against Gantry's view of the session in that harness's format.

const state = serverAndWorkspace();

/** Claude Code: JSON lines of `type` user/assistant with the Anthropic `message`; results as `tool_result` blocks. */
const CLAUDE_READER = `
import json, sys
data = json.load(sys.stdin)
entries = [json.loads(line) for line in open(data["transcript_path"]) if line.strip()]
answer, tools, results, parents = None, [], [], set()
for e in entries:
    parents.add(e.get("parentUuid"))
    content = e["message"]["content"]
    if e["type"] == "assistant":
        for block in content:
            if block["type"] == "text": answer = block["text"]
            if block["type"] == "tool_use": tools.append([block["name"], block["input"]])
    elif e["type"] == "user" and isinstance(content, list):
        results += [block["content"] for block in content if block.get("type") == "tool_result"]
chained = all(e["parentUuid"] == entries[i - 1]["uuid"] for i, e in enumerate(entries) if i > 0)
out = {"answer": answer, "tools": tools, "results": results, "prompt": entries[0]["message"]["content"], "chained": chained, "session": entries[-1]["sessionId"] == data["session_id"]}
json.dump(out, open(data["cwd"] + "/seen.json", "w"))
`;

/** Gemini CLI: a metadata line, then message records; the last record of an id is the one that counts. */
const GEMINI_READER = `
const fs = require("node:fs");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const [meta, ...records] = fs.readFileSync(input.transcript_path, "utf8").trim().split("\\n").map(JSON.parse);
const byId = new Map();
for (const record of records) if (record.id) byId.set(record.id, record);
const messages = [...byId.values()];
const model = messages.filter((m) => m.type === "gemini");
const calls = model.flatMap((m) => m.toolCalls ?? []);
fs.writeFileSync(input.cwd + "/seen.json", JSON.stringify({
  session: meta.sessionId === input.session_id,
  prompt: messages[0].content[0].text,
  answer: model.at(-1).content,
  tools: calls.map((c) => [c.name, c.args, c.status]),
  results: calls.map((c) => c.result[0].functionResponse.response.output),
}));
console.log("{}");
`;

/** Qwen Code: chat records with Gemini-style content; each tool result a record of its own. */
const QWEN_READER = `
import json, sys
data = json.load(sys.stdin)
records = [json.loads(line) for line in open(data["transcript_path"]) if line.strip()]
answer, tools, results = None, [], []
for r in records:
    parts = r["message"]["parts"]
    if r["type"] == "assistant":
        for p in parts:
            if "functionCall" in p: tools.append([p["functionCall"]["name"], p["functionCall"]["args"]])
            elif "text" in p and not p.get("thought"): answer = p["text"]
    if r["type"] == "tool_result":
        results.append(parts[0]["functionResponse"]["response"]["output"])
out = {"answer": answer, "tools": tools, "results": results, "prompt": records[0]["message"]["parts"][0]["text"], "session": records[-1]["sessionId"] == data["session_id"]}
json.dump(out, open(data["cwd"] + "/seen.json", "w"))
`;

const HARNESSES = [
  {
    name: "Claude Code",
    settings: ".claude/settings.json",
    event: "Stop",
    script: "reader.py",
    reader: CLAUDE_READER,
    run: "python3",
    read: (file: string) => ["Read", { file_path: file }],
  },
  {
    name: "Gemini CLI",
    settings: ".gemini/settings.json",
    event: "AfterAgent",
    script: "reader.cjs",
    reader: GEMINI_READER,
    run: "node",
    read: (file: string) => ["read_file", { file_path: file }, "success"],
  },
  {
    name: "Qwen Code",
    settings: ".qwen/settings.json",
    event: "Stop",
    script: "reader.py",
    reader: QWEN_READER,
    run: "python3",
    read: (file: string) => ["read_file", { file_path: file }],
  },
] as const;

describe("transcript_path in each harness's own format", () => {
  for (const harness of HARNESSES) {
    it(
      `${harness.name}: a Stop hook reads the prompt, the tools used, their results and the last answer`,
      E2E,
      async () => {
        const hook = { type: "command", command: `${harness.run} "$PWD/${harness.script}"` };
        state.ws = await createTempWorkspace({
          "notes.txt": "the notes say hello\n",
          [harness.script]: harness.reader,
          [harness.settings]: JSON.stringify({ hooks: { [harness.event]: [{ hooks: [hook] }] } }),
        });
        const notes = path.join(state.ws.root, "notes.txt");
        state.server = await startModelServer([
          { toolCalls: [{ name: "view_file", args: { AbsolutePath: notes } }] },
          { text: "The notes say hello." },
        ]);
        const run = await gantryOn(state.server, state.ws, ["-p", "What do the notes say?"]);
        expect(run.code, run.stderr).toBe(0);
        const seen = JSON.parse(readFileSync(path.join(state.ws.root, "seen.json"), "utf8"));
        expect(seen).toMatchObject({
          session: true,
          prompt: "What do the notes say?",
          answer: "The notes say hello.",
          tools: [harness.read(await realPathOf(notes))],
        });
        expect(seen.results).toEqual([expect.stringContaining("the notes say hello")]);
        if (harness.name === "Claude Code") expect(seen.chained).toBe(true);
      },
    );
  }
});

async function realPathOf(file: string): Promise<string> {
  const { realpath } = await import("node:fs/promises");
  return realpath(file);
}
