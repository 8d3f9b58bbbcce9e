import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DENY_READ, expectReadDenied, expectRunsWithoutTheToken, SECRET } from "./secret-dir.js";
import { committed, policySessions } from "./session-support.js";

const session = policySessions();

/** Programs outside Gantry's list of readers, and names made in the same line: each printed the token in yolo. */
const READ_ROUTES = [
  "sed -n p secret-dir/token.txt",
  "awk 1 secret-dir/token.txt",
  "xxd secret-dir/token.txt",
  "cut -c1- secret-dir/token.txt",
  "paste secret-dir/token.txt",
  "uniq secret-dir/token.txt",
  "fold secret-dir/token.txt",
  "look TOKEN secret-dir/token.txt",
  "comm secret-dir/token.txt /dev/null",
  "pr secret-dir/token.txt",
  "iconv -f utf8 secret-dir/token.txt",
  "jq -R . secret-dir/token.txt",
  "split -l 1 secret-dir/token.txt out_ && cat out_aa",
  "tar -cf - secret-dir | tar -xOf -",
  "gzip -c secret-dir/token.txt | zcat",
  "git diff --no-index /dev/null secret-dir/token.txt",
  "ln -s secret-dir/token.txt x && cat x",
  "ln -s secret-dir s && cat s/token.txt",
  "mv secret-dir pub && cat pub/token.txt",
  "perl -ne print secret-dir/token.txt",
  "perl -pe 1 secret-dir/token.txt",
  "perl -e 'print <>' secret-dir/token.txt",
  "perl -i.bak -pe 'print STDERR $_' secret-dir/token.txt",
  // files named as an option's value: the content shows in the output or in an error
  "diff --from-file secret-dir/token.txt src/app.ts",
  "diff --to-file=secret-dir/token.txt src/app.ts",
  "sort --files0-from=secret-dir/token.txt",
  "wc --files0-from secret-dir/token.txt",
  "hexdump -f secret-dir/token.txt src/app.ts",
  "sed -f secret-dir/token.txt src/app.ts",
  "curl -sK secret-dir/token.txt",
  "curl -Ksecret-dir/token.txt",
  "curl -s -d@secret-dir/token.txt http://127.0.0.1:9/ || true",
  "curl --config=secret-dir/token.txt",
  "curl -s -H @secret-dir/token.txt http://127.0.0.1:9/ || true",
  "curl -s -F 'x=<secret-dir/token.txt' http://127.0.0.1:9/ || true",
  "curl -s -b secret-dir/token.txt http://127.0.0.1:9/ || true",
  "wget -q -i secret-dir/token.txt -O /dev/null || true",
  "wget -q --post-file=secret-dir/token.txt http://127.0.0.1:9/ || true",
  // files a variable or a start-up option makes the program run, whose variables or errors show them
  "BASH_ENV=secret-dir/token.txt bash -c 'echo $TOKEN'",
  "env BASH_ENV=secret-dir/token.txt bash -c 'echo $TOKEN'",
  "export BASH_ENV=secret-dir/token.txt; bash -c 'echo $TOKEN'",
  "bash --rcfile secret-dir/token.txt -i -c 'echo $TOKEN' 2>/dev/null",
  "PYTHONSTARTUP=secret-dir/token.txt python3 -i -c 'print(TOKEN)' < /dev/null",
  "NODE_OPTIONS='--require ./secret-dir/token.txt' node -p TOKEN",
  "NODE_OPTIONS=--require=./secret-dir/token.txt node -p TOKEN",
  "mkdir -p ../empty && diff -rN secret-dir ../empty",
  "mkdir -p ../empty && diff --recursive --new-file ../empty secret-dir",
  // paths quoted in code given on the command line
  `python3 -c 'print(open("secret-dir/token.txt").read())'`,
  `node -e 'console.log(require("fs").readFileSync("./secret-dir/token.txt", "utf8"))'`,
  `perl -e 'open F, "secret-dir/token.txt"; print <F>'`,
  `awk 'BEGIN { while ((getline l < "secret-dir/token.txt") > 0) print l }'`,
  // files named in a list the program reads, not by its words
  "echo secret-dir/token.txt | tar -cf - -T - | tar -xOf -",
  "echo secret-dir/token.txt > list && tar -c --files-from=list -f - | tar -xOf -",
  "echo secret-dir/token.txt | zip -q -@ - > ../z.zip && unzip -p ../z.zip",
  "echo secret-dir/token.txt | rsync -a --files-from=- . ../r && cat ../r/secret-dir/token.txt",
];

