import { afterEach, describe, expect, it } from "vitest";
import { type ExecFixture, openExecFixture, waitFor } from "./helpers.js";

let fixture: ExecFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe("schedule", () => {
  it("fires a one-shot timer into the inbox once, holding a headless run open until then", async () => {
    fixture = await openExecFixture();
    const { inbox } = fixture.session;
    const result = await fixture.run("schedule", { Prompt: "check the build", DurationSeconds: 0.2 });
    expect(result.metadata.scheduleId).toBe("s1");
    expect(inbox.pendingHolds).toBe(1);
    await inbox.wait("main", AbortSignal.timeout(3_000));
    expect(inbox.drain()).toEqual([{ source: "schedule s1", text: "check the build", agentId: "main" }]);
    expect(inbox.pendingHolds).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(inbox.drain()).toEqual([]);
    expect((await fixture.run("manage_task", { Action: "status", TaskId: "s1" })).text).toContain(
      "[schedule done]",
    );
  });

  it("fires a cron schedule with seconds until MaxIterations", async () => {
    fixture = await openExecFixture();
    const { inbox } = fixture.session;
    await fixture.run("schedule", { Prompt: "tick", CronExpression: "*/1 * * * * *", MaxIterations: 2 });
    const list = await fixture.run("manage_task", { Action: "list" });
    expect(list.text).toMatch(/s1 \[schedule active\] cron "\*\/1 \* \* \* \* \*", fired 0\/2, next /);
    const received: unknown[] = [];
    await waitFor(() => {
      received.push(...inbox.drain());
      return received.length >= 2;
    }, 4_000);
    expect(received).toEqual([
      { source: "schedule s1", text: "tick", agentId: "main" },
      { source: "schedule s1", text: "tick", agentId: "main" },
    ]);
    expect(inbox.pendingHolds).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(inbox.drain()).toEqual([]);
    const status = await fixture.run("manage_task", { Action: "status", TaskId: "s1" });
    expect(status.text).toContain("[schedule done]");
    expect(status.text).toContain("fired 2/2");
  });

  it("is cancelled through manage_task kill and releases the headless hold", async () => {
    fixture = await openExecFixture();
    const { inbox } = fixture.session;
    await fixture.run("schedule", { Prompt: "never", DurationSeconds: 0.3 });
    const killed = await fixture.run("manage_task", { Action: "kill", TaskId: "s1" });
    expect(killed.text).toContain("Cancelled s1");
    expect(inbox.pendingHolds).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(inbox.drain()).toEqual([]);
  });

  it("waits for a TimerCondition to exit 0 before firing", async () => {
    fixture = await openExecFixture({}, { exec: { conditionPollSeconds: 0.1 } });
    const { inbox } = fixture.session;
    await fixture.run("schedule", { Prompt: "server is up", TimerCondition: "test -f ready" });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(inbox.drain()).toEqual([]);
    const waiting = await fixture.run("manage_task", { Action: "status", TaskId: "s1" });
    expect(waiting.text).toContain("waiting for its condition (last exit 1)");
    await fixture.ws.write("ready", "");
    await inbox.wait("main", AbortSignal.timeout(3_000));
    expect(inbox.drain()).toMatchObject([{ text: "server is up" }]);
  });

  it("refuses a call naming both a duration and a cron expression, or a bad cron expression", async () => {
    fixture = await openExecFixture();
    const both = await fixture.run("schedule", {
      Prompt: "x",
      DurationSeconds: 1,
      CronExpression: "* * * * *",
    });
    expect(both.errorCode).toBe("invalid_arguments");
    const bad = await fixture.run("schedule", { Prompt: "x", CronExpression: "every tuesday" });
    expect(bad.errorCode).toBe("invalid_arguments");
    expect(bad.text).toContain("every tuesday");
    const none = await fixture.run("schedule", { Prompt: "x" });
    expect(none.text).toContain("DurationSeconds, CronExpression or TimerCondition");
    expect(fixture.session.inbox.pendingHolds).toBe(0);
  });

  it("stops every schedule when the session ends", async () => {
    fixture = await openExecFixture();
    const { inbox } = fixture.session;
    await fixture.run("schedule", { Prompt: "late", DurationSeconds: 0.3 });
    await fixture.session.dispose();
    expect(inbox.pendingHolds).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(inbox.drain()).toEqual([]);
  });
});
