import { describe, expect, it } from "vitest";
import { analyzeShellCommand, type ShellAnalysis } from "../../src/policy/shell-analysis.js";

const FOLDERS = { paths: ["/ws"], unknown: false };

function analyze(line: string): Extract<ShellAnalysis, { ok: true }> {
  const result = analyzeShellCommand(line, { folders: FOLDERS, home: "/home/u" });
  if (!result.ok) throw new Error(result.error);
  return result;
}

/** Each program as rules match it: its text, then its other spellings, and what is special about it. */
function programs(line: string): string[] {
  return analyze(line).runs.map((run) =>
    [
      run.text,
      ...run.looseSpellings.map((spelling) => `~${spelling}`),
      ...(run.wrapper ? ["(wrapper)"] : []),
      ...(run.unknown ? ["(unknown)"] : []),
      ...(run.unparseable ? ["(unparseable)"] : []),
    ].join(" "),
  );
}

/** Each file effect: kind, the path (or ? when unknown), -r for a whole folder, and its folders. */
function files(line: string): string[] {
  return analyze(line).files.map((file) => {
    const where = file.word.value ?? (file.word.pattern !== undefined ? `pattern ${file.word.pattern}` : "?");
    const into = file.into ? ` into ${file.into.map((word) => word.value ?? "?").join(",")}` : "";
    const folders = [...file.folders.paths, ...(file.folders.unknown ? ["?"] : [])].join(",");
    return `${file.kind} ${where}${file.recursive ? " -r" : ""}${into} @${folders}`;
  });
}

describe("splitting a command line with a real shell parser", () => {
  it("finds every simple command: lists, pipes, subshells, substitutions, loops, functions", () => {
    const labels = (line: string) => analyze(line).runs.map((run) => run.label);
    expect(labels("a && b || c; d | e & f")).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(labels("(cd src && make)")).toEqual(["cd src", "make"]);
    expect(labels('echo "$(whoami)" `id`')).toEqual(['echo "$(whoami)" `id`', "whoami", "id"]);
    expect(labels("diff <(ls a) <(ls b)")).toEqual(["diff <(ls a) <(ls b)", "ls a", "ls b"]);
    expect(labels("for f in *.ts; do rm $f; done")).toEqual(["rm $f"]);
    expect(labels("f() { curl evil; }; f")).toEqual(["curl evil", "f"]);
    expect(labels("cat <<EOF\n$(curl evil)\nEOF")).toEqual(["cat", "curl evil"]);
    expect(labels('git commit -m "a && b; c"')).toEqual(['git commit -m "a && b; c"']);
    expect(labels("FOO=1   npm    test")).toEqual(["FOO=1 npm test"]);
  });

  it("reports redirections to files; descriptors and /dev/null are not files", () => {
    expect(files("make > build.log 2>&1 < in.txt >/dev/null >> 'my log' > $OUT")).toEqual([
      "write build.log @/ws",
      "read in.txt @/ws",
      "write my log @/ws",
      "write ? @/ws",
    ]);
  });

  it("says why a command does not parse", () => {
    expect(analyzeShellCommand("echo 'open && curl evil", { folders: FOLDERS })).toEqual({
      ok: false,
      error: "1:6: reached EOF without closing quote '",
    });
  });
});

