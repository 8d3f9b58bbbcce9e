import { readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantryOptions, type GantrySession } from "../../../src/gantry.js";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import { TINY_PNG } from "../../support/provider-json.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
let server: ModelServer | undefined;

afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  await server?.close();
  session = undefined;
  ws = undefined;
  server = undefined;
});

const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]);

async function open(
  images: Record<string, unknown> | undefined,
  options: Partial<GantryOptions> = {},
  files: Record<string, string | Uint8Array> = {},
) {
  ws = await createTempWorkspace(files);
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    settings: { ...(images ? { images } : {}), ...options.settings },
    variables: { OPENAI_API_KEY: "openai-key", GEMINI_API_KEY: "gemini-key" },
    ...options,
  });
  const s = session;
  return (args: Record<string, unknown>) => s.pipeline.run({ name: "generate_image", args });
}

describe("generate_image on OpenAI's image models", () => {
  it("asks images/generations with the nearest size and saves a PNG artifact the model sees", async () => {
    server = await startModelServer([
      {
        image: { data: TINY_PNG, revisedPrompt: "A tidy login screen, flat style" },
        expect: (request) => {
          expect(request.path).toBe("/v1/images/generations");
          expect(request.headers.authorization).toBe("Bearer openai-key");
          expect(request.body).toEqual({
            model: "gpt-image-1",
            prompt: "a login screen",
            n: 1,
            size: "1536x1024",
          });
        },
      },
    ]);
    const generate = await open({ model: "openai:gpt-image-1", baseUrl: server.baseUrl("openai") });
    const result = await generate({
      Prompt: "a login screen",
      ImageName: "login_mockup",
      AspectRatio: "16:9",
    });
    server.assertDone();
    expect(result.error).toBe(false);
    expect(result.text).toContain(
      "Saved the generated image as .agents/artifacts/login_mockup.png (image/png, ",
    );
    expect(result.text).toContain("AspectRatio 16:9 was sent as the size 1536x1024");
    expect(result.text).toContain("The provider revised the prompt to: A tidy login screen, flat style");
    expect(result.images).toEqual([
      { mimeType: "image/png", data: Buffer.from(TINY_PNG).toString("base64") },
    ]);
    const saved = await readFile(path.join(ws?.root as string, ".agents/artifacts/login_mockup.png"));
    expect(new Uint8Array(saved)).toEqual(TINY_PNG);
    expect(result.metadata.artifact).toMatchObject({
      path: ".agents/artifacts/login_mockup.png",
      type: "image",
      summary: "a login screen",
      tool: "generate_image",
    });
    expect(session?.artifacts.list().map((a) => a.path)).toEqual([".agents/artifacts/login_mockup.png"]);
    // atomic: no temp file is left in the folder
    expect(await readdir(path.join(ws?.root as string, ".agents/artifacts"))).toEqual(["login_mockup.png"]);
  });

  it("never overwrites an existing image: the new one takes the next free name", async () => {
    server = await startModelServer([{ image: { data: TINY_PNG } }]);
    const generate = await open(
      { model: "openai:gpt-image-1", baseUrl: server.baseUrl("openai"), dir: "design" },
      {},
      { "design/logo.png": "the user's own logo" },
    );
    const result = await generate({ Prompt: "a logo", ImageName: "logo.png" });
    expect(result.error).toBe(false);
    expect(result.metadata).toMatchObject({ path: "design/logo-2.png", renamedFrom: "design/logo.png" });
    expect(result.text).toContain("design/logo.png already existed, so it was not replaced.");
    expect(await readFile(path.join(ws?.root as string, "design/logo.png"), "utf8")).toBe(
      "the user's own logo",
    );
  });

  it("names the file after the format the provider answered with", async () => {
    server = await startModelServer([{ image: { data: JPEG, mimeType: "image/jpeg" } }]);
    const generate = await open({ model: "openai:gpt-image-1", baseUrl: server.baseUrl("openai") });
    const result = await generate({ Prompt: "a photo", ImageName: "photo.png" });
    expect(result.metadata).toMatchObject({ path: ".agents/artifacts/photo.jpg", mimeType: "image/jpeg" });
  });

  it("edits workspace images through images/edits, sent as multipart files", async () => {
    server = await startModelServer([
      {
        image: { data: TINY_PNG },
        expect: (request) => {
          expect(request.path).toBe("/v1/images/edits");
          const fields = request.body.multipart as {
            name: string;
            filename?: string;
            contentType?: string;
            value: string;
          }[];
          expect(fields.find((f) => f.name === "prompt")?.value).toBe("make the button blue");
          expect(fields.find((f) => f.name === "model")?.value).toBe("gpt-image-1");
          expect(fields.filter((f) => f.name === "image").map((f) => f.contentType)).toEqual(["image/png"]);
        },
      },
    ]);
    const generate = await open(
      { model: "openai:gpt-image-1", baseUrl: server.baseUrl("openai") },
      {},
      { "ui/screen.png": TINY_PNG },
    );
    const result = await generate({
      Prompt: "make the button blue",
      ImageName: "screen_blue",
      ImagePaths: ["ui/screen.png"],
    });
    server.assertDone();
    expect(result.error).toBe(false);
    expect(result.text).toContain("Input images: ui/screen.png.");
  });

  it("refuses input images outside the workspace, secret ones and non-images before calling the provider", async () => {
    server = await startModelServer([]);
    const generate = await open(
      { model: "openai:gpt-image-1", baseUrl: server.baseUrl("openai") },
      {},
      { "notes.txt": "text", "certs/site.key": "k" },
    );
    await writeFile(path.join(ws?.parent as string, "outside.png"), TINY_PNG);
    await symlink(path.join(ws?.parent as string, "outside.png"), path.join(ws?.root as string, "link.png"));
    const outside = await generate({ Prompt: "x", ImageName: "a", ImagePaths: ["../outside.png"] });
    expect(outside.errorCode).toBe("outside_workspace");
    const linked = await generate({ Prompt: "x", ImageName: "a", ImagePaths: ["link.png"] });
    expect(linked.errorCode).toBe("outside_workspace");
    const secret = await generate({ Prompt: "x", ImageName: "a", ImagePaths: ["certs/site.key"] });
    expect(secret.errorCode).toBe("secret_path");
    const text = await generate({ Prompt: "x", ImageName: "a", ImagePaths: ["notes.txt"] });
    expect(text.errorCode).toBe("binary_file");
    expect(text.text).toContain('"notes.txt" is not a PNG, JPEG, GIF or WebP image');
    expect(server.requests).toHaveLength(0);
  });

  it("reports a 429 and saves nothing", async () => {
    server = await startModelServer([
      { error: { status: 429, message: "Rate limit reached for images per minute" } },
    ]);
    const generate = await open({ model: "openai:gpt-image-1", baseUrl: server.baseUrl("openai") });
    const result = await generate({ Prompt: "x", ImageName: "x" });
    expect(result.errorCode).toBe("unavailable");
    expect(result.text).toContain(
      "openai:gpt-image-1 made no image: rate limited (HTTP 429): Rate limit reached for images per minute. Wait before trying again. Nothing was saved.",
    );
    expect(result.metadata).toMatchObject({ status: 429 });
  });

  it("passes a refusal of the provider (content policy) on to the model", async () => {
    server = await startModelServer([
      { error: { status: 400, message: "Your request was rejected as a result of our safety system." } },
    ]);
    const generate = await open({ model: "openai:gpt-image-1", baseUrl: server.baseUrl("openai") });
    const result = await generate({ Prompt: "x", ImageName: "x" });
    expect(result.errorCode).toBe("execution_failed");
    expect(result.text).toContain("rejected as a result of our safety system");
  });
});

