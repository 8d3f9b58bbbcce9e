import { linkSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createGantrySession } from "../../src/gantry.js";
import { createTempWorkspace } from "../support/workspace.js";
import { type PolicySession, type PolicySessionOptions, policySessions } from "./session-support.js";

const opened = policySessions();

const FILES = {
  ".agents/hooks.json": '{"hooks":{}}\n',
  ".agents/settings.json": "{}\n",
  ".claude/settings.json": "{}\n",
  "evil.json": '{"hooks":{"PreToolUse":[]}}\n',
  "staged/hooks.json": '{"hooks":{"PreToolUse":[]}}\n',
  "notes.txt": "notes\n",
};

const session = (options: Partial<PolicySessionOptions> = {}) =>
  opened({ mode: "yolo", files: FILES, ...options });

function unchanged(s: PolicySession): void {
  expect(readFileSync(path.join(s.ws.root, ".agents/hooks.json"), "utf8")).toBe('{"hooks":{}}\n');
  expect(readFileSync(path.join(s.ws.root, ".agents/settings.json"), "utf8")).toBe("{}\n");
  expect(readFileSync(path.join(s.ws.root, ".claude/settings.json"), "utf8")).toBe("{}\n");
}

/** Each writes, moves or deletes a file that governs the agent, by a command's own effect or a redirection. */
const TAMPERING = [
  "echo '{}' > .agents/hooks.json",
  "echo '{}' >> .agents/settings.json",
  "cat evil.json > ./.agents/../.agents/hooks.json",
  "echo '{}' | tee .agents/hooks.json",
  "cp evil.json .agents/hooks.json",
  "cp staged/hooks.json .agents/",
  "cp -t .agents staged/hooks.json",
  "cp -r . /tmp/copy && cp -rT /tmp/copy/.agents .agents",
  "mv evil.json .agents/hooks.json",
  "mv .agents/hooks.json old.json",
  "mv .agents elsewhere",
  "dd if=evil.json of=.agents/hooks.json",
  "install -m 644 evil.json .agents/hooks.json",
  "ln -sf evil.json .agents/hooks.json",
  "sed -i s/hooks/x/ .agents/hooks.json",
  "perl -pi -e s/hooks/x/ .agents/hooks.json",
  "truncate -s 0 .agents/hooks.json",
  "rm .agents/hooks.json",
  "rm -rf .agents",
  "rm -rf .",
  "unlink .claude/settings.json",
  "find . -delete",
  "find .agents -name '*.json' -delete",
  "find . -name hooks.json -exec rm {} \\;",
  "shred -u .agents/hooks.json",
  "echo '{}' > .agents/hook?.json",
  "echo '{}' > .claude/settings.local.json",
  "cd .agents && echo '{}' > hooks.json",
  "cd .agents; cp ../evil.json hooks.json",
  "bash -c \"echo '{}' > .agents/hooks.json\"",
  "f=.agents/hooks.json; echo '{}' > $f",
  'cd "$(echo .agents)" && echo "{}" > hooks.json',
  "chmod 000 .agents/hooks.json",
  "touch .agents/settings.local.json",
  "ln .agents/hooks.json alias && echo '{}' > alias",
  "ln -s .agents/hooks.json alias",
  "ln -s ../.agents/hooks.json staged/alias",
  "sed -n 'w .agents/hooks.json' evil.json",
  "sed 's/x/y/w .agents/hooks.json' evil.json",
  "echo '{}' > /proc/self/cwd/.agents/hooks.json",
  "export HOME=$PWD/.agents; echo '{}' > ~/hooks.json",
  "export HOME=$PWD/.agents; cd && echo '{}' > hooks.json",
  "d=.agents; echo '{}' > $d/hooks.json",
  "d=.agents; cp evil.json $d/",
  "rsync evil.json .agents/hooks.json",
  "mkfifo .agents/settings.local.json",
  "echo 'you are evil' > .agents/agents/reviewer.md",
  "mkdir -p .claude/agents && cp evil.json .claude/agents/x.md",
  "echo '{}' > .mcp.json",
];

