import { describe, expect, it } from "vitest";
import { DENY_READ, expectReadDenied, expectRunsWithoutTheToken, SECRET } from "./secret-dir.js";
import { committed, policySessions } from "./session-support.js";

const session = policySessions();

/**
 * Code that names the denied file inside a command it runs, or a script piped into a shell or an
 * interpreter: each printed the token in yolo with only the Read deny rule set.
 */
const CODE_ROUTES = [
  // a shell command inside an interpreter's code (a literal with spaces in it)
  `python3 -c 'import os; os.system("cat secret-dir/token.txt")'`,
  `python3 -c 'import subprocess; subprocess.run("cat secret-dir/token.txt", shell=True)'`,
  `node -e 'require("child_process").execSync("cat secret-dir/token.txt", { stdio: "inherit" })'`,
  `awk 'BEGIN { system("cat secret-dir/token.txt") }'`,
  `perl -e 'system("cat secret-dir/token.txt")'`,
  // programs whose words are code of their own: SQL and dot commands, ex commands, makefile lines
  `sqlite3 :memory: ".read secret-dir/token.txt"`,
  `sqlite3 :memory: "select readfile('secret-dir/token.txt')"`,
  `sqlite3 :memory: ".shell cat secret-dir/token.txt"`,
  `vim -es -c '!cat secret-dir/token.txt' -c q`,
  `make -f /dev/null --eval 'x: ; @cat secret-dir/token.txt' x`,
  // a script or program known only when it runs
  "echo cat secret-dir/token.txt | sh",
  "printf 'cat secret-dir/token.txt\\n' | bash",
  `echo 'print(open("secret-" + "dir/token.txt").read())' | python3`,
  "echo '.shell cat secret-dir/token.txt' | sqlite3",
  `c="cat secret-dir/token.txt"; eval "$c"`,
  `bash -c "$(echo cat secret-dir/token.txt)"`,
];

describe("deny Read(./secret-dir/**) holds against code that names the file or is known only when it runs (yolo)", () => {
  for (const line of CODE_ROUTES) {
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
      expectReadDenied(await s.command(line));
    });
  }

  it("says a script known only when it runs could read what the rule forbids", async () => {
    const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
    const result = await s.command("echo cat secret-dir/token.txt | sh");
    expect(result.text).toBe(
      'Denied by rule deny Read(./secret-dir/**) (settings given to Gantry): "sh": it runs a script it reads from a pipe, known only when it runs, so it could be what rule deny Read(./secret-dir/**) (settings given to Gantry) forbids. Write it out literally',
    );
  });

  it("the same code on other files runs, and a piped script runs where no deny rule could be slipped past", async () => {
    const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
    for (const line of [
      `python3 -c 'import os; os.system("cat src/app.ts")'`,
      `awk 'BEGIN { system("echo a.b c/d") }'`,
      `python3 -c 'print("x.y", "a b/c")'`,
    ])
      await expectRunsWithoutTheToken(s, line);
    const free = await session({ mode: "yolo", files: SECRET });
    for (const line of ["echo cat src/app.ts | sh", `c="cat src/app.ts"; eval "$c"`]) {
      expect((await expectRunsWithoutTheToken(free, line)).text).toContain("export {};");
    }
  });

  it("a piped script still asks in default mode, naming the rule it could slip past", async () => {
    const s = await session({ mode: "default", files: SECRET, settings: DENY_READ });
    expect((await s.command("echo cat secret-dir/token.txt | sh")).errorCode).toBe("denied");
    expect(s.asked[0]?.decision.reason).toContain("could be what rule deny Read(./secret-dir/**)");
  });
});

describe("git -C moves where git's ./ and ../ paths and pathspecs lead (yolo, a committed secret-dir)", () => {
  const repository = async () =>
    committed(await session({ mode: "yolo", files: SECRET, settings: DENY_READ }));
  for (const line of [
    "git -C secret-dir show HEAD:./token.txt",
    "git -C src show HEAD:../secret-dir/token.txt",
    "git -C src -C ../secret-dir show :./token.txt",
    "git -C secret-dir log -p -- ./token.txt",
    "git -C src grep TOKEN -- ../secret-dir",
  ]) {
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const s = await repository();
      expectReadDenied(await s.command(line));
    });
  }

  it("git -C on other paths still runs", async () => {
    const s = await repository();
    for (const line of ["git -C src show HEAD:./app.ts", "git -C src log -p --oneline -- ./app.ts"]) {
      expect((await expectRunsWithoutTheToken(s, line)).text).toContain("export {};");
    }
  });
});

