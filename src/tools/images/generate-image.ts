import { z } from "zod";
import { artifactsDirOf } from "../../artifacts/artifacts.js";
import { lazySchema } from "../../config/lazy-schema.js";
import type { MadeImageModel } from "../../models/images.js";
import { imageMimeTypeOfBytes } from "../../workspace/text.js";
import { defineTool, errorResult, okResult, type ToolResult } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { editDepsOf, resolveWriteTarget, type Step } from "../files/edit-flow.js";
import { readInputImages } from "./input-images.js";
import { saveNewFile } from "./save-image.js";
import { DEFAULT_IMAGE_TIMEOUT_MS, GEMINI_ASPECT_RATIOS, HOW_TO_CONFIGURE_IMAGES } from "./settings.js";

const GenerateImageParameters = lazySchema(() =>
  z.object({
    Prompt: z.string().trim().min(1).describe("What the image shows, or how to change the input images."),
    ImageName: z
      .string()
      .describe(
        "File name for the image, without folders, e.g. login_screen_mockup; the extension follows the image's format. It is saved in the artifacts folder, never over an existing file.",
      ),
    AspectRatio: z
      .string()
      .regex(/^[1-9]\d{0,2}:[1-9]\d{0,2}$/, "must be width:height, e.g. 16:9")
      .optional()
      .describe("Width:height such as 1:1, 16:9, 9:16, 4:3 (default: the model's, usually square)."),
    ImagePaths: z
      .array(z.string())
      .optional()
      .describe("Workspace images to edit or use as references, where the model takes input images."),
  }),
);

type GenerateImageArgs = z.infer<ReturnType<typeof GenerateImageParameters>>;

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
};
const IMAGE_NAME = /^[^/\\\u0000-\u001f]{1,120}$/;
const IMAGE_EXTENSION = /\.(png|jpe?g|webp|gif)$/i;

/** `generate_image` (seed 000): an image from the model in `images.model`, saved as an artifact. */
export function createGenerateImageTool(env: ToolEnvironment) {
  const deps = editDepsOf(env);
  const settings = env.settings.images ?? {};
  const folder = artifactsDirOf(env.settings);
  return defineTool({
    spec: {
      name: "generate_image",
      description:
        "Generate an image from a text prompt, or edit workspace images (ImagePaths), and save it in the artifacts folder. The result names the saved file and shows you the image. Use it for mockups, diagrams and assets the user asks for.",
      parameters: GenerateImageParameters,
      // it calls out to a provider and writes a file: it asks in default and auto-edit modes
      safety: "network",
      group: "Interaction",
      effects: (args) => ({
        reads: Array.isArray(args.ImagePaths) ? args.ImagePaths.filter((p) => typeof p === "string") : [],
        // judged as the PNG it will most likely be (a taken name moves on to name-2.png in the same folder)
        writes:
          typeof args.ImageName === "string"
            ? [`${folder}/${args.ImageName.trim().replace(IMAGE_EXTENSION, "")}.png`]
            : [],
      }),
    },
    async execute(args, ctx) {
      const planned = await plan(args);
      if (!planned.ok) return planned.result;
      const { name, made, shape, inputs, model } = planned.value;
      const timeoutMs = settings.timeoutMs ?? DEFAULT_IMAGE_TIMEOUT_MS;
      const deadline = AbortSignal.timeout(timeoutMs);
      const { generateOneImage } = await import("../../models/images.js");
      const outcome = await generateOneImage(made, {
        prompt: args.Prompt,
        images: inputs.images,
        ...shape.value,
        signal: AbortSignal.any([ctx.signal, deadline]),
      });
      if (!outcome.ok) return failureResult(outcome, model, deadline.aborted, timeoutMs, ctx.signal.aborted);
      const mimeType = imageMimeTypeOfBytes(outcome.bytes.subarray(0, 16)) ?? outcome.mediaType;
      const extension = EXTENSIONS[mimeType];
      if (!extension) {
        return errorResult(
          "execution_failed",
          `${model} answered with ${mimeType} data, not a PNG, JPEG, WebP or GIF image; nothing was saved.`,
        );
      }
      const saved = await saveNewFile(deps, folder, name, extension, outcome.bytes);
      if (!saved.ok) return saved.result;
      const record = {
        path: saved.value.path,
        type: "image" as const,
        summary: summaryOf(args.Prompt),
        tool: "generate_image",
        createdAt: new Date().toISOString(),
      };
      env.artifacts?.add(record);
      return imageResult(args, { ...outcome, mimeType }, saved.value, record, shape.note, inputs.paths);
    },
  });

  /** Everything checked before the provider is asked: the name, the model, the shape, the destination, the inputs. */
  async function plan(args: GenerateImageArgs): Promise<Step<CallPlan>> {
    const name = baseNameOf(args.ImageName);
    if (!name.ok) return refuse("invalid_arguments", name.message);
    const model = settings.model;
    if (!model) return refuse("unavailable", HOW_TO_CONFIGURE_IMAGES);
    // the provider libraries load only when an image is made: `gantry tool` starts without them
    const { createImageModel } = await import("../../models/images.js");
    const made = createImageModel({
      model,
      env: env.variables ?? process.env,
      ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    });
    if (!made.ok) return { ok: false, result: errorResult("unavailable", made.message, { model }) };
    const shape = shapeFor(made.value, args.AspectRatio);
    if (!shape.ok) return refuse("invalid_arguments", shape.message);
    const destination = await resolveWriteTarget(deps, `${folder}/${name.value}.png`);
    if (!destination.ok) return destination;
    const inputs = await readInputImages(env.workspace, args.ImagePaths ?? []);
    if (!inputs.ok) return inputs;
    if (inputs.images.length > 0 && made.value.takesImages === false) {
      return refuse(
        "invalid_arguments",
        `${model} does not take input images; call again without ImagePaths, or set images.model to a model that edits images.`,
      );
    }
    return { ok: true, value: { name: name.value, model, made: made.value, shape, inputs } };
  }
}

