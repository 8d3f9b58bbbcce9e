import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { persistAllowRules } from "../../policy/always-answers.js";
import type { SessionPermissions } from "../../policy/permissions.js";
import { TOOL_GROUPS } from "../../policy/rules.js";
import { defineTool, errorResult, okResult } from "../contract.js";

const AskPermissionParameters = lazySchema(() =>
  z.object({
    Action: z
      .string()
      .min(1)
      .describe(
        "What you want to do: a permission group (Bash, Edit, Read, WebFetch, WebSearch) or a tool name (run_command, write_to_file, ...).",
      ),
    Target: z
      .string()
      .describe(
        'What it applies to, in permission-rule syntax: a command ("npm install", or "npm run test:*" for a prefix), a path ("src/**", "//etc/hosts"), "domain:example.com", or "" for every use of the Action.',
      ),
    Reason: z.string().min(1).describe("Why you need it, shown to the user."),
  }),
);

/** `ask_permission`: asks the user up front; a yes becomes a session grant for (Action, Target) that later calls use. */
export function createAskPermissionTool(permissions: SessionPermissions) {
  return defineTool({
    spec: {
      name: "ask_permission",
      description:
        "Ask the user for permission before a restricted or sensitive step (a command that would ask, a path outside the usual rules). A yes is remembered for this session as the rule Action(Target): later calls it covers run without asking again. Use list_permissions to see what is already allowed.",
      parameters: AskPermissionParameters,
      safety: "interactive",
      group: "Permission",
    },
    async execute(args, ctx) {
      if (ctx.agentId !== "main") {
        return errorResult(
          "unavailable",
          "A subagent cannot ask the user for permission: report what you need (and why) to your parent agent.",
        );
      }
      const action = args.Action.trim();
      const context = permissions.ruleContext();
      if (!Object.hasOwn(TOOL_GROUPS, action) && !context.resolveTool(action)) {
        return errorResult(
          "invalid_arguments",
          `Action "${action}" is neither a permission group (${Object.keys(TOOL_GROUPS).join(", ")}) nor a tool name.`,
        );
      }
      const target = args.Target.trim();
      const rule = target === "" || target === "*" ? action : `${action}(${target})`;
      const answer = await permissions.asker.askPermission(
        {
          tool: "ask_permission",
          args,
          subjects: [rule],
          decision: { verdict: "ask", source: "ask_permission", reason: args.Reason },
          forced: false,
          grantRules: [rule],
        },
        ctx.signal,
      );
      if (answer.choice === "deny") {
        const why =
          permissions.asker.kind === "headless"
            ? `nobody can answer here (not an interactive terminal). The user can add "${rule}" to permissions.allow in ~/.agents/settings.json, or run with --approval-mode yolo.`
            : `the user said no${answer.message ? `: ${answer.message}` : ""}.`;
        return errorResult("denied", `Permission for ${rule} was not granted: ${why}`, {
          rule,
          granted: false,
        });
      }
      const source = `ask_permission: ${args.Reason}`;
      const added = permissions.grants.add(rule, source);
      if (!added.ok)
        return errorResult("invalid_arguments", `"${rule}" is not a usable rule: ${added.error}`);
      let savedTo: string | undefined;
      if (answer.choice === "always") {
        const { home, root, shown } = permissions.alwaysAnswers;
        await persistAllowRules(home, root, [rule]);
        savedTo = shown;
      }
      return okResult(
        `Granted ${rule} for this session${savedTo ? ` (and saved to ${savedTo})` : ""}. Calls it covers now run without asking.`,
        { rule, granted: true, saved: savedTo !== undefined },
      );
    },
  });
}