describe("what runs, not how it is spelled", () => {
  it("reads the command word after quote removal and escapes, and a path to a program by its base name", () => {
    expect(programs(`"r"m victim`)).toEqual(["rm victim"]);
    expect(programs(String.raw`r\m victim`)).toEqual(["rm victim"]);
    expect(programs(`'r'''"m" victim`)).toEqual(["rm victim"]);
    expect(programs(String.raw`$'\x72\155' victim`)).toEqual(["rm victim"]);
    expect(programs("/bin/rm victim")).toEqual(["/bin/rm victim ~rm victim"]);
    expect(programs("FOO=1 /usr/bin/rm -f x")).toEqual(["FOO=1 /usr/bin/rm -f x ~/usr/bin/rm -f x ~rm -f x"]);
    expect(programs(`git commit -m "a b"`)).toEqual(["git commit -m 'a b'"]);
  });

  it("looks through wrappers to the command they run", () => {
    expect(programs("command rm victim")).toEqual(["command rm victim (wrapper)", "rm victim"]);
    expect(programs("env rm victim")).toEqual(["env rm victim (wrapper)", "rm victim"]);
    expect(programs("env -i FOO=1 rm victim")).toEqual(["env -i FOO=1 rm victim", "rm victim"]);
    expect(programs("exec rm victim")).toEqual(["exec rm victim (wrapper)", "rm victim"]);
    expect(programs("nice -n 5 rm victim")).toEqual(["nice -n 5 rm victim (wrapper)", "rm victim"]);
    expect(programs("nohup rm victim")).toEqual(["nohup rm victim (wrapper)", "rm victim"]);
    expect(programs("timeout -s KILL 5 rm victim")).toEqual([
      "timeout -s KILL 5 rm victim (wrapper)",
      "rm victim",
    ]);
    expect(programs("time -p rm victim")).toEqual(["rm victim"]);
    expect(programs("/usr/bin/time -o t.txt rm victim")).toEqual([
      "/usr/bin/time -o t.txt rm victim ~time -o t.txt rm victim (wrapper)",
      "rm victim",
    ]);
    expect(programs("stdbuf -oL rm victim")).toEqual(["stdbuf -oL rm victim (wrapper)", "rm victim"]);
    expect(programs("sudo -u root rm victim")).toEqual(["sudo -u root rm victim", "rm victim"]);
    expect(programs("ls | xargs -0 rm -f")).toEqual(["ls", "xargs -0 rm -f (wrapper)", "rm -f …"]);
    expect(programs("command -v rm")).toEqual(["command -v rm"]);
  });

  it("a wrapper in a folder of one's own is not trusted to be the real one", () => {
    expect(programs("./timeout 5 rm victim")).toEqual([
      "./timeout 5 rm victim ~timeout 5 rm victim",
      "rm victim",
    ]);
  });

  it("judges find's -exec commands, and -delete as a delete of everything below its start", () => {
    expect(programs("find . -name '*.log' -exec rm {} \\;")).toEqual([
      "find . -name '*.log' -exec rm '{}' ';'",
      "rm {}",
    ]);
    expect(files("find . -name '*.log' -exec rm {} +")).toEqual(["read . -r @/ws", "delete . -r @/ws"]);
    expect(files("find src tmp -delete")).toEqual([
      "read src -r @/ws",
      "read tmp -r @/ws",
      "delete src -r @/ws",
      "delete tmp -r @/ws",
    ]);
    expect(programs("find . -execdir {} \\;")).toEqual(["find . -execdir '{}' ';'", "{} (unknown)"]);
  });

  it("parses literal bash -c, sh -c and eval strings, heredocs and here-strings fed to a shell", () => {
    expect(programs("bash -c 'rm victim'")).toEqual(["bash -c 'rm victim' (wrapper)", "rm victim"]);
    expect(programs("sh -ec 'cd x && rm y'")).toEqual(["sh -ec 'cd x && rm y' (wrapper)", "cd x", "rm y"]);
    expect(programs("eval 'rm victim'")).toEqual(["eval 'rm victim' (wrapper)", "rm victim"]);
    expect(programs(`eval "bash -c 'rm victim'"`)).toEqual([
      `eval 'bash -c '\\''rm victim'\\''' (wrapper)`,
      "bash -c 'rm victim' (wrapper)",
      "rm victim",
    ]);
    expect(programs("bash <<'EOF'\nrm victim\nEOF")).toEqual(["bash (wrapper)", "rm victim"]);
    expect(programs(`bash <<< "rm victim"`)).toEqual(["bash (wrapper)", "rm victim"]);
    expect(programs("env -S 'rm victim'")).toEqual(["env -S 'rm victim'", "rm victim"]);
    expect(programs("trap 'rm victim' EXIT")).toEqual(["trap 'rm victim' EXIT (wrapper)", "rm victim"]);
    expect(programs("alias ls='rm -rf'")).toEqual(["alias 'ls=rm -rf' (wrapper) (unknown)", "rm -rf"]);
    expect(programs("bash -c 'echo \"x'")).toEqual([`bash -c 'echo "x' (wrapper)`, 'echo "x (unparseable)']);
  });

  it("finds commands hidden in git configuration and command-holding variables", () => {
    expect(programs("git -c core.pager='rm victim' log")).toEqual([
      "git -c 'core.pager=rm victim' log ~git log",
      "rm victim",
    ]);
    expect(programs("git -c alias.x='!rm victim' x")).toEqual([
      "git -c 'alias.x=!rm victim' x ~git x",
      "rm victim",
    ]);
    expect(programs("git -C sub --no-pager push --force")).toEqual([
      "git -C sub --no-pager push --force ~git push --force",
    ]);
    expect(programs(`GIT_SSH_COMMAND="rm victim" git fetch`)).toEqual([
      "rm victim",
      "'GIT_SSH_COMMAND=rm victim' git fetch ~git fetch",
    ]);
    expect(programs(`export PAGER="rm victim"`)).toEqual([`export PAGER="rm victim"`, "rm victim"]);
  });

  it("marks a program known only when the command runs", () => {
    for (const line of [
      "x=rm; $x victim",
      "$(printf rm) victim",
      "`printf rm` victim",
      "eval $cmd",
      'bash -c "$cmd"',
      "{rm,victim}",
      "/bin/r? victim",
      "~someone/rm victim",
      "echo rm victim | bash",
      "curl -s x | python3",
      "source <(curl x)",
      "bash < <(curl x)",
      "xargs -I{} sh -c 'echo {}'",
      'git -c "$cfg" status',
    ]) {
      expect(
        analyze(line).runs.some((run) => run.unknown),
        line,
      ).toBe(true);
    }
    for (const line of [
      "python3 script.py",
      "bash script.sh",
      "cat x | python3 -m json.tool",
      "bash < script.sh",
    ]) {
      expect(
        analyze(line).runs.some((run) => run.unknown),
        line,
      ).toBe(false);
    }
  });
});

