import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { defineTool, errorResult, okResult, type ToolErrorCode, type ToolResult } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { type CrossHostRedirect, type FetchedPage, fetchPage } from "./fetch-page.js";
import { createNetworkGuard } from "./network-guard.js";
import { classifyPage, decodeBody, mediaTypeOf } from "./page-text.js";
import { type ResolvedWebSettings, resolveWebSettings } from "./settings.js";
import { htmlToMarkdown, type MarkdownOutcome } from "./to-markdown.js";

const ReadUrlContentParameters = lazySchema(() =>
  z.object({
    Url: z
      .string()
      .describe(
        "The page to fetch: a full http:// or https:// URL. Redirects to another host are not followed; the result names the new URL to fetch instead.",
      ),
  }),
);

/** Characters of a failed page's body shown with its status. */
const ERROR_EXCERPT_CHARS = 500;

/** `read_url_content`: one web page, as Markdown (HTML) or as text (plain text, JSON, XML). */
export function createReadUrlContentTool(env: ToolEnvironment) {
  const limits = resolveWebSettings(env.settings.web);
  const guard = createNetworkGuard({
    allowPrivateNetwork: limits.allowPrivateNetwork,
    permissions: env.permissions,
  });
  return defineTool({
    spec: {
      name: "read_url_content",
      description:
        "Fetch a web page over http or https and return it as Markdown (HTML pages) or text (plain text, Markdown, JSON, XML). Images, PDFs and other binary content are refused. Redirects on the same host are followed; a redirect to another host is reported so you can fetch the new URL with another call. Long pages are cut. Addresses of this machine, of private networks and of cloud metadata services are refused unless the user allowed them.",
      parameters: ReadUrlContentParameters,
      safety: "network",
      group: "WebFetch",
      aliases: ["web_fetch", "WebFetch"],
    },
    async execute(args, ctx) {
      const url = parseHttpUrl(args.Url);
      if (!url.ok) return errorResult("invalid_arguments", url.message, { url: args.Url });
      const started = Date.now();
      const outcome = await fetchPage(url.value, limits, ctx.signal, guard);
      if (outcome.kind === "failure") return errorResult(outcome.code, outcome.message, { url: args.Url });
      if (outcome.kind === "redirect") return redirectResult(args.Url, outcome);
      // one limit covers the whole call: what the fetch left of it is what the conversion may take
      const left = Math.max(0, limits.timeoutMs - (Date.now() - started));
      return pageResult(args.Url, outcome, limits, ctx.signal, AbortSignal.timeout(left));
    },
  });
}

type ParsedUrl = { ok: true; value: URL } | { ok: false; message: string };

function parseHttpUrl(input: string): ParsedUrl {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return {
      ok: false,
      message: `Url "${input}" is not a valid URL; give a full http:// or https:// address.`,
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      message: `Url "${input}" uses the ${url.protocol.slice(0, -1)}: scheme; only http and https URLs can be fetched.`,
    };
  }
  if (url.username || url.password) {
    return { ok: false, message: `Url "${input}" holds a user name or password; give the URL without them.` };
  }
  return { ok: true, value: url };
}

function redirectResult(requested: string, redirect: CrossHostRedirect): ToolResult {
  const text = [
    `${redirect.fromUrl} redirected (status ${redirect.status}) to ${redirect.location}, on another host or scheme, which was not fetched.`,
    `To read it, call read_url_content again with Url "${redirect.location}".`,
  ].join("\n");
  return okResult(text, {
    url: requested,
    finalUrl: redirect.fromUrl,
    status: redirect.status,
    redirectTo: redirect.location,
    redirects: redirect.redirects,
    bytes: 0,
    truncated: false,
  });
}

