// Anthropic models and their prices.
import type { Platform } from "./types";

export const anthropic: Platform = {
  id: "anthropic",
  name: "Anthropic",
  url: "https://www.anthropic.com/pricing",
  models: [
    { id: "claude-3-5-sonnet", name: "Claude 3.5 Sonnet", input: 3, output: 15 },
    { id: "claude-3-haiku", name: "Claude 3 Haiku", input: 0.25, output: 1.25 },
  ],
};
