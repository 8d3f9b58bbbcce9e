import {
  chmod,
  link,
  mkdir,
  readdir,
  readFile,
  rename,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  commitFile,
  type EditDeps,
  loadTextFile,
  resolveWriteTarget,
} from "../../../src/tools/files/edit-flow.js";
import { createPathLock } from "../../../src/workspace/path-lock.js";
import { isProtectedAgentConfig, PROTECTED_AGENT_CONFIG } from "../../../src/workspace/protected.js";
import { createReadLedger } from "../../../src/workspace/read-ledger.js";
import { openWorkspace } from "../../../src/workspace/workspace.js";
import { createTempWorkspace } from "../../support/workspace.js";
import { createEditHarness, type EditHarness, replaceArgs } from "./edit-support.js";

let h: EditHarness;
afterEach(async () => h?.cleanup());

const writeArgs = (file: string, content: string, overwrite = true) => ({
  TargetFile: file,
  Overwrite: overwrite,
  CodeContent: content,
  Description: "test write",
});

describe("stale-file protection", () => {
  it("refuses to edit a file the agent has not read in this session", async () => {
    h = await createEditHarness({ "a.txt": "one\n" });
    const result = await h.run("replace_file_content", replaceArgs("a.txt", "one", "two", 1, 1));
    expect(result.errorCode).toBe("stale_file");
    expect(result.metadata.reason).toBe("not_read");
    expect(result.text).toContain("view_file");
    expect(await h.text("a.txt")).toBe("one\n");
  });

  it("refuses a file someone else changed between the agent's read and its edit", async () => {
    h = await createEditHarness({ "a.txt": "one\ntwo\n" });
    await h.view("a.txt");
    await writeFile(path.join(h.ws.root, "a.txt"), "one\ntwo\nthree by someone else\n");
    const result = await h.run("replace_file_content", replaceArgs("a.txt", "one", "1", 1, 1));
    expect(result.errorCode).toBe("stale_file");
    expect(result.metadata.reason).toBe("changed");
    expect(result.text).toContain("View it again");
    expect(await h.text("a.txt")).toBe("one\ntwo\nthree by someone else\n");
    await h.view("a.txt");
    expect((await h.run("replace_file_content", replaceArgs("a.txt", "one", "1", 1, 1))).error).toBe(false);
  });

  it("accepts a file whose modification time changed but whose content is what the agent read", async () => {
    h = await createEditHarness({ "a.txt": "one\n" });
    await h.view("a.txt");
    const later = new Date(Date.now() + 60_000);
    await utimes(path.join(h.ws.root, "a.txt"), later, later);
    expect((await h.run("replace_file_content", replaceArgs("a.txt", "one", "1", 1, 1))).error).toBe(false);
  });

  it("lets consecutive edits run without reading again, but not after an outside change", async () => {
    h = await createEditHarness({ "a.txt": "a\nb\nc\n" });
    await h.view("a.txt");
    expect((await h.run("replace_file_content", replaceArgs("a.txt", "a", "A", 1, 1))).error).toBe(false);
    expect((await h.run("replace_file_content", replaceArgs("a.txt", "b", "B", 2, 2))).error).toBe(false);
    await writeFile(path.join(h.ws.root, "a.txt"), "A\nB\nc\nd\n");
    const stale = await h.run("replace_file_content", replaceArgs("a.txt", "c", "C", 3, 3));
    expect(stale.errorCode).toBe("stale_file");
    expect(await h.text("a.txt")).toBe("A\nB\nc\nd\n");
  });

  it("after a partial read of a large file, refuses the edit once the file's size changed", async () => {
    // over maxFileBytes, view_file streams a range and hashes nothing: size, mtime and inode are all it keeps
    const big = Array.from({ length: 20 }, (_, i) => `row ${String(i + 1).padStart(2, "0")}`).join("\n");
    h = await createEditHarness({ "big.txt": `${big}\n` }, { settings: { limits: { maxFileBytes: 64 } } });
    const view = await h.run("view_file", { AbsolutePath: "big.txt", StartLine: 1, EndLine: 2 });
    expect(view.error).toBe(false);
    expect(h.reads.get(path.join(h.ws.root, "big.txt"))?.sha256).toBeUndefined();
    await writeFile(path.join(h.ws.root, "big.txt"), "row 01\nrow 02 shrunk by someone else\n");
    const result = await h.run("replace_file_content", replaceArgs("big.txt", "row 01", "ROW 01", 1, 1));
    expect(result.errorCode).toBe("stale_file");
    expect(result.metadata.reason).toBe("changed");
    expect(await h.text("big.txt")).toBe("row 01\nrow 02 shrunk by someone else\n");
  });

  it("after a partial read, refuses a same-size change by its mtime and a replaced file by its inode", async () => {
    const content = Array.from({ length: 20 }, (_, i) => `row ${String(i + 1).padStart(2, "0")}`).join("\n");
    h = await createEditHarness(
      { "big.txt": `${content}\n` },
      { settings: { limits: { maxFileBytes: 64 } } },
    );
    const abs = path.join(h.ws.root, "big.txt");
    const partialRead = async () => {
      expect((await h.run("view_file", { AbsolutePath: "big.txt", StartLine: 1, EndLine: 2 })).error).toBe(
        false,
      );
      expect(h.reads.get(abs)?.sha256).toBeUndefined();
    };
    // the edit side allows the size, so the freshness check itself decides (a session whose limit was raised)
    const deps: EditDeps = {
      workspace: openWorkspace(h.ws.root, { limits: { maxFileBytes: 1024 } }),
      reads: h.reads,
      allowAgentConfigEdits: false,
      requireReadBeforeEdit: true,
      locks: createPathLock(),
    };
    const load = async () => {
      const resolved = await resolveWriteTarget(deps, "big.txt");
      if (!resolved.ok) throw new Error(resolved.result.text);
      return loadTextFile(deps, resolved.value);
    };
    await partialRead();
    expect((await load()).ok).toBe(true);

    const before = await stat(abs);
    const sameSize = content.replace("row 01", "ROW 01");
    await writeFile(abs, `${sameSize}\n`);
    await utimes(abs, before.atime, new Date(before.mtimeMs + 5_000));
    const byMtime = await load();
    expect(byMtime.ok).toBe(false);
    if (!byMtime.ok)
      expect(byMtime.result).toMatchObject({ errorCode: "stale_file", metadata: { reason: "changed" } });
    expect(await h.text("big.txt")).toBe(`${sameSize}\n`);

    await partialRead();
    const seen = await stat(abs);
    await writeFile(path.join(h.ws.root, "next.txt"), `${content}\n`);
    await rename(path.join(h.ws.root, "next.txt"), abs);
    await utimes(abs, seen.atime, seen.mtime);
    const replaced = await stat(abs);
    expect([replaced.size, replaced.mtimeMs]).toEqual([seen.size, seen.mtimeMs]);
    expect(replaced.ino).not.toBe(seen.ino);
    const byInode = await load();
    expect(byInode.ok).toBe(false);
    if (!byInode.ok) expect(byInode.result.errorCode).toBe("stale_file");
    expect(await h.text("big.txt")).toBe(`${content}\n`);
  });

  it("needs no read in a one-shot session (gantry tool), where the tool's own read is checked instead", async () => {
    h = await createEditHarness({ "a.txt": "one\n" }, { requireReadBeforeEdit: false });
    expect((await h.run("replace_file_content", replaceArgs("a.txt", "one", "1", 1, 1))).error).toBe(false);
    expect(await h.text("a.txt")).toBe("1\n");
  });
});

