import { chmod, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hookHarness } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

const call = { name: "run_command", args: { CommandLine: "make" } };

/**
 * A BeforeTool hook that marks its own start, then waits (up to ~4 s) for the other one's mark: run one
 * after another, the first never sees the second and gives up; run together, both see each other.
 */
const rendezvous = (me: string, other: string) => `#!/usr/bin/env bash
cat > /dev/null
touch "$GEMINI_PROJECT_DIR/${me}.started"
for _ in $(seq 80); do [ -f "$GEMINI_PROJECT_DIR/${other}.started" ] && break; sleep 0.05; done
if [ -f "$GEMINI_PROJECT_DIR/${other}.started" ]; then
  echo '{"decision": "deny", "reason": "${me} saw ${other}"}'
else
  echo '{"decision": "allow"}'
fi
`;

async function workspaceWith(rules: unknown[], scripts: Record<string, string>) {
  const files: Record<string, string> = {
    ".gemini/settings.json": JSON.stringify({ hooks: { BeforeTool: rules } }),
  };
  for (const [name, body] of Object.entries(scripts)) files[`.gemini/hooks/${name}`] = body;
  ws = await createTempWorkspace(files);
  for (const name of Object.keys(scripts)) await chmod(path.join(ws.root, ".gemini/hooks", name), 0o755);
}

const hook = (name: string) => ({
  name,
  type: "command",
  command: `$GEMINI_PROJECT_DIR/.gemini/hooks/${name}.sh`,
  timeout: 10_000,
});

describe("Gemini CLI's sequential", () => {
  it("unset (Gemini's default): a rule's hooks run in parallel, and any deny blocks", async () => {
    await workspaceWith([{ matcher: "run_shell_command", hooks: [hook("a"), hook("b")] }], {
      "a.sh": rendezvous("a", "b"),
      "b.sh": rendezvous("b", "a"),
    });
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(call);
    expect(result).toMatchObject({ errorCode: "denied" });
    // both saw the other start: they ran at the same time
    expect(result.text).toContain("a saw b");
    expect(commands).toEqual([]);
  });

  it("parallel across rules and files: Gemini plans every matching hook of the event together", async () => {
    await workspaceWith(
      [
        { matcher: "run_shell_command", hooks: [hook("a")] },
        { matcher: ".*", hooks: [hook("b")] },
      ],
      { "a.sh": rendezvous("a", "b"), "b.sh": rendezvous("b", "a") },
    );
    const result = await hookHarness(ws).pipeline.run(call);
    expect(result.text).toContain("a saw b");
  });

  it("true on any rule: every hook of the event runs in order, each seeing the input the last one rewrote", async () => {
    const rewrite = `#!/usr/bin/env bash
cat > /dev/null
echo '{"decision": "allow", "hookSpecificOutput": {"tool_input": {"command": "make safe"}}}'
`;
    const record = `#!/usr/bin/env bash
python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"]["command"])' > "$GEMINI_PROJECT_DIR/seen.txt"
`;
    await workspaceWith(
      [
        { matcher: "run_shell_command", sequential: true, hooks: [hook("a"), hook("rewrite")] },
        { matcher: "run_shell_command", hooks: [hook("b"), hook("record")] },
      ],
      {
        "a.sh": rendezvous("a", "b"),
        "b.sh": rendezvous("b", "a"),
        "rewrite.sh": rewrite,
        "record.sh": record,
      },
    );
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(call);
    // a ran alone (it gave up waiting and allowed); b started after a, saw it, and denied
    expect(result).toMatchObject({ errorCode: "denied" });
    expect(result.text).toContain("b saw a");
    expect(result.text).not.toContain("a saw b");
    expect((await readFile(path.join(ws.root, "seen.txt"), "utf8")).trim()).toBe("make safe");
    expect(commands).toEqual([]);
  });

  it("in parallel every hook sees the call as the model made it; the last rewrite is the one applied", async () => {
    const rewrite = (to: string) => `#!/usr/bin/env bash
python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"]["command"])' >> "$GEMINI_PROJECT_DIR/seen.txt"
echo '{"hookSpecificOutput": {"tool_input": {"command": "${to}"}}}'
`;
    await workspaceWith([{ matcher: "run_shell_command", hooks: [hook("one"), hook("two")] }], {
      "one.sh": rewrite("make one"),
      "two.sh": rewrite("make two"),
    });
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(call);
    expect(result.errorCode).toBeUndefined();
    expect(commands).toEqual(["make two"]);
    const seen = (await readFile(path.join(ws.root, "seen.txt"), "utf8")).trim().split("\n");
    expect(seen).toEqual(["make", "make"]);
  });
});
