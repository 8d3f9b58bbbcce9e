import { STATE } from "./session-state.js";

/** The part of a Restate object context the event log writes through. */
export interface StateWriter {
  set(key: string, value: unknown): void;
}

export interface StateReader {
  get<T>(key: string): Promise<T | null>;
}

/**
 * A session's stream-json lines, kept in the session object's state in chunks, one chunk per flush
 * (a turn's end, an ask, the end), so `gantry sessions --follow` can read from any worker what any
 * worker wrote. Lines come only from journaled values, so a replay writes exactly the same chunks.
 */
export interface EventLog {
  push(line: unknown): void;
  flush(): void;
}

export function createEventLog(state: StateWriter, firstChunk: number): EventLog {
  let next = firstChunk;
  let buffer: unknown[] = [];
  return {
    push(line) {
      if (line !== undefined) buffer.push(line);
    },
    flush() {
      if (buffer.length === 0) return;
      state.set(STATE.eventChunk(next), buffer);
      next++;
      state.set(STATE.eventCount, next);
      buffer = [];
    },
  };
}

/** The lines of chunks `from` onwards, and the chunk to ask for next. */
export async function readEventLog(
  state: StateReader,
  from: number,
): Promise<{ lines: unknown[]; next: number }> {
  const count = (await state.get<number>(STATE.eventCount)) ?? 0;
  const lines: unknown[] = [];
  for (let chunk = Math.max(0, from); chunk < count; chunk++)
    lines.push(...((await state.get<unknown[]>(STATE.eventChunk(chunk))) ?? []));
  return { lines, next: count };
}
