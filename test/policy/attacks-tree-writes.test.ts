import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  committed,
  itRefusesPastDenyRm,
  type PolicySession,
  type PolicySessionOptions,
  policySessions,
} from "./session-support.js";

/**
 * Commands that change the working tree without naming the files they change: git's resets,
 * checkouts, stashes, cleans and merges, and patches. Each changed a protected file or one under an
 * Edit deny rule in yolo before Gantry judged the files they change.
 */
const session = policySessions();

// the commands the agent runs commit (stash, cherry-pick, revert, am): they need an identity
for (const role of ["AUTHOR", "COMMITTER"]) {
  process.env[`GIT_${role}_NAME`] = "t";
  process.env[`GIT_${role}_EMAIL`] = "t@t";
}

const HOOKS = '{"hooks":{}}\n';
const FILES = {
  ".agents/hooks.json": HOOKS,
  ".claude/settings.json": "{}\n",
  "src/app.ts": "export const a = 1;\n",
  "src/locked/key.txt": "locked\n",
};

function git(s: PolicySession, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
    cwd: s.ws.root,
  }).toString();
}

const hooks = (s: PolicySession) => readFileSync(path.join(s.ws.root, ".agents/hooks.json"), "utf8");

/**
 * A repository with every file committed, a branch `evil` whose commit deletes the hooks file and the
 * locked key, and a branch `unlock` whose commit deletes the key alone.
 */
async function repository(options: Partial<PolicySessionOptions> = {}): Promise<PolicySession> {
  const s = committed(await session({ mode: "yolo", files: FILES, ...options }));
  git(s, "branch", "-q", "-M", "main");
  git(s, "checkout", "-q", "-b", "evil");
  git(s, "rm", "-q", ".agents/hooks.json", "src/locked/key.txt");
  git(s, "commit", "-qm", "drop the guard");
  git(s, "checkout", "-q", "-b", "unlock", "main");
  git(s, "rm", "-q", "src/locked/key.txt");
  git(s, "commit", "-qm", "drop the key");
  git(s, "checkout", "-q", "main");
  return s;
}

/** The user's own change to the hooks file, not yet committed: the agent may not throw it away. */
async function editedByTheUser(): Promise<PolicySession> {
  const s = await repository();
  writeFileSync(path.join(s.ws.root, ".agents/hooks.json"), '{"hooks":{"Stop":[]}}\n');
  return s;
}

function expectProtected(result: { errorCode?: string; text: string }): void {
  expect(result.errorCode, result.text).toBe("denied");
  expect(result.text).toMatch(/^Denied by protected files \(\.agents\/hooks\.json\)/);
}

describe("git commands that change the tree are judged by the files they change (yolo)", () => {
  for (const line of [
    "git reset -q --hard evil",
    "git checkout -q -f evil",
    "git checkout -q evil",
    "git switch -q -f evil",
    "git switch -q evil",
    "git switch -q -c other evil",
    "git merge -q evil",
    "git cherry-pick evil",
    "git restore --source=evil .",
    "git restore -s evil -- .agents",
    "git checkout evil -- .",
    "git checkout evil .agents",
    "git rm -rq .agents",
    "git mv .agents elsewhere",
    "git -C src reset -q --hard evil",
    "cd src && git reset -q --hard evil",
  ]) {
    it(`refuses ${JSON.stringify(line)}, which deletes the hooks file`, async () => {
      const s = await repository();
      expectProtected(await s.command(line));
      expect(hooks(s)).toBe(HOOKS);
    });
  }

  for (const line of [
    "git reset -q --hard",
    "git reset -q --hard HEAD",
    "git checkout -q -f",
    "git checkout -- .",
    "git checkout .",
    "git checkout -q -f main",
    "git restore .",
    "git restore .agents/hooks.json",
    "git stash -q",
    "git stash push -q -- .agents",
    "git switch -q --discard-changes main",
    "git checkout-index -a -f",
  ]) {
    it(`refuses ${JSON.stringify(line)}, which throws away the user's edit of the hooks file`, async () => {
      const s = await editedByTheUser();
      expectProtected(await s.command(line));
      expect(hooks(s)).toBe('{"hooks":{"Stop":[]}}\n');
    });
  }

  it("refuses git stash pop of a stash that changes the hooks file", async () => {
    const s = await editedByTheUser();
    git(s, "stash", "-q");
    const result = await s.command("git stash pop -q");
    expectProtected(result);
    expect(hooks(s)).toBe(HOOKS);
  });

  it("refuses a revert of the commit that added the hooks file", async () => {
    const s = await repository();
    const result = await s.command("git revert --no-edit HEAD");
    expectProtected(result);
    expect(hooks(s)).toBe(HOOKS);
  });

  it("says which file the command would change and which command", async () => {
    const s = await repository();
    const result = await s.command("git reset -q --hard evil");
    expect(result.text).toMatch(
      /^Denied by protected files \(\.agents\/hooks\.json\): "\.agents\/hooks\.json \(a file "git reset -q --hard evil" changes\)" would change \.agents\/hooks\.json/,
    );
  });
});