interface CallPlan {
  name: string;
  model: string;
  made: MadeImageModel;
  shape: Extract<Shape, { ok: true }>;
  inputs: { images: Uint8Array[]; paths: string[] };
}

function refuse(code: "invalid_arguments" | "unavailable", text: string): { ok: false; result: ToolResult } {
  return { ok: false, result: errorResult(code, text) };
}

function baseNameOf(input: string): { ok: true; value: string } | { ok: false; message: string } {
  const trimmed = input.trim();
  const value = trimmed.replace(IMAGE_EXTENSION, "");
  if (!IMAGE_NAME.test(trimmed) || value === "" || value.startsWith(".") || value.includes("..")) {
    return {
      ok: false,
      message: `ImageName "${input}" must be a plain file name (no folders, no leading dot, at most 120 characters), e.g. "login_mockup".`,
    };
  }
  return { ok: true, value };
}

type Shape =
  | { ok: true; value: { aspectRatio?: `${number}:${number}`; size?: `${number}x${number}` }; note?: string }
  | { ok: false; message: string };

/**
 * How an aspect ratio reaches the model: Gemini takes the ratio itself (from its list); OpenAI-style image
 * endpoints take a size, so the nearest of the sizes they offer is sent, and the result says which.
 */
function shapeFor(made: MadeImageModel, ratio: string | undefined): Shape {
  if (ratio === undefined) return { ok: true, value: {} };
  if (made.spec.provider === "google") {
    if (!GEMINI_ASPECT_RATIOS.includes(ratio))
      return {
        ok: false,
        message: `AspectRatio ${ratio} is not one Gemini image models take: ${GEMINI_ASPECT_RATIOS.join(", ")}.`,
      };
    return { ok: true, value: { aspectRatio: ratio as `${number}:${number}` } };
  }
  const [width, height] = ratio.split(":").map(Number) as [number, number];
  const wide = width / height;
  const id = made.spec.modelId;
  const sizes = id.startsWith("dall-e-2")
    ? { square: "1024x1024", landscape: "1024x1024", portrait: "1024x1024" }
    : id.startsWith("dall-e-3")
      ? { square: "1024x1024", landscape: "1792x1024", portrait: "1024x1792" }
      : { square: "1024x1024", landscape: "1536x1024", portrait: "1024x1536" };
  const size = (
    wide > 1.2 ? sizes.landscape : wide < 0.83 ? sizes.portrait : sizes.square
  ) as `${number}x${number}`;
  return {
    ok: true,
    value: { size },
    note: `AspectRatio ${ratio} was sent as the size ${size}, the nearest this model offers.`,
  };
}

function failureResult(
  outcome: { kind: string; message: string; status?: number },
  model: string,
  timedOut: boolean,
  timeoutMs: number,
  stopped: boolean,
): ToolResult {
  const facts = { model, ...(outcome.status !== undefined ? { status: outcome.status } : {}) };
  if (stopped) return errorResult("aborted", "generate_image was stopped; nothing was saved.", facts);
  if (timedOut)
    return errorResult(
      "timeout",
      `${model} made no image within ${timeoutMs} ms (images.timeoutMs); nothing was saved.`,
      facts,
    );
  const code =
    outcome.kind === "rate_limit" ? "unavailable" : outcome.kind === "auth" ? "denied" : "execution_failed";
  const next = outcome.kind === "rate_limit" ? " Wait before trying again." : "";
  return errorResult(code, `${model} made no image: ${outcome.message}.${next} Nothing was saved.`, facts);
}

function imageResult(
  args: GenerateImageArgs,
  image: { bytes: Uint8Array; mimeType: string; warnings: string[]; revisedPrompt?: string },
  saved: { path: string; renamedFrom?: string },
  artifact: Record<string, unknown>,
  note: string | undefined,
  inputs: string[],
): ToolResult {
  const lines = [
    `Saved the generated image as ${saved.path} (${image.mimeType}, ${image.bytes.length} bytes); it is attached.`,
  ];
  if (saved.renamedFrom) lines.push(`${saved.renamedFrom} already existed, so it was not replaced.`);
  if (inputs.length > 0) lines.push(`Input images: ${inputs.join(", ")}.`);
  if (note) lines.push(note);
  for (const warning of image.warnings) lines.push(`The provider said: ${warning}.`);
  if (image.revisedPrompt) lines.push(`The provider revised the prompt to: ${image.revisedPrompt}`);
  const result = okResult(lines.join("\n"), {
    path: saved.path,
    bytes: image.bytes.length,
    mimeType: image.mimeType,
    imageName: args.ImageName,
    ...(saved.renamedFrom ? { renamedFrom: saved.renamedFrom } : {}),
    ...(image.warnings.length > 0 ? { warnings: image.warnings } : {}),
    artifact,
  });
  return {
    ...result,
    images: [{ mimeType: image.mimeType, data: Buffer.from(image.bytes).toString("base64") }],
  };
}

function summaryOf(prompt: string): string {
  const flat = prompt.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}
