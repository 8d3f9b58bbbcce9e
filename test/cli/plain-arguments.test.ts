import { parseArgs } from "node:util";
import { expect, it } from "vitest";
import { COMMAND_OPTIONS, GLOBAL_OPTIONS } from "../../src/cli/options.js";
import { parsePlainArguments } from "../../src/cli/plain-arguments.js";

// The plain command lines are read by Gantry's own loop, everything else by Node's parseArgs: wherever
// the loop answers, its answer must be Node's, and wherever Node would fail it must not answer.

const OPTIONS = { ...GLOBAL_OPTIONS, ...COMMAND_OPTIONS.mcp };

function nodeParse(argv: string[]) {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    return { values: { ...values }, positionals };
  } catch (error) {
    return { error: (error as { code?: string }).code };
  }
}

/** Whether the plain reader answered (so the comparison was made), not Node alone. */
function expectNodes(argv: string[]): boolean {
  const node = nodeParse(argv);
  const plain = parsePlainArguments(argv, OPTIONS);
  if ("error" in node)
    expect(plain, `${JSON.stringify(argv)} fails in parseArgs (${node.error})`).toBeUndefined();
  else if (plain !== undefined)
    expect({ values: { ...plain.values }, positionals: plain.positionals }).toEqual(node);
  return plain !== undefined;
}

it("reads the lines commands are run with as parseArgs does", () => {
  const lines = [
    ["tool", "view_file", '{"AbsolutePath":"a.txt"}', "--workspace", "/w"],
    ["-p", "fix the bug", "--model", "openai:gpt", "--trust", "--output-format=json"],
    ["--workspace=/w", "tool", "--approval-mode", "yolo", "run_command", "{}"],
    ["mcp", "add", "-e", "A=1", "--env", "B=2", "-H", "X: y", "name", "--", "npx", "-y", "server"],
    ["-c", "-m", "anthropic:claude", "hello"],
    ["--prompt=", "-"],
    ["tool", "--", "--not-an-option"],
  ];
  for (const argv of lines) {
    expectNodes(argv);
    expect(parsePlainArguments(argv, OPTIONS), JSON.stringify(argv)).toBeDefined();
  }
});

it("leaves every line parseArgs refuses or reads its own way to parseArgs", () => {
  const lines = [
    ["--modle", "x"],
    ["--model"],
    ["--model", "--trust"],
    ["--trust=yes"],
    ["-cv"],
    ["-mopenai:gpt"],
    ["-5"],
    ["--__proto__", "x"],
    ["--constructor"],
    ["--=x"],
  ];
  for (const argv of lines) {
    expect(parsePlainArguments(argv, OPTIONS), JSON.stringify(argv)).toBeUndefined();
    expectNodes(argv);
  }
  expect(parsePlainArguments(["--n"], { n: { type: "string", default: "d" } })).toBeUndefined();
});

it("agrees with parseArgs on thousands of generated lines", () => {
  // mostly words, so that many lines are plain; the rest every kind of option and its misuse
  const words = ["tool", "x", "/a", "K=V", "-", "", "=", "a b"];
  const options = [
    "--",
    "--workspace",
    "--workspace=/a",
    "-w",
    "--trust",
    "--trust=1",
    "-c",
    "-cv",
    "--env",
    "-e",
    "--header",
    "--model",
    "-m",
    "-x",
    "--unknown",
    "-p",
    "--prompt=-z",
    "--subagent-only",
    "-5",
    "--version",
  ];
  let seed = 7;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  const token = () =>
    next() % 2 === 0
      ? (words[next() % words.length] as string)
      : (options[next() % options.length] as string);
  let answered = 0;
  for (let n = 0; n < 5000; n++) {
    const argv = Array.from({ length: next() % 7 }, token);
    if (expectNodes(argv)) answered++;
  }
  // the comparison was made often, not only where both leave the line to Node
  expect(answered).toBeGreaterThan(1000);
});