describe("git clean and git stash -u are judged by the untracked files they remove (yolo)", () => {
  /** The hooks file untracked: only the code is committed. */
  async function untrackedHooks(): Promise<PolicySession> {
    const s = await session({
      mode: "yolo",
      files: { ...FILES, ".gitignore": ".claude/settings.local.json\n" },
    });
    git(s, "init", "-q");
    git(s, "add", "src", ".gitignore");
    git(s, "commit", "-qm", "code");
    return s;
  }

  for (const line of [
    "git clean -fdx",
    "git clean -f -d",
    "git clean -ffd",
    "git clean --force -d .agents",
    "git clean -fd -- .agents/hooks.json",
    "git stash -u -q",
    "git stash --include-untracked -q",
    "git stash push -a -q",
    "cd src && git clean -fdx ..",
  ]) {
    it(`refuses ${JSON.stringify(line)} when the hooks file is untracked`, async () => {
      const s = await untrackedHooks();
      expectProtected(await s.command(line));
      expect(hooks(s)).toBe(HOOKS);
    });
  }

  it("removes other untracked files, and leaves what is ignored without -x", async () => {
    const s = await repository({ files: { ...FILES, ".gitignore": "*.local.json\n" } });
    writeFileSync(path.join(s.ws.root, "junk.txt"), "junk\n");
    writeFileSync(path.join(s.ws.root, ".claude/settings.local.json"), "{}\n");
    const result = await s.command("git clean -fd");
    expect(result.errorCode, result.text).toBeUndefined();
    expect(s.exists("junk.txt")).toBe(false);
    expect(s.exists(".claude/settings.local.json")).toBe(true);
    // -X removes only what is ignored: the local settings file
    expectLocalSettingsRefused(await s.command("git clean -fdX"));
    expect(s.exists(".claude/settings.local.json")).toBe(true);
  });

  it("dry runs and index-only commands still run", async () => {
    const s = await untrackedHooks();
    for (const line of [
      "git clean -n -d",
      "git clean -fdn",
      "git clean --dry-run -x",
      "git rm -rq --cached src",
    ]) {
      const result = await s.command(line);
      expect(result.errorCode, `${line}: ${result.text}`).toBeUndefined();
    }
    expect(hooks(s)).toBe(HOOKS);
  });
});

function expectLocalSettingsRefused(result: { errorCode?: string; text: string }): void {
  expect(result.errorCode, result.text).toBe("denied");
  expect(result.text).toMatch(/^Denied by protected files \(\.claude\/settings\.local\.json\)/);
}