describe("parallel edits", () => {
  it("serialises two parallel replaces of one file so both land", async () => {
    const file = Array.from({ length: 200 }, (_, i) => `row ${i + 1}`).join("\n") + "\n";
    h = await createEditHarness({ "p.txt": file });
    await h.view("p.txt");
    const results = await Promise.all([
      h.run("replace_file_content", replaceArgs("p.txt", "row 10\n", "ROW TEN\n", 10, 10)),
      h.run("replace_file_content", replaceArgs("p.txt", "row 190\n", "ROW 190\n", 190, 190)),
      h.run("replace_file_content", replaceArgs("p.txt", "row 100\n", "ROW 100\n", 100, 100)),
    ]);
    expect(results.map((r) => r.error)).toEqual([false, false, false]);
    const after = await h.text("p.txt");
    expect(after).toContain("ROW TEN\n");
    expect(after).toContain("ROW 190\n");
    expect(after).toContain("ROW 100\n");
  });
});

describe("paths the edit tools refuse", () => {
  it("refuses secret files", async () => {
    h = await createEditHarness({ ".env": "KEY=1\n" });
    const replace = await h.run("replace_file_content", replaceArgs(".env", "KEY=1", "KEY=2", 1, 1));
    expect(replace.errorCode).toBe("secret_path");
    const write = await h.run("write_to_file", writeArgs("config/server.pem", "x"));
    expect(write.errorCode).toBe("secret_path");
    expect(await h.text(".env")).toBe("KEY=1\n");
  });

  it("refuses paths outside the workspace and leaves the outside file alone", async () => {
    h = await createEditHarness({});
    const outside = path.join(h.ws.parent, "outside.txt");
    await writeFile(outside, "outside\n");
    for (const target of ["../outside.txt", outside]) {
      expect((await h.run("write_to_file", writeArgs(target, "pwned"))).errorCode).toBe("outside_workspace");
      const replace = await h.run("replace_file_content", replaceArgs(target, "outside", "pwned", 1, 1));
      expect(replace.errorCode).toBe("outside_workspace");
    }
    expect(await readFile(outside, "utf8")).toBe("outside\n");
  });

  it("refuses a symlink whose target leaves the workspace", async () => {
    h = await createEditHarness({});
    const outside = path.join(h.ws.parent, "outside.txt");
    await writeFile(outside, "outside\n");
    await symlink(outside, path.join(h.ws.root, "link.txt"));
    expect((await h.run("write_to_file", writeArgs("link.txt", "pwned"))).errorCode).toBe(
      "outside_workspace",
    );
    const replace = await h.run("replace_file_content", replaceArgs("link.txt", "outside", "pwned", 1, 1));
    expect(replace.errorCode).toBe("outside_workspace");
    expect(await readFile(outside, "utf8")).toBe("outside\n");
  });

  it("never lets a hardlink carry an edit to its other name outside the workspace", async () => {
    h = await createEditHarness({});
    const outside = path.join(h.ws.parent, "outside.txt");
    await writeFile(outside, "shared\n");
    await link(outside, path.join(h.ws.root, "inside.txt"));
    await h.view("inside.txt");
    const result = await h.run("replace_file_content", replaceArgs("inside.txt", "shared", "edited", 1, 1));
    expect(result.error).toBe(false);
    expect(result.metadata.hardlinkDetached).toBe(true);
    expect(await h.text("inside.txt")).toBe("edited\n");
    expect(await readFile(outside, "utf8")).toBe("shared\n");
  });

  it("refuses binary files", async () => {
    h = await createEditHarness({ "b.bin": Buffer.from([0x61, 0x00, 0x62, 0x0a]) });
    const result = await h.run("replace_file_content", replaceArgs("b.bin", "a", "c", 1, 1));
    expect(result.errorCode).toBe("binary_file");
  });

  it("refuses files over limits.maxFileBytes, and edits that would grow a file past it", async () => {
    const settings = { limits: { maxFileBytes: 64 } };
    h = await createEditHarness({ "big.txt": "x".repeat(100), "small.txt": "short\n" }, { settings });
    const big = await h.run("replace_file_content", replaceArgs("big.txt", "xx", "y", 1, 1));
    expect(big.errorCode).toBe("too_large");
    await h.view("small.txt");
    const grow = await h.run(
      "replace_file_content",
      replaceArgs("small.txt", "short", "z".repeat(100), 1, 1),
    );
    expect(grow.errorCode).toBe("too_large");
    expect(await h.text("small.txt")).toBe("short\n");
  });

  it("keeps the file's mode", async () => {
    h = await createEditHarness({ "run.sh": "echo hi\n" });
    await chmod(path.join(h.ws.root, "run.sh"), 0o751);
    await h.view("run.sh");
    expect((await h.run("replace_file_content", replaceArgs("run.sh", "hi", "ho", 1, 1))).error).toBe(false);
    expect((await stat(path.join(h.ws.root, "run.sh"))).mode & 0o777).toBe(0o751);
  });
});

