import { homedir } from "node:os";
import { buildSystemPrompt, loadProjectInstructions } from "../agent/context.js";
import type { Conversation } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import { type AgentRunResult, runAgentLoop } from "../agent/loop.js";
import { createGantrySession, type GantrySession } from "../gantry.js";
import { createModelClient, type ModelClient } from "../models/client.js";
import { contextWindowFor } from "../models/context-windows.js";
import { createLanguageModel } from "../models/provider.js";
import { type ApprovalMode, parseApprovalMode } from "../policy/modes.js";
import { openSession, type SessionWriter, sessionsDir } from "../session/jsonl.js";
import { transcriptDirFor } from "../subagents/transcript.js";
import { type GlobalOptions, UsageError } from "./options.js";

const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

interface HeadlessRequest {
  prompt: string;
  format: OutputFormat;
  maxTurns?: number;
  approvalMode?: ApprovalMode;
  baseUrl?: string;
}

/** Exit codes: 0 done, 1 failed (provider error, turn limit, no model), 130 interrupted. */
const EXIT_FOR_REASON: Record<AgentRunResult["reason"], number> = {
  completed: 0,
  max_turns: 1,
  error: 1,
  aborted: 130,
};

/** `gantry -p "<prompt>"`: one agent run without a terminal UI (the shapes Claude Code users script against). */
export async function run(positionals: string[], options: GlobalOptions): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`unexpected arguments with -p: ${positionals.join(" ")}`);
  const request = await parseRequest(options);
  const started = Date.now();
  // SPEC §5: a headless run asks nobody; what its approval mode does not allow is denied
  const session = createGantrySession({
    workspace: options.workspace,
    defaultApprovalMode: "default",
    ...(options.sandbox ? { sandbox: true } : {}),
    ...(request.approvalMode ? { approvalMode: request.approvalMode } : {}),
  });
  let writer: SessionWriter | undefined;
  try {
    const model = makeModel(session, options);
    if (typeof model === "string") return fail(request.format, model, started);
    const resumed = openSessionFile(session, options, model.id);
    if (typeof resumed === "string") return fail(request.format, resumed, started);
    writer = resumed.writer;
    const result = await runWithSignals(session, model, resumed.conversation, request, writer);
    writeResult(request.format, result, writer.id, Date.now() - started);
    return EXIT_FOR_REASON[result.reason];
  } finally {
    writer?.close();
    await session.dispose();
  }
}

async function parseRequest(options: GlobalOptions): Promise<HeadlessRequest> {
  const format = (options["output-format"] ?? "text") as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format))
    throw new UsageError(`--output-format must be one of ${OUTPUT_FORMATS.join(", ")}, not "${format}"`);
  let maxTurns: number | undefined;
  if (options["max-turns"] !== undefined) {
    maxTurns = Number(options["max-turns"]);
    if (!Number.isInteger(maxTurns) || maxTurns < 1)
      throw new UsageError(`--max-turns must be a positive whole number, not "${options["max-turns"]}"`);
  }
  let approvalMode: ApprovalMode | undefined;
  if (options["approval-mode"] !== undefined) {
    approvalMode = parseApprovalMode(options["approval-mode"]);
    if (!approvalMode)
      throw new UsageError(
        `--approval-mode must be default, auto-edit, yolo or plan, not "${options["approval-mode"]}"`,
      );
  }
  const prompt = options.prompt === "-" ? await readStdin() : (options.prompt ?? "");
  if (prompt.trim() === "")
    throw new UsageError('the prompt is empty (-p "<prompt>", or -p - to read it from stdin)');
  return {
    prompt,
    format,
    ...(maxTurns ? { maxTurns } : {}),
    ...(approvalMode ? { approvalMode } : {}),
    ...(options["base-url"] ? { baseUrl: options["base-url"] } : {}),
  };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function makeModel(session: GantrySession, options: GlobalOptions): ModelClient | string {
  const settings = session.settings;
  return makeModelFor(session, options.model ?? settings.model, options["base-url"] ?? settings.baseUrl);
}

function makeModelFor(session: GantrySession, model: string | undefined, baseUrl: string | undefined) {
  const made = createLanguageModel({ model, baseUrl, env: process.env });
  if (!made.ok) return made.message;
  const { spec, model: languageModel } = made.value;
  return createModelClient(spec, languageModel, contextWindowFor(spec, session.settings.contextWindow));
}

