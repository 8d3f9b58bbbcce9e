import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantryOptions, type GantrySession } from "../../../src/gantry.js";
import { staysOnHost } from "../../../src/tools/web/fetch-page.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
const servers: Server[] = [];

afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  session = undefined;
  ws = undefined;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real HTTP server on 127.0.0.1 answering each path with its handler; unknown paths get 404. */
async function serve(routes: Record<string, Handler>): Promise<string> {
  const server = createServer((request, response) => {
    const handler = routes[request.url ?? "/"];
    if (handler) return handler(request, response);
    response.writeHead(404, { "content-type": "text/html" });
    response.end("<html><body><h1>Not Found</h1><p>No page at this address.</p></body></html>");
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function reply(contentType: string, body: string | Uint8Array, status = 200): Handler {
  return (_request, response) => {
    response.writeHead(status, { "content-type": contentType });
    response.end(body);
  };
}

function redirect(location: string, status = 302): Handler {
  return (_request, response) => {
    response.writeHead(status, { location });
    response.end();
  };
}

/** A session whose read_url_content may reach the test servers on 127.0.0.1 (web.allowPrivateNetwork). */
async function open(options: Omit<GantryOptions, "workspace" | "home"> = {}) {
  ws = await createTempWorkspace();
  const settings = options.settings ?? {};
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    ...options,
    settings: { ...settings, web: { allowPrivateNetwork: ["127.0.0.1"], ...settings.web } },
  });
  const s = session;
  return (Url: string, signal?: AbortSignal) =>
    s.pipeline.run({ name: "read_url_content", args: { Url } }, { signal });
}

describe("read_url_content", () => {
  it("turns an HTML page into Markdown with headings and absolute links, scripts and styles dropped", async () => {
    const base = await serve({
      "/docs/page": reply(
        "text/html; charset=utf-8",
        `<!doctype html><html><head><title>Guide &amp; Notes</title><style>body{color:red}</style>
        <script>var secret = "script body";</script></head><body>
        <h1>Install</h1><p>Run the <a href="../setup">setup</a> first.</p>
        <noscript>enable javascript</noscript><h2>Usage</h2><ul><li>one</li><li>two</li></ul>
        <img src="img/shot.png" alt="screen"><a href="/wiki/A_(b)">paren link</a>
        <script>alert("inline")</script></body></html>`,
      ),
    });
    const fetchUrl = await open();
    const result = await fetchUrl(`${base}/docs/page`);
    expect(result.error).toBe(false);
    expect(result.text).toContain(`URL: ${base}/docs/page`);
    expect(result.text).toContain("Status: 200 OK");
    expect(result.text).toContain("Content-Type: text/html; charset=utf-8");
    expect(result.text).toContain("Title: Guide & Notes");
    expect(result.text).toContain("# Install");
    expect(result.text).toContain("## Usage");
    expect(result.text).toContain(`Run the [setup](${base}/setup) first.`);
    expect(result.text).toMatch(/- +one/);
    expect(result.text).toContain(`![screen](${base}/docs/img/shot.png)`);
    expect(result.text).toContain(`[paren link](${base}/wiki/A_%28b%29)`);
    // the title shows once, in the header, not again as body text
    expect(result.text.split("Guide & Notes")).toHaveLength(2);
    for (const gone of ["script body", "alert", "color:red", "enable javascript"]) {
      expect(result.text).not.toContain(gone);
    }
    expect(result.metadata).toMatchObject({
      url: `${base}/docs/page`,
      finalUrl: `${base}/docs/page`,
      status: 200,
      contentType: "text/html; charset=utf-8",
      truncated: false,
    });
  });

  it("returns plain text and JSON as they are", async () => {
    const base = await serve({
      "/notes.txt": reply("text/plain", "line one\n<b>not html</b>\n"),
      "/data.json": reply("application/json", '{"a": [1, 2]}'),
    });
    const fetchUrl = await open();
    const text = await fetchUrl(`${base}/notes.txt`);
    expect(text.error).toBe(false);
    expect(text.text).toMatch(/Content-Type: text\/plain\n\nline one\n<b>not html<\/b>/);
    expect(text.metadata.bytes).toBe(25);
    const json = await fetchUrl(`${base}/data.json`);
    expect(json.text).toContain('{"a": [1, 2]}');
  });

  it("decodes the body with the charset of its Content-Type", async () => {
    const latin1 = Buffer.from("café crème à la carte", "latin1");
    const base = await serve({
      "/latin1": reply("text/plain; charset=ISO-8859-1", latin1),
      "/meta": reply("text/html", Buffer.from('<meta charset="iso-8859-1"><p>naïve</p>', "latin1")),
      "/bogus": reply("text/plain; charset=x-no-such-charset", "plain ascii"),
    });
    const fetchUrl = await open();
    expect((await fetchUrl(`${base}/latin1`)).text).toContain("café crème à la carte");
    expect((await fetchUrl(`${base}/meta`)).text).toContain("naïve");
    const bogus = await fetchUrl(`${base}/bogus`);
    expect(bogus.text).toContain('[unknown charset "x-no-such-charset": decoded as utf-8]');
    expect(bogus.text).toContain("plain ascii");
  });

  it("decodes a gzip, deflate or brotli compressed body", async () => {
    const page = "compressed page text\n".repeat(50);
    const encoded =
      (encoding: string, body: Buffer): Handler =>
      (_request, response) => {
        response.writeHead(200, { "content-type": "text/plain", "content-encoding": encoding });
        response.end(body);
      };
    const base = await serve({
      "/gzip": encoded("gzip", gzipSync(page)),
      "/deflate": encoded("deflate", deflateSync(page)),
      "/br": encoded("br", brotliCompressSync(page)),
    });
    const fetchUrl = await open();
    for (const path of ["/gzip", "/deflate", "/br"]) {
      const result = await fetchUrl(`${base}${path}`);
      expect(result.error, path).toBe(false);
      expect(result.metadata.bytes, path).toBe(page.length);
      expect(result.text, path).toContain("compressed page text\ncompressed page text");
    }
  });

  it("reports a 404 as an error with the status and the start of the page", async () => {
    const base = await serve({});
    const fetchUrl = await open();
    const result = await fetchUrl(`${base}/missing`);
    expect(result.error).toBe(true);
    expect(result.errorCode).toBe("not_found");
    expect(result.text).toContain("Status: 404 Not Found");
    expect(result.text).toContain("No page at this address.");
    expect(result.metadata.status).toBe(404);
  });

  it("refuses URLs that are not http or https, and malformed ones, naming the problem", async () => {
    const fetchUrl = await open();
    for (const [url, problem] of [
      ["file:///etc/passwd", "file: scheme"],
      ["data:text/plain,hello", "data: scheme"],
      ["ftp://example.com/file", "ftp: scheme"],
      ["not a url", "not a valid URL"],
      ["example.com/page", "not a valid URL"],
    ]) {
      const result = await fetchUrl(url as string);
      expect(result.error, url).toBe(true);
      expect(result.errorCode, url).toBe("invalid_arguments");
      expect(result.text, url).toContain(problem);
    }
  });

  it("refuses images, PDFs and other binary content, naming the content type", async () => {
    const base = await serve({
      "/logo.png": reply("image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0])),
      "/paper.pdf": reply("application/pdf", "%PDF-1.7\n"),
    });
    const fetchUrl = await open();
    const image = await fetchUrl(`${base}/logo.png`);
    expect(image).toMatchObject({ error: true, errorCode: "binary_file" });
    expect(image.text).toContain("image/png");
    const pdf = await fetchUrl(`${base}/paper.pdf`);
    expect(pdf.errorCode).toBe("binary_file");
    expect(pdf.text).toContain("application/pdf");
  });

  it("stops reading a body past web.maxBytes (default 5 MB) and says the page was cut", async () => {
    const chunk = Buffer.alloc(64 * 1024, "abcdefghijklmno\n");
    const base = await serve({
      "/big.txt": (_request, response) => {
        response.writeHead(200, { "content-type": "text/plain" });
        for (let sent = 0; sent < 6 * 1024 * 1024; sent += chunk.length) response.write(chunk);
        response.end();
      },
    });
    const fetchUrl = await open();
    const result = await fetchUrl(`${base}/big.txt`);
    expect(result.error).toBe(false);
    expect(result.metadata).toMatchObject({ bytes: 5 * 1024 * 1024, truncated: true });
    expect(result.text).toContain("[page cut: only the first 5242880 bytes were read");
    // the pipeline's own limit shortens what the model sees
    expect(result.text.length).toBeLessThan(25_000);
  });

  it("stops a server that never finishes its body after web.timeoutMs", async () => {
    const base = await serve({
      "/slow": (_request, response) => {
        response.writeHead(200, { "content-type": "text/plain" });
        response.write("the start, and then nothing more");
      },
    });
    const fetchUrl = await open({ settings: { web: { timeoutMs: 300 } } });
    const started = Date.now();
    const result = await fetchUrl(`${base}/slow`);
    expect(result).toMatchObject({ error: true, errorCode: "timeout" });
    expect(result.text).toContain("longer than 300 ms");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("follows a redirect on the same host and reports where it ended", async () => {
    const base = await serve({
      "/old": redirect("/middle", 301),
      "/middle": redirect("/new", 307),
      "/new": reply("text/plain", "moved here"),
    });
    const fetchUrl = await open();
    const result = await fetchUrl(`${base}/old`);
    expect(result.error).toBe(false);
    expect(result.text).toContain(`URL: ${base}/new`);
    expect(result.text).toContain(`Redirected from: ${base}/old`);
    expect(result.text).toContain("moved here");
    expect(result.metadata).toMatchObject({ url: `${base}/old`, finalUrl: `${base}/new`, redirects: 2 });
  });

  it("gives up after five redirects", async () => {
    const base = await serve({ "/loop": redirect("/loop") });
    const fetchUrl = await open();
    const result = await fetchUrl(`${base}/loop`);
    expect(result).toMatchObject({ error: true, errorCode: "execution_failed" });
    expect(result.text).toContain("redirected more than 5 times");
  });

  it("does not follow a redirect to another host; it tells the model to fetch the new URL itself", async () => {
    const other = await serve({ "/landing": reply("text/plain", "other host content") });
    const otherOnLocalhost = other.replace("127.0.0.1", "localhost");
    const base = await serve({
      "/away": redirect(`${otherOnLocalhost}/landing`),
      "/other-port": redirect(`${other}/landing`),
    });
    const fetchUrl = await open();
    const result = await fetchUrl(`${base}/away`);
    expect(result.error).toBe(false);
    expect(result.text).not.toContain("other host content");
    expect(result.text).toContain(`redirected (status 302) to ${otherOnLocalhost}/landing`);
    expect(result.text).toContain(`call read_url_content again with Url "${otherOnLocalhost}/landing"`);
    expect(result.metadata).toMatchObject({ redirectTo: `${otherOnLocalhost}/landing`, status: 302 });
    const port = await fetchUrl(`${base}/other-port`);
    expect(port.text).not.toContain("other host content");
    expect(port.metadata.redirectTo).toBe(`${other}/landing`);
  });

  it("stops the fetch when the call is aborted", async () => {
    let requested: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      requested = resolve;
    });
    const base = await serve({ "/hang": () => requested() });
    const fetchUrl = await open();
    const controller = new AbortController();
    const pending = fetchUrl(`${base}/hang`, controller.signal);
    await arrived;
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ error: true, errorCode: "aborted" });
  });

  it("reports a server that cannot be reached", async () => {
    const base = await serve({});
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const fetchUrl = await open();
    const result = await fetchUrl(`${base}/`);
    expect(result).toMatchObject({ error: true, errorCode: "unavailable" });
    expect(result.text).toContain("ECONNREFUSED");
  });

  it("is answered by its aliases web_fetch and WebFetch", async () => {
    const base = await serve({ "/": reply("text/plain", "hello") });
    await open();
    for (const name of ["web_fetch", "WebFetch"]) {
      const result = await session?.pipeline.run({ name, args: { Url: `${base}/` } });
      expect(result?.text).toContain("hello");
    }
  });
});

