import type { Asker, Question } from "../policy/asker.js";

/**
 * MCP elicitation (form mode): a server asks the user for a few values in the middle of a call. Each
 * field of the requested schema becomes one question in the session's own dialog (the terminal UI's,
 * a library's callback): choices for enums and booleans, typed text for strings and numbers. Answers
 * are converted to the field's type and checked against its bounds; a question left unanswered, or an
 * answer that does not fit after a second try, ends the form as `cancel`, and a skipped optional
 * field is left out. A session nobody can answer (headless) does not offer elicitation at all.
 */
export interface ElicitRequest {
  message: string;
  requestedSchema: { properties?: Record<string, FieldSchema>; required?: string[] };
}

export type ElicitResult =
  | { action: "accept"; content: Record<string, string | number | boolean | string[]> }
  | { action: "decline" | "cancel" };

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  enum?: string[];
  enumNames?: string[];
  oneOf?: { const: string; title?: string }[];
  items?: { enum?: string[]; anyOf?: { const: string; title?: string }[] };
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
}

type Value = string | number | boolean | string[];

/** Whether answers can reach a user here: where nobody can answer (headless, ACP), elicitation is not offered. */
export function canElicit(asker: Asker | undefined): asker is Asker {
  return asker !== undefined && (asker.answersQuestions ?? asker.kind !== "headless");
}

export async function elicitThroughAsker(
  asker: Asker,
  server: string,
  request: ElicitRequest,
  signal: AbortSignal,
): Promise<ElicitResult> {
  const fields = Object.entries(request.requestedSchema.properties ?? {});
  const required = new Set(request.requestedSchema.required ?? []);
  const content: Record<string, Value> = {};
  for (const [index, [name, field]] of fields.entries()) {
    const intro = index === 0 ? `The MCP server "${server}" asks: ${request.message}\n\n` : "";
    let problem = "";
    for (let attempt = 0; ; attempt++) {
      const question = questionFor(name, field, required.has(name), `${intro}${problem}`);
      const answered = await asker.askQuestions([question.question], signal);
      if (!answered.answered) return { action: "cancel" };
      const given = (answered.answers[0] ?? []).filter((answer) => answer !== "");
      if (given.length === 0 && !required.has(name)) break;
      const value = given.length === 0 ? { problem: "an answer is needed" } : question.read(given);
      if (typeof value === "object" && value !== null && "problem" in value) {
        if (attempt >= 1) return { action: "cancel" };
        problem = `${value.problem}. `;
        continue;
      }
      content[name] = value;
      break;
    }
  }
  return { action: "accept", content };
}

interface FieldQuestion {
  question: Question;
  read(answers: string[]): Value | { problem: string };
}

function questionFor(name: string, field: FieldSchema, required: boolean, prefix: string): FieldQuestion {
  const label = field.title ?? name;
  const about = [field.description, bounds(field), required ? "" : "optional: skip to leave it out"]
    .filter(Boolean)
    .join("; ");
  const text = `${prefix}${label}${about ? ` (${about})` : ""}`;
  const choices = choicesOf(field);
  if (choices) {
    const multiSelect = field.type === "array";
    return {
      question: { question: text, options: choices.map((c) => c.title), multiSelect },
      read(answers) {
        const values = answers.map(
          (answer) => choices.find((c) => c.title === answer || c.value === answer)?.value,
        );
        if (values.some((value) => value === undefined))
          return { problem: `"${answers.join(", ")}" is not one of the choices` };
        const picked = values as string[];
        if (!multiSelect) return picked[0] as string;
        if (field.minItems !== undefined && picked.length < field.minItems)
          return { problem: `choose at least ${field.minItems}` };
        if (field.maxItems !== undefined && picked.length > field.maxItems)
          return { problem: `choose at most ${field.maxItems}` };
        return picked;
      },
    };
  }
  if (field.type === "boolean")
    return {
      question: { question: text, options: ["yes", "no"], multiSelect: false },
      read: ([answer]) =>
        /^(yes|y|true)$/i.test(answer ?? "")
          ? true
          : /^(no|n|false)$/i.test(answer ?? "")
            ? false
            : { problem: `"${answer}" is neither yes nor no` },
    };
  const defaultHint = field.default !== undefined ? ` [${String(field.default)}]` : "";
  return {
    question: { question: `${text}${defaultHint}`, options: [], multiSelect: false },
    read: ([answer = ""]) =>
      field.type === "number" || field.type === "integer" ? number(answer, field) : text_(answer, field),
  };
}

function choicesOf(field: FieldSchema): { value: string; title: string }[] | undefined {
  const named = field.oneOf ?? field.items?.anyOf;
  if (named) return named.map((c) => ({ value: c.const, title: c.title ?? c.const }));
  const values = field.enum ?? field.items?.enum;
  if (!values) return undefined;
  return values.map((value, i) => ({ value, title: field.enumNames?.[i] ?? value }));
}

function number(answer: string, field: FieldSchema): number | { problem: string } {
  const value = Number(answer.trim());
  if (answer.trim() === "" || !Number.isFinite(value)) return { problem: `"${answer}" is not a number` };
  if (field.type === "integer" && !Number.isInteger(value))
    return { problem: `"${answer}" is not a whole number` };
  if (field.minimum !== undefined && value < field.minimum)
    return { problem: `${value} is below ${field.minimum}` };
  if (field.maximum !== undefined && value > field.maximum)
    return { problem: `${value} is above ${field.maximum}` };
  return value;
}

function text_(answer: string, field: FieldSchema): string | { problem: string } {
  if (field.minLength !== undefined && answer.length < field.minLength)
    return { problem: `at least ${field.minLength} characters are needed` };
  if (field.maxLength !== undefined && answer.length > field.maxLength)
    return { problem: `at most ${field.maxLength} characters fit` };
  return answer;
}

function bounds(field: FieldSchema): string {
  if (field.minimum !== undefined && field.maximum !== undefined)
    return `${field.minimum} to ${field.maximum}`;
  if (field.minimum !== undefined) return `at least ${field.minimum}`;
  if (field.maximum !== undefined) return `at most ${field.maximum}`;
  return "";
}