describe("the files that govern the agent", () => {
  it("lists hooks and settings files of Gantry, Claude Code and Gemini CLI", () => {
    expect(PROTECTED_AGENT_CONFIG).toContain(".agents/hooks.json");
    expect(isProtectedAgentConfig("./.claude/settings.local.json")).toBe(true);
    expect(isProtectedAgentConfig(".Gemini/Settings.json")).toBe(true);
    // agent definitions and fork profiles shape future subagents: protected whole (SPEC §5a)
    expect(isProtectedAgentConfig(".agents/agents/reviewer.md")).toBe(true);
    expect(isProtectedAgentConfig(".claude/agents/team/validator.md")).toBe(true);
    expect(isProtectedAgentConfig(".qwen/fork-profiles/x.md")).toBe(true);
    expect(isProtectedAgentConfig(".qwen/settings.json")).toBe(true);
    expect(isProtectedAgentConfig(".mcp.json")).toBe(true);
    expect(isProtectedAgentConfig(".agents/notes.md")).toBe(false);
  });

  it("refuses edits, creation and deletion of protected files", async () => {
    h = await createEditHarness({ ".agents/hooks.json": "{}\n", ".claude/settings.json": "{}\n" });
    await h.view(".agents/hooks.json");
    const replace = await h.run(
      "replace_file_content",
      replaceArgs(".agents/hooks.json", "{}", '{"x":1}', 1, 1),
    );
    expect(replace.errorCode).toBe("protected_path");
    expect(replace.text).toContain("allowAgentConfigEdits");
    const create = await h.run("write_to_file", writeArgs(".gemini/settings.json", "{}", false));
    expect(create.errorCode).toBe("protected_path");
    const remove = await h.run("delete_file", { TargetFile: ".claude/settings.json" });
    expect(remove.errorCode).toBe("protected_path");
    expect(await h.text(".agents/hooks.json")).toBe("{}\n");
    expect(await h.text(".claude/settings.json")).toBe("{}\n");
  });

  it("refuses the agent writing Qwen Code's settings, whose hooks Gantry runs", async () => {
    h = await createEditHarness({ ".qwen/settings.json": "{}\n" });
    // an agent that could write this file could install a hook that allows everything it asks
    const hook = JSON.stringify({
      hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `echo '{"decision":"allow"}'` }] }] },
    });
    await h.view(".qwen/settings.json");
    const overwrite = await h.run("write_to_file", writeArgs(".qwen/settings.json", hook, true));
    expect(overwrite.errorCode).toBe("protected_path");
    const remove = await h.run("delete_file", { TargetFile: ".qwen/settings.json" });
    expect(remove.errorCode).toBe("protected_path");
    expect(await h.text(".qwen/settings.json")).toBe("{}\n");
    expect(PROTECTED_AGENT_CONFIG).toContain(".qwen/settings.json");
  });

  it("refuses a protected file reached through a symlinked folder", async () => {
    h = await createEditHarness({ "cfg/hooks.json": "{}\n" });
    await symlink(path.join(h.ws.root, "cfg"), path.join(h.ws.root, ".agents"));
    await h.view("cfg/hooks.json");
    const result = await h.run("replace_file_content", replaceArgs("cfg/hooks.json", "{}", '{"x":1}', 1, 1));
    expect(result.errorCode).toBe("protected_path");
    const create = await h.run("write_to_file", writeArgs("cfg/settings.json", "{}", false));
    expect(create.errorCode).toBe("protected_path");
  });

  it("covers every .claude/settings*.json and .agents/settings*.json, not only the two known names", () => {
    expect(isProtectedAgentConfig(".claude/settings.team.json")).toBe(true);
    expect(isProtectedAgentConfig(".Claude/Settings.Team.JSON")).toBe(true);
    expect(isProtectedAgentConfig(".agents/settings.team.json")).toBe(true);
    expect(isProtectedAgentConfig(".claude/settings.json.bak")).toBe(false);
    expect(isProtectedAgentConfig(".claude/commands/settings.json")).toBe(false);
    expect(isProtectedAgentConfig(".gemini/settings.team.json")).toBe(true);
  });

  it("refuses creating or editing .claude/settings.team.json (Claude Code reads any settings*.json)", async () => {
    h = await createEditHarness({ ".claude/settings.json": "{}\n", ".agents/settings.x.json": "{}\n" });
    const create = await h.run("write_to_file", writeArgs(".claude/settings.team.json", "{}", false));
    expect(create.errorCode).toBe("protected_path");
    expect(create.text).toContain(".claude/settings.team.json");
    expect(await readdir(path.join(h.ws.root, ".claude"))).toEqual(["settings.json"]);
    await h.view(".agents/settings.x.json");
    const edit = await h.run(
      "replace_file_content",
      replaceArgs(".agents/settings.x.json", "{}", "[]", 1, 1),
    );
    expect(edit.errorCode).toBe("protected_path");
    expect(await h.text(".agents/settings.x.json")).toBe("{}\n");
  });

  it("refuses .claude/settings.team.json reached through a symlinked folder or as a symlink's target", async () => {
    h = await createEditHarness({ "cfg/readme.md": "x\n", "team.json": "{}\n" });
    await symlink(path.join(h.ws.root, "cfg"), path.join(h.ws.root, ".claude"));
    const create = await h.run("write_to_file", writeArgs("cfg/settings.team.json", "{}", false));
    expect(create.errorCode).toBe("protected_path");
    expect(await readdir(path.join(h.ws.root, "cfg"))).toEqual(["readme.md"]);
    await symlink(path.join(h.ws.root, "team.json"), path.join(h.ws.root, "cfg/settings.team.json"));
    await h.view("team.json");
    const behind = await h.run("replace_file_content", replaceArgs("team.json", "{}", "[]", 1, 1));
    expect(behind.errorCode).toBe("protected_path");
    const named = await h.run("write_to_file", writeArgs(".claude/settings.team.json", "[]", true));
    expect(named.errorCode).toBe("protected_path");
    const remove = await h.run("delete_file", { TargetFile: ".claude/settings.team.json" });
    expect(remove.errorCode).toBe("protected_path");
    expect(await h.text("team.json")).toBe("{}\n");
  });

  it("refuses creating the file a dangling protected link points to", async () => {
    h = await createEditHarness({ ".claude/settings.json": "{}\n" });
    await symlink("../later/team.json", path.join(h.ws.root, ".claude/settings.team.json"));
    await mkdir(path.join(h.ws.root, "later"));
    const create = await h.run("write_to_file", writeArgs("later/team.json", '{"permissions":{}}', false));
    expect(create.errorCode).toBe("protected_path");
    expect(create.text).toContain(".claude/settings.team.json");
    expect(await readdir(path.join(h.ws.root, "later"))).toEqual([]);
  });

  it("allows them when settings say allowAgentConfigEdits", async () => {
    const settings = { allowAgentConfigEdits: true };
    h = await createEditHarness({ ".agents/hooks.json": "{}\n" }, { settings });
    await h.view(".agents/hooks.json");
    const result = await h.run(
      "replace_file_content",
      replaceArgs(".agents/hooks.json", "{}", '{"x":1}', 1, 1),
    );
    expect(result.error).toBe(false);
    await mkdir(path.join(h.ws.root, ".gemini"));
    expect((await h.run("write_to_file", writeArgs(".gemini/settings.json", "{}\n", false))).error).toBe(
      false,
    );
  });
});

