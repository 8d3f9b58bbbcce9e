import { expect, it } from "vitest";
import { describeTarget, formatCallLine, GROUP_PHRASES } from "../../../src/cli/tui/tool-lines.js";

it('shows a web search in seed 000\'s words: "Searched web for <query>", and "Searching web" while it runs', () => {
  const target = describeTarget("search_web", { query: "vitest snapshot", domain: "vitest.dev" }, "/ws");
  expect(formatCallLine({ group: "WebSearch", name: "search_web", target })).toBe(
    'Searched web for "vitest snapshot"',
  );
  expect(GROUP_PHRASES.WebSearch?.running).toBe("Searching web");
  expect(formatCallLine({ group: "WebSearch", name: "search_web", target: "" })).toBe("Searching web");
});

it("names the image a generate_image call makes", () => {
  const target = describeTarget(
    "generate_image",
    { Prompt: "a long prompt", ImageName: "login_mockup" },
    "/ws",
  );
  expect(formatCallLine({ group: "Interaction", name: "generate_image", target })).toBe(
    "Interaction generate_image login_mockup",
  );
});
