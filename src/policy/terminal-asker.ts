import type { Interface } from "node:readline/promises";
import type { Asker, PermissionAnswer, PermissionRequest, Question } from "./asker.js";

export interface TerminalAskerOptions {
  input?: NodeJS.ReadableStream;
  /** Prompts go to stderr by default, so `gantry tool`'s JSON on stdout stays clean. */
  output?: NodeJS.WritableStream;
}

const MAX_ARGS_SHOWN = 2_000;

/** Asks at the terminal: the tool, its arguments and, for edits, the diff; then a numbered choice. */
export function createTerminalAsker(options: TerminalAskerOptions = {}): Asker & { close(): void } {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  let lines: Interface | undefined;
  // parallel tool calls may ask at once: one conversation with the user at a time
  let turn: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(ask: () => Promise<T>): Promise<T> => {
    const next = turn.then(ask, ask);
    turn = next.catch(() => undefined);
    return next;
  };

  async function prompt(text: string, signal: AbortSignal): Promise<string> {
    // readline is loaded with the first question, not with every `gantry tool` start
    lines ??= process
      .getBuiltinModule("node:readline/promises")
      .createInterface({ input, output, terminal: false });
    try {
      return (await lines.question(text, { signal })).trim();
    } finally {
      // an idle prompt must not keep the process alive
      lines.pause();
    }
  }

  return {
    kind: "terminal",
    askPermission: (request, signal) =>
      oneAtATime(async () => {
        output.write(describeRequest(request));
        const choices = request.forced || request.grantRules.length === 0 ? FORCED_CHOICES : ALL_CHOICES;
        output.write(`${choices.map((choice, index) => `  [${index + 1}] ${choice.label}`).join("\n")}\n`);
        return parseChoice(await prompt("choice> ", signal), choices);
      }),
    askQuestions: (questions, signal) =>
      oneAtATime(async () => {
        const answers: string[][] = [];
        for (const question of questions) answers.push(await askOne(question, signal));
        return { answered: true as const, answers };
      }),
    close() {
      lines?.close();
      lines = undefined;
    },
  };

  async function askOne(question: Question, signal: AbortSignal): Promise<string[]> {
    output.write(`\n? ${question.question}\n`);
    question.options.forEach((option, index) => void output.write(`  [${index + 1}] ${option}\n`));
    const hint = question.multiSelect
      ? "numbers separated by commas, or your own answer"
      : "a number, or your own answer";
    const answer = await prompt(`(${hint})> `, signal);
    const picked = answer.split(",").map((token) => Number.parseInt(token.trim(), 10));
    const valid = picked.every((n) => Number.isInteger(n) && n >= 1 && n <= question.options.length);
    if (question.options.length > 0 && valid && (question.multiSelect || picked.length === 1)) {
      return picked.map((n) => question.options[n - 1] as string);
    }
    return [answer];
  }
}

interface Choice {
  label: string;
  choice: PermissionAnswer["choice"];
  keys: string[];
}

const ONCE: Choice = { label: "yes, once", choice: "once", keys: ["y", "yes"] };
const NO: Choice = { label: "no (or type what to do instead)", choice: "deny", keys: ["n", "no", ""] };
const ALL_CHOICES: Choice[] = [
  ONCE,
  { label: "yes, and don't ask again this session", choice: "session", keys: ["s"] },
  {
    label: "yes, always (saved to ~/.agents/folder-permissions.json)",
    choice: "always",
    keys: ["a", "always"],
  },
  NO,
];
const FORCED_CHOICES: Choice[] = [ONCE, NO];

function parseChoice(answer: string, choices: Choice[]): PermissionAnswer {
  const index = Number.parseInt(answer, 10);
  const byNumber = String(index) === answer ? choices[index - 1] : undefined;
  const found = byNumber ?? choices.find((choice) => choice.keys.includes(answer.toLowerCase()));
  if (found) return { choice: found.choice };
  return { choice: "deny", message: answer };
}

function describeRequest(request: PermissionRequest): string {
  const args = JSON.stringify(request.args, null, 2);
  const shownArgs = args.length > MAX_ARGS_SHOWN ? `${args.slice(0, MAX_ARGS_SHOWN)}\n  …` : args;
  const lines = [
    "",
    `── ${request.forced ? "Confirmation required" : "Permission needed"}: ${request.tool} ──`,
    `needs approval: ${request.subjects.join(" · ")}`,
    `asked by: ${request.decision.source}${request.decision.reason ? ` (${request.decision.reason})` : ""}`,
    `arguments: ${shownArgs}`,
  ];
  if (request.preview) lines.push(request.preview.trimEnd());
  return `${lines.join("\n")}\n`;
}