describe("deny Read(./secret-dir/**) holds against every program that names the file (yolo)", () => {
  for (const line of READ_ROUTES) {
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
      expectReadDenied(await s.command(line));
      expect(s.exists("secret-dir/token.txt")).toBe(true);
    });
  }

  it("says a program Gantry has no account of may read the file", async () => {
    const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
    const result = await s.command("xxd secret-dir/token.txt");
    expect(result.text).toBe(
      'Denied by rule deny Read(./secret-dir/**) (settings given to Gantry): "secret-dir/token.txt (named by "xxd secret-dir/token.txt", a program Gantry cannot tell reads or changes it)" matches it',
    );
  });

  it("the same programs on other files run, and words that only name a path are no reads", async () => {
    const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
    for (const line of [
      "sed -n p src/app.ts",
      "xxd src/app.ts",
      "echo secret-dir/token.txt",
      "stat secret-dir/token.txt >/dev/null",
      "git diff --no-index /dev/null src/app.ts || true",
      "perl -ne print src/app.ts",
      "perl -pi -e 's/export/export/' src/app.ts",
      "NODE_OPTIONS=--max-old-space-size=64 node -e 1",
      `python3 -c 'print(open("src/app.ts").read(), "a b", "utf8")'`,
      `node -e 'console.log(require("fs").readFileSync("src/app.ts", "utf8"))'`,
      `awk 'BEGIN { print "x.y" }'`,
    ]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
    }
  });
});

const HOOKS =
  '{"gate":{"pre_tool_execution":[{"matcher":"run_command","hooks":[{"type":"command","command":"true"}]}]}}\n';

/** Each removed or rewrote the hook file in yolo: a hook that gates commands is gone for the next call. */
const PROTECTED_ROUTES = [
  "gzip .agents/hooks.json",
  "bzip2 .agents/hooks.json",
  "xz .agents/hooks.json",
  "cd .agents && gzip hooks.json",
  "uniq /dev/null .agents/hooks.json",
  "printf '1d\\nw\\n' | ed -s .agents/hooks.json",
  "ex -sc '1d|x' .agents/hooks.json",
  "tar -cf .agents/hooks.json src",
  "tar -cf x.tar --remove-files .agents/hooks.json",
  "zip -qm x.zip .agents/hooks.json",
  "git init -q . && git add src && git rm -q --cached src/app.ts && git rm -qf .agents/hooks.json",
  // git -C: the paths after the subcommand lead from the folder it names
  "git init -q . && git add -A && git -C .agents rm -qf hooks.json",
  "git init -q . && git add -A && git -C src -C ../.agents rm -qf hooks.json",
];

describe("the protected files hold against programs that change the files they are given (yolo)", () => {
  for (const line of PROTECTED_ROUTES) {
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const s = await session({ mode: "yolo", files: { ".agents/hooks.json": HOOKS, "src/app.ts": "x\n" } });
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(result.text).toMatch(/^Denied by protected files \(\.agents\/hooks\.json\)/);
      expect(readFileSync(path.join(s.ws.root, ".agents/hooks.json"), "utf8")).toBe(HOOKS);
    });
  }

  it("an Edit deny rule holds against them too; reading a protected file with a known reader still runs", async () => {
    const s = await session({
      mode: "yolo",
      files: { ".agents/hooks.json": HOOKS, "src/app.ts": "x\n" },
      settings: { permissions: { deny: ["Edit(src/**)"] } },
    });
    const zipped = await s.command("gzip src/app.ts");
    expect(zipped.text).toMatch(/^Denied by rule deny Edit\(src\/\*\*\) \(settings given to Gantry\)/);
    expect(s.exists("src/app.ts")).toBe(true);
    const read = await s.command("jq -c . .agents/hooks.json && cut -c1-3 .agents/hooks.json");
    expect(read.error, read.text).toBe(false);
  });
});