describe("read_url_content and the permission policy", () => {
  it("runs when a WebFetch(domain:…) rule allows the host, and is denied without it", async () => {
    const base = await serve({ "/": reply("text/plain", "allowed page") });
    const allowed = await open({
      approvalMode: "default",
      settings: { permissions: { allow: ["WebFetch(domain:127.0.0.1)"] } },
    });
    const ran = await allowed(`${base}/`);
    expect(ran.error).toBe(false);
    expect(ran.text).toContain("allowed page");
    await session?.dispose();
    await ws?.cleanup();

    const refused = await open({ approvalMode: "default", settings: {} });
    const denied = await refused(`${base}/`);
    expect(denied).toMatchObject({ error: true, errorCode: "denied" });
    expect(denied.text).not.toContain("allowed page");
  });
});

describe("which redirects stay on the host", () => {
  it("allows the same host and port, and http→https on default ports; nothing else", () => {
    const stays = (from: string, to: string) => staysOnHost(new URL(from), new URL(to));
    expect(stays("http://a.example/x", "http://A.example/y")).toBe(true);
    expect(stays("http://a.example/x", "https://a.example/x")).toBe(true);
    expect(stays("http://127.0.0.1:8080/", "http://127.0.0.1:8080/next")).toBe(true);
    expect(stays("https://a.example/", "http://a.example/")).toBe(false);
    expect(stays("http://a.example/", "http://b.a.example/")).toBe(false);
    expect(stays("http://127.0.0.1:8080/", "http://127.0.0.1:9090/")).toBe(false);
    expect(stays("http://127.0.0.1:8080/", "https://127.0.0.1:8080/")).toBe(false);
  });
});