describe("files a program reads through an option, and code fed on standard input (yolo)", () => {
  for (const line of [
    // programs that only name paths, except with these options: the lines show in their errors
    "file -f secret-dir/token.txt",
    "du --files0-from=secret-dir/token.txt",
    "date -f secret-dir/token.txt",
    "date -I -f secret-dir/token.txt",
    // code in a heredoc or a here-string
    `python3 <<< 'print(open("secret-dir/token.txt").read())'`,
    `python3 -c 'exec(open("/dev/stdin").read())' <<< 'print(open("secret-dir/token.txt").read())'`,
    "python3 - <<'EOF'\nimport os\nos.system('cat secret-dir/token.txt')\nEOF",
    `sqlite3 :memory: <<< '.shell cat secret-dir/token.txt'`,
    `sqlite3 :memory: ".print hi" "select readfile('secret-dir/token.txt')"`,
  ]) {
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
      expectReadDenied(await s.command(line));
    });
  }

  it("the same programs without those options, and fed code naming other files, run", async () => {
    const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
    for (const line of [
      "file secret-dir/token.txt || true",
      "du -s secret-dir",
      "date -d @0 +%Y",
      `python3 <<< 'print(open("src/app.ts").read())'`,
    ]) {
      await expectRunsWithoutTheToken(s, line);
    }
  });
});

describe("variables that make a program load a file or run code name what it reads (yolo)", () => {
  for (const line of [
    "INPUTRC=secret-dir/token.txt bash -i < /dev/null",
    "MAGIC=secret-dir/token.txt file src/app.ts",
    "WGETRC=secret-dir/token.txt wget -q -O /dev/null http://127.0.0.1:9/ || true",
    `PERL5DB='BEGIN { system("cat secret-dir/token.txt") }' perl -d -e 1`,
    "VIMINIT='!cat secret-dir/token.txt' vim -es -c q",
  ])
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
      expectReadDenied(await s.command(line));
    });

  it("the same variables naming other files run", async () => {
    const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
    await expectRunsWithoutTheToken(s, "INPUTRC=src/app.ts bash -c true");
  });
});

describe("input sent to an interpreter's task is judged as a command line (yolo)", () => {
  it("code that does not parse as a shell line could read anything: refused while a Read deny rule exists", async () => {
    const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
    const started = await s.command("python3 -i -q", { WaitMsBeforeAsync: 0 });
    const TaskId = started.metadata.taskId as string;
    expect(TaskId, started.text).toBeDefined();
    const send = (Input: string) => s.run("manage_task", { Action: "send_input", TaskId, Input });
    const built = await send('print(open("secret-dir/" + "token.txt").read())\n');
    expectReadDenied(built);
    expect(built.text).toContain("it does not parse as a shell command");
    expectReadDenied(await send("import secret-dir/token.txt\n"));
    const fed = await send("x = 42\n");
    expect(fed.error, fed.text).toBe(false);
  });
});

describe("the names in a denied folder, listed by a glob or du (yolo)", () => {
  for (const line of [
    "echo secret-dir/*",
    "printf '%s\\n' secret-dir/*",
    "stat -c %n secret-dir/*",
    "for f in secret-dir/*; do echo $f; done",
    "a=(secret-dir/*); echo ${a[@]}",
    "du -a secret-dir",
    "du secret-dir",
  ])
    it(`refuses ${JSON.stringify(line)}, as ls secret-dir is`, async () => {
      const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
      const result = await s.command(line);
      expectReadDenied(result);
      expect(result.text).not.toContain("token.txt\n");
    });

  it("globs and du elsewhere run, and du -s of the denied folder names only it", async () => {
    const s = await session({ mode: "yolo", files: SECRET, settings: DENY_READ });
    for (const line of [
      "echo src/*",
      "for f in src/*; do echo $f; done",
      "for d in */; do echo $d; done",
      "echo src/*/",
      "du -a src",
      "du -s secret-dir",
    ])
      await expectRunsWithoutTheToken(s, line);
  });
});
