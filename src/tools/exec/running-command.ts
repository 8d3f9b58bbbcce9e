import type { OutputCapture } from "./output-buffer.js";
import type { ExitStatus, Isolation, ProcessTree } from "./process-tree.js";

/** One command in flight, however it runs (its own process tree, or a line in a persistent terminal). */
export interface RunningCommand {
  readonly capture: OutputCapture;
  readonly isolation: Isolation;
  /** The top process of its own tree (none for a line in a persistent terminal). */
  readonly pid?: number;
  /** Resolves when the command has ended and its output is drained. */
  readonly finished: Promise<ExitStatus>;
  /** Whether standard input can still be written. */
  readonly acceptsInput: boolean;
  write(input: string): void;
  closeInput(): void;
  /** Ends the command and every process it started (SIGTERM, then SIGKILL after `graceMs`). */
  kill(graceMs: number): Promise<ExitStatus>;
}

/** Most time given to a command's pipes to close after it exited (a leftover may hold them open). */
const DRAIN_MS = 500;

/** A command that owns its process tree: output piped into `capture`, everything ended when it exits. */
export function trackProcessTree(
  tree: ProcessTree,
  capture: OutputCapture,
  onEnd?: () => void,
): RunningCommand {
  const { child } = tree;
  const drained = Promise.all([streamEnd(child.stdout), streamEnd(child.stderr)]);
  child.stdout?.on("data", (chunk: Buffer) => capture.write(chunk));
  child.stderr?.on("data", (chunk: Buffer) => capture.write(chunk));
  let inputOpen = child.stdin !== null;

  const finished = tree.exited.then(async (status) => {
    inputOpen = false;
    await Promise.race([drained, delay(DRAIN_MS)]);
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    capture.finish();
    onEnd?.();
    return status;
  });

  return {
    capture,
    isolation: tree.isolation,
    pid: tree.pid,
    finished,
    get acceptsInput() {
      return inputOpen;
    },
    write(input) {
      if (inputOpen) child.stdin?.write(input);
    },
    closeInput() {
      inputOpen = false;
      child.stdin?.end();
    },
    async kill(graceMs) {
      await tree.kill(graceMs);
      return finished;
    },
  };
}

function streamEnd(stream: NodeJS.ReadableStream | null): Promise<void> {
  if (!stream) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once("close", () => resolve());
    stream.once("end", () => resolve());
    stream.once("error", () => resolve());
  });
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
