/** Model tiers agent files name instead of a model (Claude Code's opus/sonnet/haiku, Qwen Code's fast). */
export const MODEL_TIERS = ["opus", "sonnet", "haiku", "fast"] as const;
export type ModelTier = (typeof MODEL_TIERS)[number];

export function isModelTier(model: string): model is ModelTier {
  return (MODEL_TIERS as readonly string[]).includes(model);
}

/** Each provider's model of a tier, where the provider has tiers (Anthropic's model families). */
const PROVIDER_TIERS: Record<string, Partial<Record<ModelTier, string>>> = {
  anthropic: {
    opus: "claude-opus-4-1",
    sonnet: "claude-sonnet-4-5",
    haiku: "claude-haiku-4-5",
    fast: "claude-haiku-4-5",
  },
};

/**
 * The model a tier means here: `subagents.models.<tier>` from settings, else the parent's provider's model
 * of that tier, else the parent's own model (and a notice saying so). A parent already of that tier keeps
 * its exact model.
 */
export function modelForTier(
  tier: ModelTier,
  parentModel: string,
  configured: Partial<Record<ModelTier, string>> = {},
): { model: string; notice?: string } {
  const set = configured[tier];
  if (set) return { model: set };
  const [provider = "", id = ""] = splitModel(parentModel);
  if (tier !== "fast" && id.includes(tier)) return { model: parentModel };
  const own = PROVIDER_TIERS[provider]?.[tier];
  if (own) return { model: `${provider}:${own}` };
  return {
    model: parentModel,
    notice: `agent files asking for model "${tier}" use the parent's model ${parentModel}: provider "${provider}" has no ${tier} tier (set subagents.models.${tier} in .agents/settings.json to choose one)`,
  };
}

function splitModel(model: string): [string, string] {
  const at = model.indexOf(":");
  return at < 0 ? ["", model] : [model.slice(0, at), model.slice(at + 1)];
}