async function pageResult(
  requested: string,
  page: FetchedPage,
  limits: ResolvedWebSettings,
  callSignal: AbortSignal,
  deadline: AbortSignal,
): Promise<ToolResult> {
  const metadata = {
    url: requested,
    finalUrl: page.finalUrl,
    status: page.status,
    contentType: page.contentType,
    bytes: page.body.byteLength,
    truncated: page.truncated,
    redirects: page.redirects,
  };
  const ok = page.status >= 200 && page.status < 300;
  const kind = classifyPage(page.contentType, page.body);
  if (kind === "refused") {
    const what = mediaTypeOf(page.contentType) || "binary content with no Content-Type";
    const text = ok
      ? `${page.finalUrl} is ${what}, which read_url_content cannot show as text (it reads HTML, plain text, Markdown, JSON and XML).`
      : `${page.finalUrl} answered ${statusLine(page)} (${what}).`;
    return errorResult(ok ? "binary_file" : statusErrorCode(page.status), text, metadata);
  }
  const decoded = decodeBody(page.contentType, page.body, kind);
  let converted: { markdown: string; title?: string } = { markdown: decoded.text };
  if (kind === "html") {
    const signal = AbortSignal.any([callSignal, deadline]);
    const outcome = await htmlToMarkdown(decoded.text, page.finalUrl, signal);
    if (!outcome.ok) return conversionFailure(page, outcome, limits, metadata, callSignal.aborted);
    converted = outcome.page;
  }
  const header = headerLines(
    page,
    limits.maxBytes,
    decoded.unknownCharset,
    "title" in converted ? converted.title : undefined,
  );
  if (!ok) {
    const excerpt = excerptOf(converted.markdown);
    const text = `${header.join("\n")}\n\n${excerpt ? `The server answered an error; the page begins:\n${excerpt}` : "The page is empty."}`;
    return errorResult(statusErrorCode(page.status), text, metadata);
  }
  const body = converted.markdown.trim() === "" ? "[the page has no text]" : converted.markdown;
  return okResult(`${header.join("\n")}\n\n${body}`, metadata);
}

/** Why a fetched HTML page has no Markdown: the caller stopped, the call's time ran out, or the converter failed. */
function conversionFailure(
  page: FetchedPage,
  outcome: Exclude<MarkdownOutcome, { ok: true }>,
  limits: ResolvedWebSettings,
  metadata: Record<string, unknown>,
  stoppedByCaller: boolean,
): ToolResult {
  const what = `${page.finalUrl} (${page.body.byteLength} bytes of HTML)`;
  if (outcome.reason === "aborted" && stoppedByCaller) {
    return errorResult(
      "aborted",
      `read_url_content was stopped while converting ${what} to Markdown.`,
      metadata,
    );
  }
  if (outcome.reason === "aborted") {
    return errorResult(
      "timeout",
      `${what} was fetched, but converting it to Markdown did not finish within the ${limits.timeoutMs} ms limit of one read_url_content call (web.timeoutMs in .agents/settings.json), so it was stopped.`,
      metadata,
    );
  }
  if (outcome.reason === "too_deep") {
    return errorResult(
      "execution_failed",
      `${what} could not be converted to Markdown: its elements are nested too deeply (${outcome.message}).`,
      metadata,
    );
  }
  return errorResult(
    "execution_failed",
    `Converting ${what} to Markdown failed: ${outcome.message}`,
    metadata,
  );
}

function headerLines(page: FetchedPage, maxBytes: number, unknownCharset?: string, title?: string): string[] {
  const lines = [
    `URL: ${page.finalUrl}`,
    ...(page.redirects > 0 ? [`Redirected from: ${page.requestedUrl}`] : []),
    `Status: ${statusLine(page)}`,
    `Content-Type: ${page.contentType || "(none)"}`,
  ];
  if (title) lines.push(`Title: ${title}`);
  if (unknownCharset) lines.push(`[unknown charset "${unknownCharset}": decoded as utf-8]`);
  if (page.truncated) {
    lines.push(`[page cut: only the first ${maxBytes} bytes were read; the rest of the page is not shown]`);
  }
  return lines;
}

function statusLine(page: FetchedPage): string {
  return page.statusText ? `${page.status} ${page.statusText}` : String(page.status);
}

function statusErrorCode(status: number): ToolErrorCode {
  if (status === 404 || status === 410) return "not_found";
  if (status === 408 || status === 429 || status >= 500) return "unavailable";
  return "execution_failed";
}

function excerptOf(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= ERROR_EXCERPT_CHARS ? trimmed : `${trimmed.slice(0, ERROR_EXCERPT_CHARS)}…`;
}