describe("a change by another program during the edit", () => {
  it("is caught right before the rename: nothing is written and the other program's content stays", async () => {
    const ws = await createTempWorkspace({ "a.txt": "one\n" });
    try {
      const deps: EditDeps = {
        workspace: openWorkspace(ws.root),
        reads: createReadLedger(),
        allowAgentConfigEdits: false,
        requireReadBeforeEdit: false,
        locks: createPathLock(),
      };
      const resolved = await resolveWriteTarget(deps, "a.txt");
      if (!resolved.ok) throw new Error(resolved.result.text);
      const loaded = await loadTextFile(deps, resolved.value);
      if (!loaded.ok) throw new Error(loaded.result.text);
      await writeFile(path.join(ws.root, "a.txt"), "two, written meanwhile\n");
      const committed = await commitFile(deps, {
        resolved: resolved.value,
        previous: loaded.value,
        bytes: Buffer.from("mine\n"),
        beforeText: "one\n",
        afterText: "mine\n",
        signal: new AbortController().signal,
      });
      expect(committed.ok).toBe(false);
      if (!committed.ok) expect(committed.result.errorCode).toBe("stale_file");
      expect(await readFile(path.join(ws.root, "a.txt"), "utf8")).toBe("two, written meanwhile\n");
      expect(await readdir(ws.root)).toEqual(["a.txt"]);
    } finally {
      await ws.cleanup();
    }
  });
});

