import { describe, expect, it } from "vitest";
import {
  classifyDiffLines,
  createToolLineGrouper,
  describeTarget,
  formatCallLine,
  formatCollapsedLine,
  formatToolError,
  type ToolCallView,
} from "../../../src/cli/tui/tool-lines.js";

const ROOT = "/home/u/project";
const read = (target: string): ToolCallView => ({ group: "Read", name: "view_file", target });
const search = (target: string): ToolCallView => ({ group: "Search", name: "grep_search", target });
const edit = (target: string): ToolCallView => ({ group: "Edit", name: "replace_file_content", target });

describe("describeTarget", () => {
  it("shows a path inside the workspace relative to it", () => {
    expect(describeTarget("view_file", { AbsolutePath: `${ROOT}/src/a.ts` }, ROOT)).toBe("src/a.ts");
    expect(describeTarget("list_dir", { DirectoryPath: ROOT }, ROOT)).toBe(".");
  });

  it("keeps a path outside the workspace absolute", () => {
    expect(describeTarget("view_file", { AbsolutePath: "/etc/hosts" }, ROOT)).toBe("/etc/hosts");
  });

  it("shows a search's pattern and where it looks", () => {
    expect(describeTarget("grep_search", { SearchPath: `${ROOT}/src`, Query: "TODO" }, ROOT)).toBe(
      '"TODO" in src',
    );
    expect(describeTarget("find_by_name", { SearchDirectory: ROOT, Pattern: "*.ts" }, ROOT)).toBe(
      '"*.ts" in .',
    );
  });

  it("puts a multi-line command on one shortened line", () => {
    const target = describeTarget("run_command", { CommandLine: `echo one\necho ${"x".repeat(200)}` }, ROOT);
    expect(target.startsWith("echo one echo xxx")).toBe(true);
    expect(target.length).toBeLessThanOrEqual(80);
    expect(target.endsWith("…")).toBe(true);
  });

  it("counts the agents of an invoke_subagent call", () => {
    expect(describeTarget("invoke_subagent", { Subagents: [{}, {}] }, ROOT)).toBe("2 agents");
  });

  it("copes with arguments that were not JSON", () => {
    expect(describeTarget("view_file", "{broken", ROOT)).toBe("{broken");
    expect(describeTarget("list_permissions", {}, ROOT)).toBe("");
  });
});

describe("formatting lines", () => {
  it("names the display group, the tool and the target", () => {
    expect(formatCallLine(read("src/a.ts"))).toBe("Read view_file src/a.ts");
    expect(formatCallLine({ group: undefined, name: "mystery", target: "" })).toBe("mystery");
  });

  it("collapses a run of reads into a count", () => {
    expect(formatCollapsedLine([read("a"), read("b"), read("c")])).toBe("Read a, b, c");
  });

  it("names four targets of a group and counts the rest, each target once", () => {
    const reads = ["a", "b", "a", "c", "d", "e", "f"].map(read);
    expect(formatCollapsedLine(reads)).toBe("Read a, b, c, d +2 more");
  });

  it("shows a run of one call in full", () => {
    expect(formatCollapsedLine([search('"x" in .')])).toBe('Search grep_search "x" in .');
  });

  it("names the reads and searches of one run per group, in the order they came", () => {
    expect(formatCollapsedLine([search('"q" in .'), read("a"), read("b")])).toBe(
      'Search "q" in . · Read a, b',
    );
  });

  it("keeps a tool error to its whole first line, however long", () => {
    const hint = `not found: a.ts. ${"Did you mean src/a.ts? ".repeat(10)}`;
    expect(formatToolError("view_file", `${hint}\nmore detail`)).toBe(`view_file failed: ${hint.trim()}`);
  });
});

describe("createToolLineGrouper", () => {
  it("holds consecutive reads and searches until another call ends the run", () => {
    const grouper = createToolLineGrouper();
    expect(grouper.add(read("a"))).toEqual([]);
    expect(grouper.add(search("q"))).toEqual([]);
    expect(grouper.add(read("b"))).toEqual([]);
    expect(grouper.holding).toBe(true);
    expect(grouper.add(edit("a"))).toEqual(["Read a, b · Search q", "Edit replace_file_content a"]);
    expect(grouper.holding).toBe(false);
  });

  it("gives the held run's line when flushed, and nothing when nothing is held", () => {
    const grouper = createToolLineGrouper();
    grouper.add(read("a"));
    grouper.add(read("b"));
    expect(grouper.flush()).toEqual(["Read a, b"]);
    expect(grouper.flush()).toEqual([]);
  });

  it("prints other calls at once, one line each", () => {
    const grouper = createToolLineGrouper();
    expect(grouper.add(edit("a"))).toEqual(["Edit replace_file_content a"]);
    expect(grouper.add({ group: "Command", name: "run_command", target: "ls" })).toEqual([
      "Command run_command ls",
    ]);
  });

  it("keeps a held read's error under the run's line", () => {
    const grouper = createToolLineGrouper();
    grouper.add(read("a"));
    grouper.add(read("b"));
    expect(grouper.error(read("b"), "not found")).toEqual([]);
    expect(grouper.flush()).toEqual(["Read a, b", "view_file failed: not found"]);
  });

  it("shows another call's error at once", () => {
    const grouper = createToolLineGrouper();
    expect(grouper.error(edit("a"), "stale read")).toEqual(["replace_file_content failed: stale read"]);
  });
});

describe("classifyDiffLines", () => {
  it("tells added, removed, hunk, header and context lines apart", () => {
    const diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n";
    expect(classifyDiffLines(diff).map((line) => line.kind)).toEqual([
      "header",
      "header",
      "hunk",
      "context",
      "removed",
      "added",
    ]);
  });
});