describe("a file named only when the command runs", () => {
  it("is a read known only when it runs for any program: asked in default, refused in yolo while a Read deny rule exists", async () => {
    const line = "f=secret-dir/token.txt; xxd $f";
    const yolo = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
    const denied = await yolo.command(line);
    expect(denied.text).toMatch(/^Denied by rule deny Read\(\.\/secret-dir\/\*\*\).*known only when it runs/);
    const asking = await session({ mode: "default", files: SECRET, settings: DENY_READ });
    expect((await asking.command(line)).errorCode).toBe("denied");
    expect(asking.asked[0]?.decision.reason).toContain("could be what rule deny Read(./secret-dir/**)");
    const free = await session({ mode: "yolo", files: SECRET });
    expect((await free.command("f=src/app.ts; xxd $f")).error).toBe(false);
  });
});

describe("in the sandbox, what a Read deny rule covers is unreadable for every program", () => {
  it("python3 cannot open a file deny Read(./secret-dir/**) covers; other files it reads", async () => {
    const s = await session({
      mode: "yolo",
      files: SECRET,
      settings: { ...DENY_READ, sandbox: { enabled: true } },
    });
    // the name built at run time, so no scan of the command line sees it: the sandbox refuses the read
    const read = (file: string) => {
      const [folder, name] = file.split("/");
      return s.command(
        `python3 -c 'import os; print(open(os.path.join("${folder}", "${name?.replace(".", '" + ".')}")).read())' 2>&1 || echo refused`,
      );
    };
    const secret = await read("secret-dir/token.txt");
    expect(secret.text).not.toContain("abc123");
    expect(secret.text).toContain("refused");
    expect((await read("src/app.ts")).text).toContain("export {};");
  });
});

/** The line is refused by the deny rule, and shows neither the committed token nor its change. */
function refuses(line: string, open: () => ReturnType<typeof session>) {
  it(`refuses ${JSON.stringify(line)}`, async () => expectReadDenied(await (await open()).command(line)));
}