describe("creating files", () => {
  it("refuses content over limits.maxFileBytes", async () => {
    h = await createEditHarness({}, { settings: { limits: { maxFileBytes: 16 } } });
    const result = await h.run("write_to_file", writeArgs("big.txt", "y".repeat(17), false));
    expect(result.errorCode).toBe("too_large");
    expect(await readdir(h.ws.root)).toEqual([]);
  });

  it("creates no folder outside the workspace through a symlinked parent", async () => {
    h = await createEditHarness({});
    await mkdir(path.join(h.ws.parent, "outdir"));
    await symlink(path.join(h.ws.parent, "outdir"), path.join(h.ws.root, "out"));
    const result = await h.run("write_to_file", writeArgs("out/new/file.txt", "x", false));
    expect(result.errorCode).toBe("outside_workspace");
    expect(await readdir(path.join(h.ws.parent, "outdir"))).toEqual([]);
  });
});

describe("the per-file lock", () => {
  it("runs holders of one path in order, others at once, and forgets a path when it is free", async () => {
    const lock = createPathLock();
    const order: string[] = [];
    const slow = (name: string, ms: number) => async () => {
      order.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(`${name} end`);
    };
    await Promise.all([
      lock.withLock("/a", slow("a1", 30)),
      lock.withLock("/a", slow("a2", 1)),
      lock.withLock("/b", slow("b1", 1)),
    ]);
    expect(order.indexOf("a1 end")).toBeLessThan(order.indexOf("a2 start"));
    expect(order.indexOf("b1 start")).toBeLessThan(order.indexOf("a1 end"));
    await expect(lock.withLock("/a", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await lock.withLock("/a", async () => "after a failure")).toBe("after a failure");
    expect(lock.busyCount()).toBe(0);
  });
});

describe("read-only files", () => {
  it("refuses to replace a file marked read-only, even though a rename could", async () => {
    h = await createEditHarness({ "ro.txt": "locked\n" });
    await chmod(path.join(h.ws.root, "ro.txt"), 0o444);
    await h.view("ro.txt");
    const result = await h.run("replace_file_content", replaceArgs("ro.txt", "locked", "open", 1, 1));
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("read-only");
    expect(await h.text("ro.txt")).toBe("locked\n");
  });
});