describe("generate_image on Gemini image models and OpenAI-compatible servers", () => {
  it("asks generateContent for an IMAGE with the aspect ratio and saves the inline image", async () => {
    server = await startModelServer([
      {
        image: { data: TINY_PNG },
        expect: (request) => {
          expect(request.path).toBe("/v1beta/models/gemini-2.5-flash-image:generateContent");
          expect(request.headers["x-goog-api-key"]).toBe("gemini-key");
          expect(request.body.generationConfig).toEqual({
            responseModalities: ["IMAGE"],
            imageConfig: { aspectRatio: "9:16" },
          });
        },
      },
    ]);
    const generate = await open({
      model: "google:gemini-2.5-flash-image",
      baseUrl: server.baseUrl("gemini"),
    });
    const result = await generate({
      Prompt: "a phone wallpaper",
      ImageName: "wallpaper",
      AspectRatio: "9:16",
    });
    server.assertDone();
    expect(result.metadata).toMatchObject({ path: ".agents/artifacts/wallpaper.png" });
  });

  it("refuses an aspect ratio Gemini does not take, listing those it does", async () => {
    server = await startModelServer([]);
    const generate = await open({
      model: "google:gemini-2.5-flash-image",
      baseUrl: server.baseUrl("gemini"),
    });
    const result = await generate({ Prompt: "x", ImageName: "x", AspectRatio: "7:3" });
    expect(result.errorCode).toBe("invalid_arguments");
    expect(result.text).toContain("AspectRatio 7:3 is not one Gemini image models take: 1:1, 2:3");
    expect(server.requests).toHaveLength(0);
  });

  it("uses an OpenAI-compatible server's images/generations at images.baseUrl", async () => {
    server = await startModelServer([
      {
        image: { data: TINY_PNG },
        expect: (request) => expect(request.body).toMatchObject({ model: "flux-schnell", prompt: "a fox" }),
      },
    ]);
    const generate = await open({
      model: "openai-compatible:flux-schnell",
      baseUrl: server.baseUrl("openai"),
    });
    const result = await generate({ Prompt: "a fox", ImageName: "fox" });
    server.assertDone();
    expect(result.error).toBe(false);
  });
});

