import { describe, expect, it } from "vitest";
import { createScreen } from "../../../src/cli/tui/screen.js";

function recordingTerminal(columns = 40, rows = 10) {
  const writes: string[] = [];
  return { writes, out: { write: (text: string) => void writes.push(text), columns, rows } };
}

describe("the differential renderer", () => {
  it("rewrites only from the first changed line of the live area", () => {
    const { writes, out } = recordingTerminal();
    const screen = createScreen(out);
    screen.draw({ commit: [], live: ["answer so far", "⠋ Thinking", "> prompt", "footer"] });
    writes.length = 0;
    screen.draw({ commit: [], live: ["answer so far", "⠙ Thinking", "> prompt", "footer"] });
    const update = writes.join("");
    expect(update).toContain("⠙ Thinking");
    expect(update).not.toContain("answer so far");
    expect(update.startsWith("\x1b[?2026h")).toBe(true); // one synchronized update
    writes.length = 0;
    screen.draw({ commit: [], live: ["answer so far", "⠙ Thinking", "> prompt", "footer"] });
    expect(writes).toEqual([]); // nothing changed, nothing written
  });

  it("writes committed lines above the live area once, then draws the live area again", () => {
    const { writes, out } = recordingTerminal();
    const screen = createScreen(out);
    screen.draw({ commit: [], live: ["live one", "live two"] });
    writes.length = 0;
    screen.draw({ commit: ["final line"], live: ["live one", "live two"] });
    const update = writes.join("");
    expect(update).toMatch(/\x1b\[1A\r\x1b\[Jfinal line\r\n.*live one.*live two/s);
  });

  it("cuts lines to the terminal's width and keeps the live area below its height", () => {
    const { writes, out } = recordingTerminal(10, 4);
    const screen = createScreen(out);
    screen.draw({ commit: [], live: ["a".repeat(30), "1", "2", "3", "4"] });
    const drawn = writes.join("");
    expect(drawn).not.toContain("a".repeat(11));
    expect(drawn).not.toContain("\x1b[2K1"); // the top rows that do not fit are left out
    expect(drawn).toContain("\x1b[2K4");
  });
});
