import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import type { Asker } from "../../policy/asker.js";
import { defineTool, errorResult, okResult } from "../contract.js";

const QuestionSchema = lazySchema(() =>
  z.object({
    question: z.string().min(1).describe("The question, complete and self-contained."),
    options: z
      .array(z.string().min(1))
      .describe(
        "The choices to offer (the user may still answer in their own words); [] for an open question.",
      ),
    is_multi_select: z
      .boolean()
      .optional()
      .describe("true when several options may be chosen; default false."),
  }),
);

const AskQuestionParameters = lazySchema(() =>
  z.object({
    questions: z.array(QuestionSchema()).min(1).describe("The questions to ask, in order."),
  }),
);

/** `ask_question`: asks the user through the session's asker; headless without an answer provider it fails readably. */
export function createAskQuestionTool(asker: Asker) {
  return defineTool({
    spec: {
      name: "ask_question",
      description:
        "Ask the user one or more questions when a requirement is ambiguous or several approaches are reasonable; each question may offer options and allow several choices. Waits for the answers.",
      parameters: AskQuestionParameters,
      safety: "interactive",
      group: "Interaction",
    },
    async execute(args, ctx) {
      const questions = args.questions.map((q) => ({
        question: q.question,
        options: q.options,
        multiSelect: q.is_multi_select ?? false,
      }));
      if (ctx.agentId !== "main") {
        return errorResult(
          "unavailable",
          "A subagent cannot ask the user questions: decide with what you know, or stop and report the open question to your parent agent.",
        );
      }
      const reply = await asker.askQuestions(questions, ctx.signal);
      if (!reply.answered)
        return errorResult("unavailable", `The questions could not be asked: ${reply.reason}`);
      const lines = questions.map((q, index) => {
        const answer = reply.answers[index] ?? [];
        return `Q: ${q.question}\nA: ${answer.length > 0 ? answer.join(", ") : "(no answer)"}`;
      });
      return okResult(lines.join("\n\n"), {
        answers: questions.map((q, index) => ({ question: q.question, answer: reply.answers[index] ?? [] })),
      });
    },
  });
}
