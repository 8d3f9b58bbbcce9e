import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { convertHtml } from "../../../src/tools/web/html-markdown.js";
import { REPO_ROOT, runGantryTool } from "../../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

// Worker threads run compiled JavaScript, so the worker path is driven through the build under dist/
// (npm test builds first) and through the bundled `gantry` command.
type ToMarkdown = typeof import("../../../src/tools/web/to-markdown.js");
let dist: ToMarkdown;
beforeAll(async () => {
  dist = await import(pathToFileURL(path.join(REPO_ROOT, "dist/tools/web/to-markdown.js")).href);
});

const PARAGRAPH = "<p>Some <b>bold</b> text, a <a href='/doc'>link</a> and <code>code</code>.</p>\n";
/** A page of about `megabytes` MB: seconds of turndown work. */
const bigPage = (megabytes: number) =>
  `<html><head><title>Big</title></head><body>${PARAGRAPH.repeat(Math.floor((megabytes * 1e6) / PARAGRAPH.length))}</body></html>`;
const deepPage = () => `<html><body>${"<div>".repeat(20_000)}deep${"</div>".repeat(20_000)}</body></html>`;

describe("HTML → Markdown on a worker thread", () => {
  it("finds the compiled worker next to the built module and converts as the calling thread would", async () => {
    expect(dist.markdownWorkerUrl()?.href).toMatch(/\/dist\/tools\/web\/markdown-worker\.js$/);
    const html = `<html><head><title>T &amp; U</title></head><body><h1>Hi</h1>${PARAGRAPH}</body></html>`;
    const outcome = await dist.htmlToMarkdown(html, "http://127.0.0.1:9/x/", new AbortController().signal);
    expect(outcome).toEqual({ ok: true, page: await convertHtml(html, "http://127.0.0.1:9/x/") });
    expect(outcome.ok && outcome.page).toMatchObject({ title: "T & U" });
    expect(outcome.ok && outcome.page.markdown).toContain("[link](http://127.0.0.1:9/doc)");
  });

  it("ends the worker when the signal fires, while the calling thread stays free", async () => {
    const controller = new AbortController();
    let settled = false;
    const converting = dist.htmlToMarkdown(bigPage(5), "http://127.0.0.1:9/", controller.signal);
    void converting.then(() => (settled = true));
    // a conversion on this thread would finish before any timer could fire; on the worker, this
    // thread runs a timer while the 5 MB page (seconds of work) is still being converted
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    controller.abort();
    expect(await converting).toMatchObject({ ok: false, reason: "aborted" });
  });

  it("names a page nested too deeply to convert at once, on the worker and on the calling thread", async () => {
    const signal = new AbortController().signal;
    expect(await dist.htmlToMarkdown(deepPage(), "http://127.0.0.1:9/", signal)).toMatchObject({
      ok: false,
      reason: "too_deep",
    });
    expect(await dist.htmlToMarkdown(deepPage(), "http://127.0.0.1:9/", signal, undefined)).toMatchObject({
      ok: false,
      reason: "too_deep",
      // counted from the tags, not found by a stack overflow after seconds of converting
      message: "20,000 levels; at most 1,000 can be converted",
    });
  });
});

describe("read_url_content's time limit covers the conversion", () => {
  let ws: TempWorkspace | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await ws?.cleanup();
    server = undefined;
    ws = undefined;
  });

  async function serveHtml(body: string): Promise<string> {
    server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(body);
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`;
  }

  it("stops converting a huge page when web.timeoutMs runs out, and says so", async () => {
    ws = await createTempWorkspace();
    await ws.write(
      ".agents/settings.json",
      JSON.stringify({ web: { timeoutMs: 1_000, allowPrivateNetwork: ["127.0.0.1"] } }),
    );
    const url = await serveHtml(bigPage(5));
    const { result } = await runGantryTool(
      "read_url_content",
      { Url: url },
      {
        workspace: ws.root,
        env: { HOME: ws.home },
        extra: ["--approval-mode", "yolo", "--trust"],
      },
    );
    expect(result).toMatchObject({ error: true, errorCode: "timeout" });
    expect(result.text).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/big \(\d+ bytes of HTML\) was fetched, but converting it to Markdown did not finish within the 1000 ms limit/,
    );
  });

  it("reports a page nested too deeply instead of a bare stack overflow", async () => {
    ws = await createTempWorkspace();
    await ws.write(".agents/settings.json", JSON.stringify({ web: { allowPrivateNetwork: ["127.0.0.1"] } }));
    const url = await serveHtml(deepPage());
    const { result } = await runGantryTool(
      "read_url_content",
      { Url: url },
      {
        workspace: ws.root,
        env: { HOME: ws.home },
        extra: ["--approval-mode", "yolo", "--trust"],
      },
    );
    expect(result).toMatchObject({ error: true, errorCode: "execution_failed" });
    expect(result.text).toContain("could not be converted to Markdown: its elements are nested too deeply");
  });
});
