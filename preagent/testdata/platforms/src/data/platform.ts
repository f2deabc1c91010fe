// The list of platforms the site compares.
import type { Platform } from "./types";
import { openai } from "./openai";
import { anthropic } from "./anthropic";

export const platforms: Record<string, Platform> = {
  openai,
  anthropic,
};

export function platformById(id: string): Platform | undefined {
  return platforms[id];
}
