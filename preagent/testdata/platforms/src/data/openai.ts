// OpenAI models and their prices.
import type { Platform } from "./types";

export const openai: Platform = {
  id: "openai",
  name: "OpenAI",
  url: "https://openai.com/api/pricing",
  models: [
    { id: "gpt-4o", name: "GPT-4o", input: 2.5, output: 10 },
    { id: "gpt-4o-mini", name: "GPT-4o mini", input: 0.15, output: 0.6 },
  ],
};
