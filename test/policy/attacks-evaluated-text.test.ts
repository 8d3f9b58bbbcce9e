import { describe, expect, it } from "vitest";
import { DENY_RM, itRefusesPastDenyRm, policySessions } from "./session-support.js";

const session = policySessions();

/**
 * Text bash evaluates again, which looks like data to a reader: arithmetic on a variable (whose value
 * bash evaluates, running a `$(…)` in an array subscript there), prompt expansion `${x@P}`, indirect
 * expansion, and the builtins that take a variable name or a callback. Each removed `victim` past
 * deny Bash(rm:*) in yolo.
 */
const EVALUATED = [
  "x='a[$(rm victim)]'; (( x ))",
  "x='a[$(rm victim)]'; echo $(( x ))",
  "x='a[$(rm victim)]'; echo $[ x ]",
  "x='a[$(rm victim)]'; [[ $x -eq 0 ]]",
  "x='a[$(rm victim)]'; [[ -v $x ]]",
  "x='a[$(rm victim)]'; test -v \"$x\"",
  "x='a[$(rm victim)]'; b=(1); echo ${b[x]}",
  "x='a[$(rm victim)]'; b=(1); b[x]=2",
  "x='a[$(rm victim)]'; b=1; echo ${b:x}",
  "x='a[$(rm victim)]'; echo ${!x}",
  "let 'a[$(rm victim)]=1'",
  "x='$(rm victim)'; echo ${x@P}",
  "mapfile -C 'rm victim' -c 1 < src/a.txt",
  "readarray -C 'rm victim' -c 1 < src/a.txt",
  "printf -v 'a[$(rm victim)]' %s x",
  "read 'a[$(rm victim)]' <<< x",
  'declare -a "b=(\\$(rm victim))"',
  "f() { local 'a[$(rm victim)]=1'; }; f",
];

const FILES = { victim: "keep me\n", "src/a.txt": "one\ntwo\n" };

describe("deny Bash(rm:*) holds against text bash evaluates again (yolo)", () => {
  itRefusesPastDenyRm(session, { lines: EVALUATED, files: FILES });

  it("names what it found: arithmetic on a variable, prompt expansion", async () => {
    const s = await session({ mode: "yolo", files: FILES, settings: DENY_RM });
    expect((await s.command("x='a[$(rm victim)]'; (( x ))")).text).toContain(
      "arithmetic on a variable can run a command",
    );
    expect((await s.command("x='$(rm victim)'; echo ${x@P}")).text).toContain(
      "prompt expansion (${x@P}) runs the commands in the variable's value",
    );
  });

  it("literal arithmetic and a loop's own counter are judged as before", async () => {
    const s = await session({ mode: "yolo", files: FILES, settings: DENY_RM });
    for (const line of [
      "echo $((1+2))",
      "for ((i=0;i<3;i++)); do echo $i; done",
      "(( i=0, i++ )); echo ok",
      "[[ 2 -gt 1 ]] && echo ok",
      "b=(1 2); echo ${b[1]} ${b[@]} ${#b[@]}",
      "read -r line < src/a.txt; echo $line",
      "mapfile -t lines < src/a.txt; echo ${lines[0]}",
      "printf -v out %s x; echo $out",
      "declare -a arr=(1 2); echo ${arr[0]}",
    ]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
    }
  });
});

describe("a `$_` that carries the last command's text into evaluation is not allowed by a narrow rule", () => {
  const ALLOW = ["Bash(echo:*)", "Bash(npm run test:*)", "Bash(git log:*)"];
  for (const line of [
    "echo '$(touch pwned)'; echo ${_@P}",
    "echo 'a[$(touch pwned)]'; echo $(( _ ))",
    "npm run test:x 'a[$(touch pwned)]'; npm run test:x $(( _ ))",
    "npm run test:x -- 'a[$(touch pwned)]'; npm run test:x --x=$(( _ ))",
    "git log -1 '--format=$(touch pwned)'; git log -1 --format=${_@P}",
  ]) {
    it(`asks (and so is denied headless) for ${JSON.stringify(line)}`, async () => {
      const s = await session({ mode: "default", files: FILES, settings: { permissions: { allow: ALLOW } } });
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(s.exists("pwned")).toBe(false);
    });
  }
});

describe("input sent to a running bash is judged the same way", () => {
  it("refuses arithmetic on a variable sent to a background bash (yolo, deny Bash(rm:*))", async () => {
    const s = await session({ mode: "yolo", files: FILES, settings: DENY_RM });
    const started = await s.command("bash", { WaitMsBeforeAsync: 0 });
    const TaskId = started.metadata.taskId as string;
    const sent = await s.run("manage_task", {
      Action: "send_input",
      TaskId,
      Input: "x='a[$(rm victim)]'; (( x ))\n",
    });
    expect(sent.errorCode, sent.text).toBe("denied");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.exists("victim")).toBe(true);
  });
});
