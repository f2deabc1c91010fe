// Formats a price in USD per million tokens.
export function formatPrice(usd: number): string {
  return `$${usd.toFixed(2)} / 1M tokens`;
}