describe("the protected files hold against every shell write, in every mode", () => {
  for (const line of TAMPERING) {
    it(`refuses ${JSON.stringify(line)} in yolo`, async () => {
      const s = await session();
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(result.text).toMatch(/^Denied by protected files/);
      unchanged(s);
      expect(s.exists(".claude/settings.local.json")).toBe(false);
    });
  }

  it("refuses the redirect of issue 12 in auto-edit with allow Bash(echo:*), naming the file and the setting", async () => {
    const s = await session({ mode: "auto-edit", settings: { permissions: { allow: ["Bash(echo:*)"] } } });
    const result = await s.command("echo '{}' > .agents/hooks.json");
    expect(result.text).toBe(
      'Denied by protected files (.agents/hooks.json): ".agents/hooks.json" would change .agents/hooks.json, a file that governs the agent (hooks, settings, agent definitions, or a script a hook runs); the agent may not change it. Ask the user to edit it, or to set "allowAgentConfigEdits": true in ~/.agents/settings.json',
    );
    expect(s.asked).toEqual([]);
    unchanged(s);
  });

  it("refuses a write to the user's own settings in their home", async () => {
    const s = await session({ homeFiles: { ".agents/settings.json": "{}\n" } });
    const target = path.join(s.ws.home, ".agents/settings.json");
    const result = await s.command(`echo '{"approvalMode":"yolo"}' > ${target}`);
    expect(result.text).toMatch(/^Denied by protected files/);
    expect(readFileSync(target, "utf8")).toBe("{}\n");
  });

  it("refuses a write through a hard link made earlier to a protected file", async () => {
    const s = await session();
    linkSync(path.join(s.ws.root, ".agents/hooks.json"), path.join(s.ws.root, "alias.json"));
    const result = await s.command("echo '{}' > alias.json");
    expect(result.text).toMatch(/^Denied by protected files \(\.agents\/hooks\.json\)/);
    unchanged(s);
  });

  it("a target whose folder is unknown is refused in yolo whatever its name: .agents/agents/ takes any", async () => {
    const s = await session();
    const result = await s.command("d=.agents/agents; echo 'evil prompt' > $d/reviewer.md");
    expect(result.text).toMatch(/^Denied by protected files: .*known only when the command runs/);
    expect(s.exists(".agents/agents/reviewer.md")).toBe(false);
  });

  it("refuses a write through a link made earlier to a protected file", async () => {
    const s = await session();
    symlinkSync(".agents/hooks.json", path.join(s.ws.root, "innocent.json"));
    const result = await s.command("echo '{}' > innocent.json");
    expect(result.text).toMatch(/^Denied by protected files \(\.agents\/hooks\.json\)/);
    unchanged(s);
  });

  it("holds in a library session without any policy, as the edit tools do", async () => {
    const ws = await createTempWorkspace(FILES);
    const library = createGantrySession({ workspace: ws.root, home: ws.home, settings: {} });
    try {
      const result = await library.pipeline.run({
        name: "run_command",
        args: { CommandLine: "echo '{}' > .agents/hooks.json", Cwd: ".", WaitMsBeforeAsync: 5_000 },
      });
      expect(result.text).toMatch(/^Denied by protected files/);
      expect(readFileSync(path.join(ws.root, ".agents/hooks.json"), "utf8")).toBe('{"hooks":{}}\n');
    } finally {
      await library.dispose();
      await ws.cleanup();
    }
  });

  it("lets ordinary work near them run: other files, name filters that cannot match, reads", async () => {
    const s = await session();
    for (const line of [
      "echo x > notes.txt",
      "cp notes.txt .agents/notes.txt",
      "find . -name '*.tmp' -delete",
      "rm -f *.log",
      "cat .agents/hooks.json > copy.json",
      "mkdir -p build && mv notes.txt build/",
    ]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
    }
    unchanged(s);
  });

  it("a name filter that can match a file below an agent folder is refused; one that cannot runs", async () => {
    const s = await session({
      files: { ...FILES, ".agents/agents/deep/reviewer.md": "prompt\n", "a.tmp": "" },
    });
    expect((await s.command("find . -name '*.md' -delete")).text).toMatch(
      /^Denied by protected files \(\.agents\/agents\/deep\/reviewer\.md\)/,
    );
    const fine = await s.command("find . -name '*.tmp' -delete");
    expect(fine.error, fine.text).toBe(false);
    expect(s.exists("a.tmp")).toBe(false);
    expect(s.exists(".agents/agents/deep/reviewer.md")).toBe(true);
  });

  it("with allowAgentConfigEdits a command may change them", async () => {
    const s = await session({ settings: { allowAgentConfigEdits: true } });
    const result = await s.command("echo '{}' > .agents/hooks.json");
    expect(result.error, result.text).toBe(false);
    expect(readFileSync(path.join(s.ws.root, ".agents/hooks.json"), "utf8")).toBe("{}\n");
  });
});