describe("patches are judged by the files they name (yolo)", () => {
  const CREATE_HOOKS = [
    "diff --git a/.agents/hooks.json b/.agents/hooks.json",
    "--- a/.agents/hooks.json",
    "+++ b/.agents/hooks.json",
    "@@ -1 +1 @@",
    '-{"hooks":{}}',
    '+{"hooks":{"Stop":[]}}',
    "",
  ].join("\n");
  const PLAIN = [
    "--- .agents/hooks.json",
    "+++ .agents/hooks.json",
    "@@ -1 +1 @@",
    '-{"hooks":{}}',
    '+{"x":1}',
    "",
  ].join("\n");

  async function withPatch(name: string, text: string): Promise<PolicySession> {
    const s = await repository({ files: { ...FILES, [name]: text } });
    return s;
  }

  for (const line of [
    "git apply x.patch",
    "git apply --index x.patch",
    "git apply -R -R x.patch",
    "git am x.patch",
    "git apply < x.patch",
    "patch -p1 < x.patch",
    "patch -p1 -i x.patch",
    "patch --input=x.patch -p1",
    "patch -s -p1 --forward < x.patch",
    "cd src && patch -p1 -d .. < ../x.patch",
  ]) {
    it(`refuses ${JSON.stringify(line)}, which changes the hooks file`, async () => {
      const s = await withPatch("x.patch", CREATE_HOOKS);
      expectProtected(await s.command(line));
      expect(hooks(s)).toBe(HOOKS);
    });
  }

  it("refuses patch without -p, which may take each name's base name or the whole", async () => {
    const s = await withPatch("x.patch", PLAIN);
    writeFileSync(path.join(s.ws.root, "y.patch"), PLAIN.replaceAll(" .agents", " x/.agents"));
    expectProtected(await s.command("patch -p0 < x.patch"));
    expectProtected(await s.command("patch < x.patch"));
    expectProtected(await s.command("patch -p1 < y.patch"));
    expect(hooks(s)).toBe(HOOKS);
  });

  it("refuses a patch from a heredoc, and one written or piped in the same line", async () => {
    const s = await repository();
    expectProtected(await s.command(`git apply <<'EOF'\n${CREATE_HOOKS}EOF`));
    const written = await s.command(`printf '%s' '${CREATE_HOOKS}' > y.patch && git apply y.patch`);
    expect(written.errorCode, written.text).toBe("denied");
    const piped = await s.command(`printf '%s' '${CREATE_HOOKS}' | git apply`);
    expect(piped.errorCode, piped.text).toBe("denied");
    expect(hooks(s)).toBe(HOOKS);
  });

  it("runs patches of other files, checks of any patch, and patches written elsewhere", async () => {
    const other = CREATE_HOOKS.replaceAll(".agents/hooks.json", "src/app.ts")
      .replace('-{"hooks":{}}', "-export const a = 1;")
      .replace('+{"hooks":{"Stop":[]}}', "+export const a = 2;");
    const s = await repository({ files: { ...FILES, "ok.patch": other, "x.patch": CREATE_HOOKS } });
    for (const line of [
      "git apply --check x.patch",
      "git apply --stat x.patch",
      "git apply --cached x.patch",
    ]) {
      const result = await s.command(line);
      expect(result.errorCode, `${line}: ${result.text}`).toBeUndefined();
    }
    git(s, "reset", "-q");
    const applied = await s.command("git apply ok.patch");
    expect(applied.errorCode, applied.text).toBeUndefined();
    expect(readFileSync(path.join(s.ws.root, "src/app.ts"), "utf8")).toBe("export const a = 2;\n");
    const dry = await s.command("patch -p1 --dry-run < x.patch");
    expect(dry.errorCode, dry.text).toBeUndefined();
    expect(hooks(s)).toBe(HOOKS);
  });
});

