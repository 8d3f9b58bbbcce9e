import type { HookGroup } from "../hooks/config.js";
import { compileMatcher } from "../hooks/matcher.js";
import type { Verdict } from "../tools/gates.js";

/** What a hook function receives: the native hook event, as a command hook reads it on stdin. */
export interface HookEventInput {
  hook_event_name: "pre_tool_execution" | "post_tool_execution";
  tool_call: { name: string; args: Record<string, unknown> };
  environment_id: string;
  agent_id: string;
  /** After a failed call: its error text. */
  error?: string;
}

/** The same decisions as a command hook's stdout (SPEC §4). Nothing (undefined) means no opinion. */
export interface HookDecision {
  decision?: Verdict;
  reason?: string;
  additionalContext?: string;
}

export interface HookFunction {
  /** RE2, against the whole tool name or an alias, as in hooks.json; absent = every tool. */
  matcher?: string;
  /** Shown in denials and logs: `Denied by hook <name>: ...`. */
  name?: string;
  /** A throw or a timeout denies the call instead of allowing it. */
  failClosed?: boolean;
  /** Default 30 s. */
  timeoutMs?: number;
  handler(
    event: HookEventInput,
    signal: AbortSignal,
  ): HookDecision | undefined | void | Promise<HookDecision | undefined | void>;
}

export interface AgentHooks {
  /** Before a call runs: may allow, deny, ask, force_ask or deny_unless_prior_grant. */
  preToolUse?: HookFunction[];
  /** After a call: only additionalContext counts (nothing can be undone). */
  postToolUse?: HookFunction[];
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Hook functions as hook groups of the native dialect: planned, run and aggregated like command hooks. */
export function hookGroupsFor(hooks: AgentHooks | undefined): HookGroup[] {
  const events = [
    ["pre_tool_execution", hooks?.preToolUse ?? []],
    ["post_tool_execution", hooks?.postToolUse ?? []],
  ] as const;
  return events.flatMap(([event, list]) =>
    list.map((hook, index): HookGroup => {
      const name = hook.name ?? `${event === "pre_tool_execution" ? "preToolUse" : "postToolUse"}[${index}]`;
      const matcher = compileMatcher(hook.matcher, "native");
      if (matcher.problem)
        throw new Error(`hook ${name}: matcher ${JSON.stringify(hook.matcher)}: ${matcher.problem}`);
      return {
        name,
        file: "createAgent hooks",
        dialect: "native",
        // the embedding program's own hooks, like the user's home file: trust never keeps them out
        scope: "home",
        enabled: true,
        failClosed: hook.failClosed === true,
        rules: [
          {
            event,
            key: event,
            matcher,
            handlers: [
              {
                kind: "function",
                name,
                timeoutMs: hook.timeoutMs ?? DEFAULT_TIMEOUT_MS,
                run: (input, signal) => hook.handler(input as unknown as HookEventInput, signal),
              },
            ],
          },
        ],
      };
    }),
  );
}
