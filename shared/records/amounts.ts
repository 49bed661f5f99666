/**
 * A raw uint256 amount adjusted by a token's decimals, as the nearest double.
 * Done on the decimal string (not raw / 10 ** decimals) so that no intermediate
 * step loses precision before the final rounding.
 */
export function toDecimalAmount(raw: string, decimals: number | null): number | null {
  if (decimals === null) return null
  if (decimals === 0) return Number(raw)
  const digits = raw.padStart(decimals + 1, '0')
  const cut = digits.length - decimals
  return Number(`${digits.slice(0, cut)}.${digits.slice(cut)}`)
}
