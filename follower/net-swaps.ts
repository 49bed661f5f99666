/** One pool's part in a transaction, from the trader's side: what it received (positive) or paid (negative). */
export interface SwapLeg {
  dex: string
  deltas: Array<{ token: string; amount: bigint }>
}

export type NettedSwap =
  | { sold: { token: string; amount: bigint }; bought: { token: string; amount: bigint }; dex: string }
  | { reason: string }

/**
 * All legs of one transaction netted per token: a multi-hop A→B→C leaves A paid and C
 * received (B nets to zero), so it is one swap. Anything but exactly one token paid and
 * one received is not a swap record; the reason says what it was.
 */
export function netTransaction(legs: readonly SwapLeg[]): NettedSwap {
  const net = new Map<string, bigint>()
  for (const leg of legs) for (const d of leg.deltas) net.set(d.token, (net.get(d.token) ?? 0n) + d.amount)
  const sold = [...net].filter(([, v]) => v < 0n)
  const bought = [...net].filter(([, v]) => v > 0n)
  if (sold.length === 1 && bought.length === 1) {
    const dex = [...new Set(legs.map((l) => l.dex))].sort().join('+')
    return { sold: { token: sold[0]![0], amount: -sold[0]![1] }, bought: { token: bought[0]![0], amount: bought[0]![1] }, dex }
  }
  if (sold.length === 0 && bought.length === 0) return { reason: 'nets to nothing (every token paid was received back)' }
  if (sold.length === 0) return { reason: 'only receives tokens on net (e.g. an arbitrage cycle)' }
  if (bought.length === 0) return { reason: 'only pays tokens on net' }
  return { reason: `several tokens on a side (${sold.length} paid, ${bought.length} received)` }
}