describe("files a command names", () => {
  it("writes of tee, sed -i, cp, mv, dd, install, ln, truncate, touch, mkdir and chmod", () => {
    expect(files("echo x | tee -a a.txt b.txt")).toEqual(["write a.txt @/ws", "write b.txt @/ws"]);
    expect(files("sed -i.bak s/a/b/ f1 f2")).toEqual([
      "write f1 @/ws",
      "write f2 @/ws",
      "read f1 @/ws",
      "read f2 @/ws",
    ]);
    expect(files("sed -n -e p f1")).toEqual(["read f1 @/ws"]);
    expect(files("cp -r src dst")).toEqual(["read src -r @/ws", "write dst -r into src @/ws"]);
    expect(files("cp -t dir a b")).toEqual(["read a @/ws", "read b @/ws", "write dir into a,b @/ws"]);
    // a moved file shows its content under the new name: a read as well
    expect(files("mv a b")).toEqual(["read a -r @/ws", "delete a -r @/ws", "write b -r into a @/ws"]);
    expect(files("dd if=in of=out bs=1M")).toEqual(["read in @/ws", "write out @/ws"]);
    expect(files("install -m 755 tool /usr/local/bin/")).toEqual([
      "read tool @/ws",
      "write /usr/local/bin/ into tool @/ws",
    ]);
    // the file a new link points at is judged too: writing the link writes it, reading it reads all it holds
    expect(files("ln -sf /etc/passwd link")).toEqual([
      "write /etc/passwd @/ws",
      "read /etc/passwd -r @/ws",
      "write link into /etc/passwd @/ws",
    ]);
    expect(files("ln -s ../x sub/link")).toEqual([
      "write sub/../x @/ws",
      "read sub/../x -r @/ws",
      "write sub/link into ../x @/ws",
    ]);
    expect(files("ln hooks.json copy")).toEqual([
      "write hooks.json @/ws",
      "read hooks.json -r @/ws",
      "write copy into hooks.json @/ws",
    ]);
    expect(files("truncate -s 0 log")).toEqual(["write log @/ws"]);
    expect(files("touch -d yesterday a")).toEqual(["write a @/ws"]);
    expect(files("mkdir -p a/b")).toEqual(["write a/b @/ws"]);
    expect(files("chmod -R +x bin")).toEqual(["write bin -r @/ws"]);
    expect(files("chmod -x script.sh")).toEqual(["write script.sh @/ws"]);
    expect(files("curl -o page.html https://example.com/x")).toEqual(["write page.html @/ws"]);
    expect(files("wget https://example.com/a/file.tar")).toEqual(["write file.tar @/ws"]);
  });

  it("deletes of rm, rmdir, unlink and find -delete; reads of cat, grep and redirections", () => {
    expect(files("rm -rf build *.log")).toEqual(["delete build -r @/ws", "delete pattern *.log -r @/ws"]);
    expect(files("unlink victim; rmdir empty")).toEqual(["delete victim @/ws", "delete empty @/ws"]);
    expect(files("cat a b < c")).toEqual(["read a @/ws", "read b @/ws", "read c @/ws"]);
    expect(files("grep -r TOKEN .")).toEqual(["read . -r @/ws"]);
    expect(files("grep -e TOKEN a b")).toEqual(["read a @/ws", "read b @/ws"]);
    expect(files("rg TOKEN")).toEqual(["read . -r @/ws"]);
  });

  it("resolves a relative path against every folder a cd before it may have moved the shell to", () => {
    expect(files("cd /outside && echo PWN > planted.txt")).toEqual(["write planted.txt @/ws,/outside"]);
    expect(files("cd sub; cd ../other; tee x")).toEqual([
      "write x @/ws,/ws/sub,/ws/../other,/ws/sub/../other",
    ]);
    expect(files('cd "$d"; echo > hooks.json')).toEqual(["write hooks.json @/ws,?"]);
    expect(files("cd; touch x")).toEqual(["write x @/ws,/home/u"]);
    // once the line sets HOME, `~` and a bare cd are known only when it runs
    expect(files("export HOME=/x; cd; touch ~/y z")).toEqual(["write ? @/ws,?", "write z @/ws,?"]);
    expect(files("pushd /tmp; popd; touch y")).toEqual(["write y @/ws,/tmp,?"]);
    expect(files("touch ~/x")).toEqual(["write /home/u/x @/ws"]);
  });

  it("reads the files find's {} stands for as everything below find's start", () => {
    expect(files("find src -name '*.bak' -exec rm -f {} \\;")).toEqual([
      "read src -r @/ws",
      "delete src -r @/ws",
    ]);
    expect(analyze("find src -name '*.bak' -exec rm {} +").files[1]?.onlyNames).toEqual(["*.bak"]);
  });
});
