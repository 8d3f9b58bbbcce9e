import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";

/** `images` in .agents/settings.json: the image model generate_image uses and where artifacts are saved. */
export const ImageSettingsSchema = lazySchema(() =>
  z.strictObject({
    model: z
      .string()
      .optional()
      .describe(
        "the image model as provider:model-id, e.g. openai:gpt-image-1, google:gemini-2.5-flash-image, openai-compatible:flux",
      ),
    baseUrl: z
      .string()
      .optional()
      .describe("the image provider's API base URL (required for openai-compatible)"),
    dir: z
      .string()
      .optional()
      .describe(
        "the artifacts folder inside the workspace (generated images, ArtifactMetadata documents); default .agents/artifacts",
      ),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("limit of one generate_image call in ms (default 300000)"),
  }),
);
export type ImageSettings = z.infer<ReturnType<typeof ImageSettingsSchema>>;

export const DEFAULT_IMAGE_TIMEOUT_MS = 300_000;

/** Gemini's image models take these aspect ratios (imageConfig.aspectRatio). */
export const GEMINI_ASPECT_RATIOS = ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"];

export const HOW_TO_CONFIGURE_IMAGES = `generate_image has no image model configured. Add one to ~/.agents/settings.json:
  {"images": {"model": "openai:gpt-image-1"}}                  (key in OPENAI_API_KEY)
  {"images": {"model": "google:gemini-2.5-flash-image"}}       (key in GEMINI_API_KEY)
  {"images": {"model": "openai-compatible:<model>", "baseUrl": "http://localhost:8000/v1"}}   (key, if any, in OPENAI_COMPATIBLE_API_KEY)`;
