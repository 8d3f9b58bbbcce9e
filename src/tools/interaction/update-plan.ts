import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { defineTool, okResult } from "../contract.js";

const PlanStepSchema = lazySchema(() =>
  z.object({
    step: z.string().min(1).describe("What this step does, in a few words."),
    status: z
      .enum(["pending", "in_progress", "completed"])
      .describe("Where the step stands; at most one in_progress."),
  }),
);

const UpdatePlanParameters = lazySchema(() =>
  z.object({
    plan: z
      .array(PlanStepSchema())
      .min(1)
      .describe("The whole plan, every step with its status (it replaces the last one)."),
    explanation: z.string().optional().describe("Why the plan changed, in one sentence; optional."),
  }),
);

export type PlanStep = z.infer<ReturnType<typeof PlanStepSchema>>;

/**
 * `update_plan`: the model keeps a visible plan of a multi-step task. It changes nothing on disk; the
 * plan travels in `metadata.plan` to the front ends (an ACP editor shows it as the session's plan).
 */
export function createUpdatePlanTool() {
  return defineTool({
    spec: {
      name: "update_plan",
      description:
        "Keep a short plan for a task of several steps: send the whole list each time, with each step's status (pending, in_progress, completed). Use it for work of three steps or more; skip it for simple requests.",
      parameters: UpdatePlanParameters,
      safety: "read_only",
      group: "Interaction",
      aliases: ["todo_write", "write_todos"],
    },
    async execute(args) {
      const done = args.plan.filter((step) => step.status === "completed").length;
      const current = args.plan.find((step) => step.status === "in_progress");
      const now = current ? `; now: ${current.step}` : "";
      return okResult(`Plan updated: ${done} of ${args.plan.length} steps done${now}.`, { plan: args.plan });
    },
  });
}
