import type { AgentEvent } from "../agent/events.js";
import type { AgentRunResult } from "../agent/loop.js";
import type { ApprovalMode } from "../policy/modes.js";
import { customCommandPrompt } from "../slash-commands/run.js";
import { showControls } from "../tools/exec/ansi.js";
import { type AgentSession, approvalModeOption, maxTurnsOption, openAgentSession } from "./agent-session.js";
import { parseWithoutCompiling } from "./one-shot.js";
import { type GlobalOptions, UsageError } from "./options.js";
import { CUT_ANSWER, eventLine, initLine, resultLine } from "./stream-json.js";

const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

interface HeadlessRequest {
  prompt: string;
  format: OutputFormat;
  maxTurns?: number;
  approvalMode?: ApprovalMode;
}

/**
 * Exit codes: 0 done (also when a hook stopped the run), 1 failed (provider error, turn limit, a cut
 * answer, no model, the prompt refused by a hook), 130 interrupted.
 */
const EXIT_FOR_REASON: Record<AgentRunResult["reason"], number> = {
  completed: 0,
  stopped: 0,
  max_turns: 1,
  max_tokens: 1,
  error: 1,
  blocked: 1,
  aborted: 130,
};

/** How long a custom command's shell lines and files may take to fill its prompt. */
const COMMAND_EXPANSION_MS = 5 * 60_000;

/** `gantry -p "<prompt>"`: one agent run without a terminal UI (the shapes Claude Code users script against). */
export async function run(positionals: string[], options: GlobalOptions): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`unexpected arguments with -p: ${positionals.join(" ")}`);
  const request = await parseRequest(options);
  parseWithoutCompiling();
  const started = Date.now();
  let sessionId = "";
  // SPEC §5: a headless run asks nobody; what its approval mode does not allow is denied
  const opened = await openAgentSession(options, {
    ...(request.approvalMode ? { approvalMode: request.approvalMode } : {}),
    onReady: (ready) => {
      sessionId = ready.writer.id;
      if (request.format !== "stream-json") return;
      writeLine(
        initLine({
          sessionId: ready.writer.id,
          model: ready.model.id,
          cwd: ready.session.workspace.root,
          tools: ready.declarations.map((d) => d.name),
          approvalMode: request.approvalMode ?? "default",
        }),
      );
    },
    onSubagentEvent: (event) => showEvent(request.format, event, sessionId),
    frontEnd: "headless",
  });
  if ("error" in opened) return fail(request.format, opened.error, started);
  try {
    const denials = collectDenials();
    // `gantry -p "/review 42"`: a custom command's prompt, as the interactive session makes it
    const custom = await customCommandPrompt(
      request.prompt,
      {
        root: opened.session.workspace.root,
        pipeline: opened.session.pipeline,
        trust: opened.session.trust,
      },
      AbortSignal.timeout(COMMAND_EXPANSION_MS),
    );
    if (custom && !custom.ok) return fail(request.format, custom.error, started);
    for (const note of custom?.notes ?? []) process.stderr.write(`gantry: ${note}\n`);
    if (custom?.ok) request.prompt = custom.text;
    const result = await runWithSignals(opened, request, denials.note);
    writeResult(request.format, result, opened.writer.id, Date.now() - started);
    denials.report();
    return EXIT_FOR_REASON[result.reason];
  } finally {
    await opened.close();
  }
}

async function parseRequest(options: GlobalOptions): Promise<HeadlessRequest> {
  const format = (options["output-format"] ?? "text") as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format))
    throw new UsageError(`--output-format must be one of ${OUTPUT_FORMATS.join(", ")}, not "${format}"`);
  const maxTurns = maxTurnsOption(options);
  const approvalMode = approvalModeOption(options);
  const prompt = options.prompt === "-" ? await readStdin() : (options.prompt ?? "");
  if (prompt.trim() === "")
    throw new UsageError('the prompt is empty (-p "<prompt>", or -p - to read it from stdin)');
  return {
    prompt,
    format,
    ...(maxTurns ? { maxTurns } : {}),
    ...(approvalMode ? { approvalMode } : {}),
  };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function runWithSignals(
  agent: AgentSession,
  request: HeadlessRequest,
  note: (event: AgentEvent) => void,
): Promise<AgentRunResult> {
  const controller = new AbortController();
  let interrupts = 0;
  const interrupt = () => {
    // a second Ctrl-C leaves at once, even if a tool ignores the abort
    if (++interrupts > 1) process.exit(130);
    controller.abort(new Error("interrupted"));
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);
  try {
    return await agent.run([{ role: "user", text: request.prompt }], {
      signal: controller.signal,
      waitForHeldWork: true,
      ...(request.maxTurns ? { maxTurns: request.maxTurns } : {}),
      onEvent: (event) => {
        note(event);
        showEvent(request.format, event, agent.writer.id);
      },
    });
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}

/**
 * A headless run asks nobody, so its denied calls are said on stderr at the end (the model saw each
 * denial; the person reading the output would not): how many, which tools, and the first reason.
 */
function collectDenials() {
  const denied: { tool: string; text: string }[] = [];
  return {
    note(event: AgentEvent) {
      if (event.type === "tool_result" && event.result.errorCode === "denied")
        denied.push({ tool: event.call.name, text: event.result.text });
    },
    report() {
      const first = denied[0];
      if (!first) return;
      const tools = [...new Set(denied.map((call) => call.tool))].join(", ");
      const count = denied.length === 1 ? "1 tool call was" : `${denied.length} tool calls were`;
      process.stderr.write(
        `gantry: ${count} denied in this run (${tools}); the first: ${showControls(first.text)}\n`,
      );
    },
  };
}

function showEvent(format: OutputFormat, event: AgentEvent, sessionId: string): void {
  if (format === "stream-json") {
    const line = eventLine(event, sessionId);
    return line ? writeLine(line) : undefined;
  }
  if (event.type !== "error") return;
  const retry = event.retryInMs !== undefined ? ` (retrying in ${(event.retryInMs / 1000).toFixed(1)}s)` : "";
  process.stderr.write(`gantry: ${showControls(event.error.message)}${retry}\n`);
}

function writeResult(
  format: OutputFormat,
  result: AgentRunResult,
  sessionId: string,
  durationMs: number,
): void {
  if (format === "text") {
    // the model's text (a prompt-injected one's) must not drive the terminal: escapes are shown as text
    if (result.text) process.stdout.write(`${showControls(result.text)}\n`);
    if (result.reason === "max_turns")
      process.stderr.write(`gantry: stopped at the turn limit (${result.turns} turns)\n`);
    if (result.reason === "max_tokens") process.stderr.write(`gantry: ${CUT_ANSWER}\n`);
    if (result.reason === "aborted") process.stderr.write("gantry: interrupted\n");
    return;
  }
  writeLine(resultLine(result, sessionId, durationMs));
}

function fail(format: OutputFormat, message: string, started: number): number {
  process.stderr.write(`gantry: ${message}\n`);
  if (format !== "text") {
    writeLine({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      result: "",
      error: message,
      num_turns: 0,
      duration_ms: Date.now() - started,
    });
  }
  return 1;
}

function writeLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
