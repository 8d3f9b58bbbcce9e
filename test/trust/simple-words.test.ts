import { describe, expect, it } from "vitest";
import { readCommandLine } from "../../src/trust/command-words.js";
import { simpleWords } from "../../src/trust/simple-words.js";
import { seededRandom } from "../support/random.js";

// Trust reads a plain hook or server command line without the shell parser (about 100 ms to load);
// what it reads must be what the parser reads, or a script could hide from the pins.

const known = { PWD: "/ws", CLAUDE_PROJECT_DIR: "/ws", HOME: "/home/u" };
const bothWays = (line: string) => ({
  fast: readCommandLine(line, { known, home: "/home/u" }),
  parsed: readCommandLine(line, { known, home: "/home/u", grammar: "parser" }),
});

describe("a plain command line read without the parser", () => {
  it("reads the words the parser reads on generated lines, and leaves the rest to it", () => {
    const random = seededRandom(19);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
    const pieces = [
      "sh",
      "python3",
      "bash -c",
      ".agents/gate.sh",
      "x.py",
      "--flag=v",
      "-m",
      "a*b?",
      "%@+,:",
      "'a b; c | d'",
      "'$PWD'",
      '"$PWD/x.sh"',
      '"${CLAUDE_PROJECT_DIR}"/h.sh',
      '"$UNSET_X"',
      '"a \\"q\\" \\$ \\\\ b"',
      '"sh gate.sh; echo ok"',
      "$PWD/y",
      "${HOME}",
      "$OTHER",
      "\\ spaced",
      "\\$",
      "a=b",
      "FOO=1",
      "~/x",
      "{a,b}",
      "$(pwd)",
      "`pwd`",
      "> log",
      "; ls",
      "#c",
      "${X:-.}",
      "$1",
      "if",
      "time",
      "'unclosed",
      '"tab\there"',
    ];
    let fastOnes = 0;
    for (let i = 0; i < 600; i++) {
      const words = Array.from({ length: 1 + Math.floor(random() * 5) }, () => pick(pieces));
      const line = words.join(pick([" ", "  ", "\t", ""]));
      if (simpleWords(line, known) !== undefined) fastOnes++;
      const { fast, parsed } = bothWays(line);
      expect(fast, line).toEqual(parsed);
    }
    // both kinds were generated: lines the fast reader takes and lines it leaves to the parser
    expect(fastOnes).toBeGreaterThan(100);
    expect(fastOnes).toBeLessThan(550);
  });

  it("takes the common hook forms itself", () => {
    for (const line of [
      'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/check.py',
      "sh .agents/gate.sh",
      "bash -c 'sh x.sh; echo done'",
      "node ${PWD}/tools/server.cjs --port=3",
    ])
      expect(simpleWords(line, known), line).toBeDefined();
    expect(simpleWords('python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/check.py', known)).toEqual([
      ["python3"],
      ["/ws/.claude/hooks/check.py"],
    ]);
  });
});