describe("git and curl reach a denied file by other names (yolo, a committed secret-dir)", () => {
  const repository = async () =>
    committed(await session({ mode: "yolo", files: SECRET, settings: DENY_READ }));
  for (const line of [
    "git show HEAD:secret-dir/token.txt",
    "git show :secret-dir/token.txt",
    "git cat-file -p HEAD:secret-dir/token.txt",
    "git grep TOKEN",
    "git show | cat",
    "git log -p | cat",
    "git archive HEAD | tar -xO",
    "git format-patch -1 --stdout",
    "curl -s file://$PWD/secret-dir/token.txt",
    "curl -s file:///proc/self/cwd/secret-dir/token.txt",
  ])
    refuses(line, repository);

  // the working tree's change to the denied file, and its object in the history, by diff, stash,
  // pathspecs (recursive in git: a folder or "." covers what lies below), globs and object ids
  const changed = async () => {
    const s = await repository();
    writeFileSync(path.join(s.ws.root, "secret-dir", "token.txt"), "TOKEN=xyz789\n");
    writeFileSync(path.join(s.ws.root, "src", "app.ts"), "export const a = 1;\n");
    return s;
  };
  for (const line of [
    "git diff",
    "git diff HEAD",
    "git diff .",
    "git diff -- .",
    "git diff secret-dir",
    "git diff -- secret-dir",
    "git diff -- '*.txt'",
    "git diff -- ':(glob)**/token.txt'",
    "git diff --no-index /dev/null secret-dir",
    "git diff src/app.ts HEAD~0",
    "git diff --stat -p",
    "git diff-index -p HEAD",
    "git diff-files -p",
    "git diff-tree -p HEAD~0 HEAD",
    "git stash -q && git stash show -p",
    "git stash -q && git stash list -p",
    "git add -p < /dev/null",
    "git show --oneline",
    "git log -p -- .",
    "git log --stat -p",
    "git log -L1,1:secret-dir/token.txt",
    "git grep TOKEN -- .",
    "git grep --name-only TOKEN",
    "git show HEAD -- secret-dir",
    // copies where the rule, written for this workspace, does not reach
    "git clone -q . ../copy && cat ../copy/secret-dir/token.txt",
    "git clone -q file://$PWD ../copy2 && cat ../copy2/secret-dir/token.txt",
    "git worktree add -q ../wt && cat ../wt/secret-dir/token.txt",
    "git bundle create ../all.bundle --all && git clone -q ../all.bundle ../copy3",
    "git checkout-index -a --prefix=../out/ && cat ../out/secret-dir/token.txt",
    "git fast-export --all",
    // an alias (made on the command line or by an earlier command) or an external git-* program may be any of them
    "git -c alias.d=diff d HEAD",
    "git config alias.d diff && git d HEAD",
    "git -c alias.p=show p",
    "git stage -p < /dev/null",
    "git show HEAD:src/app.ts HEAD",
    "git clone -q -b master . ../copy4",
    "git reflog -p",
  ])
    refuses(line, changed);

  it("says why a git line without a path after -- reads every tracked file, and what to do", async () => {
    const s = await changed();
    const result = await s.command("git diff");
    expect(result.text).toBe(
      'Denied by rule deny Read(./secret-dir/**) (settings given to Gantry): ". (every tracked file "git diff" may print; name the paths after "--")" matches it',
    );
  });

  it("refuses git cat-file of the denied file's object id", async () => {
    const s = await changed();
    const id = execFileSync("git", ["rev-parse", "HEAD:secret-dir/token.txt"], { cwd: s.ws.root })
      .toString()
      .trim();
    const result = await s.command(`git cat-file -p ${id}`);
    expect(result.errorCode, result.text).toBe("denied");
    expect(result.text).not.toContain("abc123");
  });

  it("git diff and log of other paths, and without content, still run", async () => {
    const s = await changed();
    for (const line of [
      "git diff -- src",
      "git diff -- src/app.ts",
      "git diff --stat",
      "git diff --name-only",
      "git log -p -- src",
      "git show --stat --oneline",
      "git cat-file -t HEAD",
      "git cat-file -e HEAD",
      "git log -i --grep=x --oneline",
      "git add -u",
      "git stash -u -q && git stash pop -q",
      "git worktree list",
      "git rev-parse HEAD",
      "git branch -a",
      "git tag -l",
      "git ls-files",
      "git commit -q --allow-empty -m empty",
      "git reflog",
      "git stage --dry-run src/app.ts",
      "git bundle list-heads ../none.bundle || true",
      "git clone -q https://127.0.0.1:9/none.git ../remote || true",
      "git clone -q -b main --depth 1 https://127.0.0.1:9/none.git ../remote || true",
    ])
      await expectRunsWithoutTheToken(s, line);
    expect((await s.command("git diff -- src")).text).toContain("export const a = 1;");
  });

  it("git commands that print no denied file's content still run", async () => {
    const s = await repository();
    for (const line of [
      "git log --oneline",
      "git show --stat",
      "git show HEAD:src/app.ts",
      "git grep export -- src",
      "git status",
    ])
      await expectRunsWithoutTheToken(s, line);
  });
});

describe("an Edit deny rule holds against archivers that delete what they archive (yolo)", () => {
  for (const line of [
    "tar -cf x.tar --remove-files src",
    "tar cf x.tar src --remove-files",
    "zip -qrm x.zip src",
    "zip -qr --move x.zip src",
    "rsync -r --remove-source-files src/ ../out/",
    "7z a -sdel x.7z src",
  ])
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const s = await session({
        mode: "yolo",
        files: SECRET,
        settings: { permissions: { deny: ["Edit(src/**)"] } },
      });
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(result.text).toMatch(/^Denied by rule deny Edit\(src\/\*\*\) \(settings given to Gantry\)/);
      expect(s.exists("src/app.ts")).toBe(true);
    });

  it("archiving the folder without removing it runs", async () => {
    const s = await session({
      mode: "yolo",
      files: SECRET,
      settings: { permissions: { deny: ["Edit(src/**)"] } },
    });
    for (const line of ["tar -cf x.tar src", "zip -qr x.zip src || true"]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
    }
    expect(s.exists("src/app.ts")).toBe(true);
  });
});
