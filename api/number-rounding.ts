/**
 * Significant digits a served figure keeps (candle prices and volumes, USD sums, ratios).
 * The stored values are doubles derived from USD values with cents and decimal-adjusted
 * amounts, summed and divided, so digits past the 12th are floating-point noise
 * (`89467.47000000002`, `436569.82999999996`), not data.
 */
export const SIGNIFICANT_DIGITS = 12

export function roundValue(value: number): number {
  return Number(value.toPrecision(SIGNIFICANT_DIGITS))
}

export function roundNullable(value: number | null): number | null {
  return value === null ? null : roundValue(value)
}
