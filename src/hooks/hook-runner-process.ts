// The hook runner process (hook-runner.ts): started by a session's process with an IPC channel, it
// starts the command hooks it is sent, each exactly as the session would (spawnCommandHook), and
// answers with their outcomes. When the channel closes (the session's process ended, however) every
// hook still running is ended and the runner exits.
import type { RunnerAnswer, RunnerMessage } from "./hook-runner.js";
import { pidNamespacePrefix } from "./pid-namespace.js";
import { spawnCommandHook } from "./run-command.js";

const running = new Map<number, { abort: AbortController; killGraceMs: number }>();
/** When the last SIGKILL of an aborted hook's group is due (its timer must get to fire). */
let lingerUntil = 0;

function say(answer: RunnerAnswer): void {
  if (process.connected) process.send?.(answer);
}

function abort(id: number): void {
  const hook = running.get(id);
  if (!hook) return;
  lingerUntil = Math.max(lingerUntil, Date.now() + hook.killGraceMs + 50);
  hook.abort.abort();
}

process.on("message", (message: RunnerMessage) => {
  if (message.type === "abort") {
    abort(message.id);
    return;
  }
  const { id, request } = message;
  const controller = new AbortController();
  running.set(id, { abort: controller, killGraceMs: request.killGraceMs ?? 500 });
  const watch = {
    onStart: (pid: number) => say({ type: "started", id, pid }),
    onEnd: () => say({ type: "ended", id }),
  };
  void spawnCommandHook({ ...request, signal: controller.signal }, watch).then((outcome) => {
    running.delete(id);
    say({ type: "done", id, outcome });
  });
});

process.on("disconnect", () => {
  // every hook still running is ended as at a timeout: SIGTERM now, SIGKILL after its grace, and the
  // runner stays until those are sent
  for (const id of [...running.keys()]) abort(id);
  setTimeout(() => process.exit(0), Math.max(0, lingerUntil - Date.now()));
});

// the namespace is probed once, here, before the first hook: the session's process never pays for it
pidNamespacePrefix();
say({ type: "ready" });