describe("generate_image settings and arguments", () => {
  it("says which setting to add when no image model is configured", async () => {
    const generate = await open(undefined);
    const result = await generate({ Prompt: "x", ImageName: "x" });
    expect(result.errorCode).toBe("unavailable");
    expect(result.text).toContain('{"images": {"model": "openai:gpt-image-1"}}');
    expect(result.text).toContain("google:gemini-2.5-flash-image");
  });

  it("refuses an ImageName with folders or a leading dot", async () => {
    const generate = await open({ model: "openai:gpt-image-1" });
    for (const ImageName of ["../escape", "sub/name", ".hidden", ""]) {
      const result = await generate({ Prompt: "x", ImageName });
      expect(result.errorCode, ImageName).toBe("invalid_arguments");
      expect(result.text).toContain("must be a plain file name");
    }
  });

  it("names what is missing: a key, a server, a model that makes images", async () => {
    let generate = await open({ model: "openai:gpt-image-1" }, { variables: {} });
    expect((await generate({ Prompt: "x", ImageName: "x" })).text).toContain(
      "needs an API key: set OPENAI_API_KEY",
    );
    await session?.dispose();
    await ws?.cleanup();
    generate = await open({ model: "openai-compatible:flux" });
    expect((await generate({ Prompt: "x", ImageName: "x" })).text).toContain("set images.baseUrl");
    await session?.dispose();
    await ws?.cleanup();
    generate = await open({ model: "google:imagen-4.0-generate-001" });
    expect((await generate({ Prompt: "x", ImageName: "x" })).text).toContain(
      "Imagen models are not supported",
    );
  });

  it("counts a workspace's images section only in a trusted folder: a repository cannot send prompts to its server", async () => {
    server = await startModelServer([{ image: { data: TINY_PNG } }]);
    const repository = JSON.stringify({
      images: { model: "openai:gpt-image-1", baseUrl: server.baseUrl("openai") },
    });
    ws = await createTempWorkspace({ ".agents/settings.json": repository });
    session = createGantrySession({ workspace: ws.root, home: ws.home, variables: { OPENAI_API_KEY: "k" } });
    const untrusted = await session.pipeline.run({
      name: "generate_image",
      args: { Prompt: "x", ImageName: "x" },
    });
    expect(untrusted.text).toContain("generate_image has no image model configured");
    expect(session.config.values.find((value) => value.key === "images")).toMatchObject({
      honoured: false,
      wantsTrust: true,
    });
    expect(server.requests).toHaveLength(0);
    await session.dispose();
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: true,
      variables: { OPENAI_API_KEY: "k" },
    });
    const trusted = await session.pipeline.run({
      name: "generate_image",
      args: { Prompt: "x", ImageName: "x" },
    });
    expect(trusted.error).toBe(false);
    server.assertDone();
  });

  it("asks the provider nothing when the write guard refuses the artifacts folder (a protected config folder)", async () => {
    server = await startModelServer([]);
    const generate = await open({
      model: "openai:gpt-image-1",
      baseUrl: server.baseUrl("openai"),
      dir: ".agents/agents",
    });
    const result = await generate({ Prompt: "x", ImageName: "x" });
    expect(result.errorCode).toBe("protected_path");
    expect(server.requests).toHaveLength(0);
    expect(await readdir(path.join(ws?.root as string))).not.toContain(".agents");
  });
});