describe("an Edit deny rule holds against commands that change the tree (yolo)", () => {
  const DENY_LOCKED = { permissions: { deny: ["Edit(./src/locked/**)"] } };

  for (const line of ["git reset -q --hard unlock", "git checkout -q unlock", "git checkout unlock -- src"]) {
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const s = await repository({ settings: DENY_LOCKED });
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(result.text).toMatch(/^Denied by rule deny Edit\(\.\/src\/locked\/\*\*\)/);
      expect(s.exists("src/locked/key.txt")).toBe(true);
    });
  }

  it("refuses git checkout -- . over a change in the denied folder, and git clean of a new file there", async () => {
    const s = await repository({ settings: DENY_LOCKED });
    writeFileSync(path.join(s.ws.root, "src/locked/key.txt"), "changed\n");
    writeFileSync(path.join(s.ws.root, "src/locked/new.txt"), "new\n");
    for (const line of ["git checkout -- .", "git stash -q", "git clean -fd", "git clean -f src"]) {
      const result = await s.command(line);
      expect(result.errorCode, `${line}: ${result.text}`).toBe("denied");
    }
    expect(readFileSync(path.join(s.ws.root, "src/locked/key.txt"), "utf8")).toBe("changed\n");
    expect(s.exists("src/locked/new.txt")).toBe(true);
  });
});

describe("deny Bash(rm:*) holds against git clean (yolo)", () => {
  itRefusesPastDenyRm(session, {
    lines: ["git clean -fd", "git clean -fx", "git clean -f victim"],
    files: { "src/app.ts": "x\n", victim: "keep me\n" },
    prepare: (s) => {
      execFileSync("git", ["init", "-q"], { cwd: s.ws.root });
    },
  });
});

describe("everyday git commands in a repository with protected files still run (yolo)", () => {
  it("branches, switches, resets and stashes that leave the protected files alone", async () => {
    const s = await repository();
    git(s, "checkout", "-q", "-b", "feature");
    writeFileSync(path.join(s.ws.root, "src/app.ts"), "export const a = 2;\n");
    git(s, "commit", "-qam", "feature");
    git(s, "checkout", "-q", "main");
    git(s, "branch", "-q", "fetched", "main");
    for (const line of [
      "git checkout -q -b topic",
      "git switch -q main",
      "git switch -q -c topic2",
      "git checkout -q main",
      "git merge -q --no-edit feature",
      "git reset -q --hard HEAD~1",
      "git checkout -q feature -- src/app.ts",
      "git reset -q --hard",
      "git checkout -q -",
      "git checkout -q main",
      "echo x >> src/app.ts && git stash -q && git stash pop -q",
      "git restore src/app.ts",
      "git clean -fdx",
      "git cherry-pick feature",
      "git stash -q && git status --short && git stash pop -q",
      "git fetch -q . main && git reset -q --hard fetched",
      "git status --short",
    ]) {
      const result = await s.command(line);
      expect(result.errorCode, `${line}: ${result.text}`).toBeUndefined();
    }
    expect(hooks(s)).toBe(HOOKS);
  });
});