function openSessionFile(
  session: GantrySession,
  options: GlobalOptions,
  modelId: string,
): { conversation: Conversation; writer: SessionWriter } | string {
  const opened = openSession({
    dir: sessionsDir(homedir(), session.workspace.root),
    workspace: session.workspace.root,
    model: modelId,
    ...(options.resume !== undefined ? { resume: options.resume } : {}),
    continueLatest: options.continue === true,
  });
  if (!opened.ok) return opened.message;
  for (const problem of opened.problems)
    process.stderr.write(`gantry: ${opened.file} line ${problem.line}: ${problem.message}\n`);
  return opened;
}

async function runWithSignals(
  session: GantrySession,
  model: ModelClient,
  conversation: Conversation,
  request: HeadlessRequest,
  writer: SessionWriter,
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
    return await runAgent(session, model, conversation, request, writer, controller.signal);
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}

async function runAgent(
  session: GantrySession,
  model: ModelClient,
  conversation: Conversation,
  request: HeadlessRequest,
  writer: SessionWriter,
  signal: AbortSignal,
): Promise<AgentRunResult> {
  const declarations = session.registry.declarations();
  if (request.format === "stream-json") {
    writeLine({
      type: "system",
      subtype: "init",
      session_id: writer.id,
      model: model.id,
      cwd: session.workspace.root,
      tools: declarations.map((d) => d.name),
      approval_mode: request.approvalMode ?? "default",
    });
  }
  const system = buildSystemPrompt({
    workspaceRoot: session.workspace.root,
    declarations,
    instructions: loadProjectInstructions(session.workspace.root),
  });
  const baseUrl = request.baseUrl ?? session.settings.baseUrl;
  const maxTurns = request.maxTurns ?? session.settings.maxTurns;
  // subagents share the model and this event stream (their events carry their own agentId)
  session.subagents.bind({
    model,
    mainConversation: conversation,
    mainSystem: system,
    transcriptDir: transcriptDirFor(writer.file),
    ...(baseUrl ? { baseUrl } : {}),
    modelFor: (spec) => makeModelFor(session, spec, baseUrl),
    onEvent: (event) => showEvent(request.format, event),
  });
  return runAgentLoop(conversation, model, session.pipeline, {
    system,
    tools: declarations,
    input: [{ role: "user", text: request.prompt }],
    signal,
    inbox: session.inbox,
    waitForHeldWork: true,
    compaction: { contextWindow: model.contextWindow },
    retry: retryFromEnvironment(),
    ...(maxTurns ? { maxTurns } : {}),
    onEvent: (event) => {
      writer.record(event);
      showEvent(request.format, event);
    },
  });
}

/** `GANTRY_RETRY_BASE_MS` shortens the backoff (tests, scripts that prefer to fail fast). */
function retryFromEnvironment(): { baseDelayMs?: number } {
  const base = Number(process.env.GANTRY_RETRY_BASE_MS);
  return Number.isFinite(base) && base >= 0 && process.env.GANTRY_RETRY_BASE_MS !== ""
    ? { baseDelayMs: base }
    : {};
}

function showEvent(format: OutputFormat, event: AgentEvent): void {
  if (format === "stream-json") return writeLine(event);
  if (event.type !== "error") return;
  const retry = event.retryInMs !== undefined ? ` (retrying in ${(event.retryInMs / 1000).toFixed(1)}s)` : "";
  process.stderr.write(`gantry: ${event.error.message}${retry}\n`);
}

function writeResult(
  format: OutputFormat,
  result: AgentRunResult,
  sessionId: string,
  durationMs: number,
): void {
  if (format === "text") {
    if (result.text) process.stdout.write(`${result.text}\n`);
    if (result.reason === "max_turns")
      process.stderr.write(`gantry: stopped at the turn limit (${result.turns} turns)\n`);
    if (result.reason === "aborted") process.stderr.write("gantry: interrupted\n");
    return;
  }
  writeLine({
    type: "result",
    subtype:
      result.reason === "completed"
        ? "success"
        : result.reason === "max_turns"
          ? "error_max_turns"
          : "error_during_execution",
    is_error: result.reason !== "completed",
    result: result.text,
    session_id: sessionId,
    num_turns: result.turns,
    duration_ms: durationMs,
    usage: { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens },
    ...(result.error ? { error: result.error.message } : {}),
    ...(result.reason === "aborted" ? { error: "interrupted" } : {}),
  });
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
