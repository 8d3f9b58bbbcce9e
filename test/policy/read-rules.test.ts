import { describe, expect, it } from "vitest";
import { findRipgrep } from "../../src/tools/search/ripgrep.js";
import { type PolicySessionOptions, policySessions } from "./session-support.js";

const opened = policySessions();

const FILES = {
  "secret-dir/token.txt": "TOKEN=abc123\n",
  "secret-dir/nested/more.txt": "TOKEN=def456\n",
  "src/app.ts": "const TOKEN = process.env.X;\n",
};
const DENY_READ = { permissions: { deny: ["Read(./secret-dir/**)"] } };

const session = (options: Partial<PolicySessionOptions> = {}) =>
  opened({ mode: "default", files: FILES, settings: DENY_READ, ...options });

const ENGINES: ("node" | "ripgrep")[] = ["node", ...(findRipgrep() ? (["ripgrep"] as const) : [])];

describe("Read rules bind every tool that reads or lists", () => {
  for (const engine of ENGINES) {
    it(`grep_search on "." neither searches nor names a denied file (${engine} engine)`, async () => {
      const s = await session({ settings: { ...DENY_READ, search: { engine } } });
      const result = await s.run("grep_search", { SearchPath: ".", Query: "TOKEN" });
      expect(result.error, result.text).toBe(false);
      expect(result.metadata.engine).toBe(engine);
      expect(result.text).toContain("src/app.ts:1:");
      expect(result.text).not.toContain("secret-dir");
      expect(result.text).not.toContain("abc123");
      expect(result.metadata.matchedFiles).toBe(1);
      const names = await s.run("grep_search", { SearchPath: ".", Query: "TOKEN", MatchPerLine: false });
      expect(names.text).toBe("src/app.ts");
    });
  }

  it("find_by_name does not list a denied file; the folder itself is searched no deeper than allowed", async () => {
    const s = await session();
    const result = await s.run("find_by_name", { SearchDirectory: ".", Pattern: "*.txt" });
    expect(result.text).toBe('No files or folders match "*.txt" in ..');
    const inside = await s.run("find_by_name", { SearchDirectory: "secret-dir", Pattern: "*" });
    expect(inside.errorCode).toBe("denied");
  });

  it("list_dir hides denied entries and says so; listing the denied folder is refused", async () => {
    const s = await session({ settings: { permissions: { deny: ["Read(./secret-dir/token.txt)"] } } });
    const listing = await s.run("list_dir", { DirectoryPath: "secret-dir" });
    expect(listing.text).toBe(
      "nested/\n[1 entry hidden: secret files, .git and paths permission rules keep from reads are not listed]",
    );
    const denied = await session({});
    expect((await denied.run("list_dir", { DirectoryPath: "secret-dir" })).errorCode).toBe("denied");
  });

  it("an ask rule hides the file from searches until yolo or a grant lets it be read", async () => {
    const asking = { permissions: { ask: ["Read(./secret-dir/**)"] } };
    const s = await session({ settings: asking });
    expect((await s.run("grep_search", { SearchPath: ".", Query: "abc123" })).text).toBe(
      'No matches for "abc123".',
    );
    s.session.permissions.grants.add("Read(/secret-dir/**)", "answer: always for this session");
    expect((await s.run("grep_search", { SearchPath: ".", Query: "abc123" })).text).toBe(
      "secret-dir/token.txt:1: TOKEN=abc123",
    );
    const yolo = await session({ mode: "yolo", settings: asking });
    expect((await yolo.run("grep_search", { SearchPath: ".", Query: "abc123" })).text).toBe(
      "secret-dir/token.txt:1: TOKEN=abc123",
    );
  });

  it("a command's input redirect and the files it names are reads the rule judges", async () => {
    const s = await session({ mode: "yolo" });
    for (const line of [
      "cat < secret-dir/token.txt",
      "cat secret-dir/token.txt",
      "head -n 1 secret-dir/../secret-dir/token.txt",
      "grep -r TOKEN .",
      "grep TOKEN secret-dir/token.txt",
      "rg TOKEN",
      "cp secret-dir/token.txt copy.txt",
      "dd if=secret-dir/token.txt of=copy.txt",
      "find . -name '*.txt'",
      "ls -R",
    ]) {
      const result = await s.command(line);
      expect(result.text, line).toMatch(
        /^Denied by rule deny Read\(\.\/secret-dir\/\*\*\) \(settings given to Gantry\)/,
      );
      expect(result.text).not.toContain("abc123");
    }
    expect(s.exists("copy.txt")).toBe(false);
    const fine = await s.command("cat src/app.ts; grep -r TOKEN src; ls");
    expect(fine.error, fine.text).toBe(false);
    expect(fine.text).toContain("process.env.X");
  });

  it("a read through a target known only when the command runs is asked about while a Read deny rule exists", async () => {
    const s = await session();
    const result = await s.command("f=secret-dir/token.txt; cat < $f", {});
    expect(result.errorCode).toBe("denied");
    expect(s.asked[0]?.decision.reason).toContain(
      "known only when the command runs, so it could be what rule deny Read(./secret-dir/**) (settings given to Gantry) forbids",
    );
    const yolo = await session({ mode: "yolo" });
    const denied = await yolo.command("f=secret-dir/token.txt; cat < $f");
    expect(denied.text).toMatch(
      /^Denied by rule deny Read\(\.\/secret-dir\/\*\*\).*known only when the command runs/,
    );
  });
});