describe("what git holds is asked safely, and only when it still tells (yolo)", () => {
  it("refuses a tree change after git plumbing in the same line that put other content in the index", async () => {
    const s = await repository();
    const evil = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: s.ws.root, input: '{"x":1}\n' })
      .toString()
      .trim();
    for (const line of [
      `git update-index --cacheinfo 100644,${evil},.agents/hooks.json && git checkout -- .agents`,
      `git update-index --cacheinfo 100644,${evil},.agents/hooks.json && git checkout-index -a -f`,
      "git branch -f main evil && git reset -q --hard main",
      "git commit -q --allow-empty -m x && git reset -q --hard HEAD~1",
    ]) {
      const result = await s.command(line);
      expect(result.errorCode, `${line}: ${result.text}`).toBe("denied");
      expect(result.text).toContain("changes what git holds; run it as a command of its own");
    }
    expect(hooks(s)).toBe(HOOKS);
  });

  it("runs none of the repository's own git commands while asking git", async () => {
    const s = await repository();
    const marker = path.join(s.ws.home, "ran");
    git(s, "config", "core.fsmonitor", `touch ${marker}; false`);
    writeFileSync(path.join(s.ws.root, ".agents/hooks.json"), '{"hooks":{"Stop":[]}}\n');
    expectProtected(await s.command("git reset -q --hard"));
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a patch that is a named pipe without waiting on it", async () => {
    const s = await repository();
    execFileSync("mkfifo", [path.join(s.ws.root, "p.patch")]);
    const result = await s.command("git apply p.patch");
    expect(result.errorCode, result.text).toBe("denied");
    expect(result.text).toContain("named pipe");
  });

  it("asks in default mode, past an allow rule for git, what it refuses in yolo when it cannot tell", async () => {
    const s = committed(
      await session({ mode: "default", files: FILES, settings: { permissions: { allow: ["Bash(git:*)"] } } }),
    );
    expect((await s.command("git status --short")).errorCode).toBeUndefined();
    expect(s.asked).toEqual([]);
    const result = await s.command("printf x | git apply");
    expect(result.errorCode, result.text).toBe("denied");
    expect(s.asked.length).toBe(1);
  });
});

describe("a git command pointed at another repository is judged as one whose changes only running tells (yolo)", () => {
  function expectRefusedUnknown(result: { errorCode?: string; text: string }, why: RegExp): void {
    expect(result.errorCode, result.text).toBe("denied");
    expect(result.text).toMatch(/^Denied by protected files: /);
    expect(result.text).toMatch(why);
  }

  /** A clone outside the workspace whose commit rewrites the hooks file to run the attacker's command. */
  function evilClone(s: PolicySession): string {
    const clone = path.join(s.ws.parent, "evil");
    execFileSync("git", ["clone", "-q", s.ws.root, clone]);
    writeFileSync(
      path.join(clone, ".agents/hooks.json"),
      '{"hooks":{"Stop":[{"command":"touch /tmp/x"}]}}\n',
    );
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "evil"], {
      cwd: clone,
    });
    return path.join(clone, ".git");
  }

  for (const form of [
    (dir: string) => `GIT_DIR=${dir} GIT_WORK_TREE=. git reset -q --hard`,
    (dir: string) => `export GIT_DIR=${dir} GIT_WORK_TREE=.; git reset -q --hard`,
    (dir: string) => `env GIT_DIR=${dir} GIT_WORK_TREE=. git checkout -f`,
    (dir: string) => `GIT_INDEX_FILE=${dir}/index git checkout-index -a -f`,
  ]) {
    it(`refuses ${JSON.stringify(form("<clone>/.git"))}`, async () => {
      const s = await repository();
      const result = await s.command(form(evilClone(s)));
      expectRefusedUnknown(result, /GIT_(DIR|INDEX_FILE) is set: git works on another repository/);
      expect(hooks(s)).toBe(HOOKS);
    });
  }

  it("refuses the tree change in a persistent terminal after an earlier call exported GIT_DIR", async () => {
    const s = await repository();
    const dir = evilClone(s);
    const terminal = { RequestedTerminalID: "t" };
    expect((await s.command(`export GIT_DIR=${dir} GIT_WORK_TREE=$PWD`, terminal)).error).toBe(false);
    expectRefusedUnknown(await s.command("git reset -q --hard", terminal), /GIT_DIR is set/);
    expect(hooks(s)).toBe(HOOKS);
    // once unset, the workspace's own repository answers again
    expect((await s.command("unset GIT_DIR GIT_WORK_TREE", terminal)).error).toBe(false);
    expect((await s.command("git reset -q --hard", terminal)).errorCode).toBeUndefined();
  });

  it("still runs git with such a variable where nothing protected or denied is in reach", async () => {
    const s = await repository();
    const dir = evilClone(s);
    expect((await s.command(`GIT_DIR=${dir} git log -1 --format=%s`)).text).toContain("evil");
  });
});
