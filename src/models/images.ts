import { createGoogle } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateImage, type ImageModel } from "ai";
import { classifyModelError } from "./client.js";
import { API_KEY_VARIABLES, apiKeyFor, type ModelSpec, type Outcome, parseModelSpec } from "./provider.js";

export interface ImageModelConfig {
  /** `provider:model-id` (images.model). */
  model: string;
  baseUrl?: string;
  env: Record<string, string | undefined>;
}

export interface MadeImageModel {
  spec: ModelSpec;
  model: ImageModel;
  /** false when the provider says the model takes no input images; undefined when it does not say. */
  takesImages: boolean | undefined;
}

/** The one place an image model is made: OpenAI's image models, Gemini's, or an OpenAI-compatible endpoint. */
export function createImageModel(config: ImageModelConfig): Outcome<MadeImageModel> {
  const parsed = parseModelSpec(config.model);
  if (!parsed.ok) return { ok: false, message: `images.model: ${parsed.message}` };
  const spec = parsed.value;
  const apiKey = apiKeyFor(spec.provider, config.env);
  const baseURL = config.baseUrl;
  if (spec.provider !== "openai-compatible" && apiKey === undefined)
    return {
      ok: false,
      message: `${config.model} needs an API key: set ${API_KEY_VARIABLES[spec.provider].join(" or ")}.`,
    };
  let model: ImageModel;
  switch (spec.provider) {
    case "openai":
      model = createOpenAI({ apiKey, baseURL }).image(spec.modelId);
      break;
    case "google":
      // @ai-sdk/google 4 makes images with Gemini models only; it dropped Imagen's :predict endpoint
      if (!spec.modelId.startsWith("gemini-")) {
        return {
          ok: false,
          message: `${config.model}: Gantry makes Google images with Gemini image models (e.g. google:gemini-2.5-flash-image); Imagen models are not supported by its provider library.`,
        };
      }
      model = createGoogle({ apiKey, baseURL }).image(spec.modelId);
      break;
    case "openai-compatible":
      if (baseURL === undefined)
        return {
          ok: false,
          message: `${config.model} needs the server's address: set images.baseUrl (e.g. http://localhost:8000/v1).`,
        };
      model = createOpenAICompatible({ name: "openai-compatible", baseURL, apiKey }).imageModel(spec.modelId);
      break;
    case "anthropic":
      return {
        ok: false,
        message: `${config.model}: Anthropic has no image generation; use an openai, google or openai-compatible image model.`,
      };
  }
  const takesImages = (model as { supportsFileInputs?: boolean }).supportsFileInputs;
  return { ok: true, value: { spec, model, takesImages } };
}

export interface ImageRequest {
  prompt: string;
  /** Input images for editing or as references. */
  images: Uint8Array[];
  aspectRatio?: `${number}:${number}`;
  size?: `${number}x${number}`;
  signal: AbortSignal;
}

export type ImageOutcome =
  | { ok: true; bytes: Uint8Array; mediaType: string; warnings: string[]; revisedPrompt?: string }
  | { ok: false; kind: "aborted" | "rate_limit" | "auth" | "failed"; message: string; status?: number };

/** One image from the model; a provider failure becomes a message the agent can act on. */
export async function generateOneImage(made: MadeImageModel, request: ImageRequest): Promise<ImageOutcome> {
  try {
    const result = await generateImage({
      model: made.model,
      prompt: request.images.length > 0 ? { text: request.prompt, images: request.images } : request.prompt,
      n: 1,
      ...(request.aspectRatio ? { aspectRatio: request.aspectRatio } : {}),
      ...(request.size ? { size: request.size } : {}),
      abortSignal: request.signal,
      // the agent decides whether to try again
      maxRetries: 0,
    });
    const image = result.image;
    const revised = (result.providerMetadata.openai?.images as { revisedPrompt?: string }[] | undefined)?.[0]
      ?.revisedPrompt;
    return {
      ok: true,
      bytes: image.uint8Array,
      mediaType: image.mediaType,
      warnings: result.warnings.map(describeWarning),
      ...(revised ? { revisedPrompt: revised } : {}),
    };
  } catch (cause) {
    const error = classifyModelError(cause, request.signal);
    const kind =
      error.kind === "aborted"
        ? "aborted"
        : error.kind === "rate_limit"
          ? "rate_limit"
          : error.kind === "auth"
            ? "auth"
            : "failed";
    return {
      ok: false,
      kind,
      message: error.message,
      ...(error.status !== undefined ? { status: error.status } : {}),
    };
  }
}

function describeWarning(warning: unknown): string {
  const record = warning as { type?: string; feature?: string; details?: string; message?: string };
  if (record.feature)
    return `${record.feature} is not supported${record.details ? `: ${record.details}` : ""}`;
  return record.message ?? record.details ?? JSON.stringify(warning);
}
