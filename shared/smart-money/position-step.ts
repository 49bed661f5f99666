/**
 * The weighted-average-cost rule for one leg of a swap, declared once in words and
 * implemented twice (here for the reference, in stats-query.ts for ClickHouse):
 *
 * - buy with a USD value and amount > 0: quantity += amount, cost += value_usd.
 * - buy without a USD value: not recorded (the quantity has no cost basis).
 * - sell of q: covered = min(q, quantity). The position loses `covered` and the share of its
 *   cost covered/quantity (all of it when covered = quantity). With a USD value, the covered
 *   share of the proceeds, value_usd·covered/q, minus that cost is the realized PnL, and the
 *   sell counts as a reduced position if covered > 0; the rest of the proceeds (quantity
 *   never recorded as bought) is `unmatched`: it has no cost basis and no PnL.
 *   Without a USD value the position shrinks the same way and nothing is realized.
 *
 * Quantities are exact (bigint / UInt256); the ratios covered/quantity and covered/q are
 * Float64 divisions of the two amounts, as the USD figures are Float64.
 */
export interface Position {
  quantity: bigint
  costUsd: number
}

export interface LegOutcome {
  /** Set when the leg reduced a position with a cost basis and had a USD value. */
  reduced: boolean
  realizedUsd: number
  closedCostUsd: number
  matchedProceedsUsd: number
  unmatchedProceedsUsd: number
}

const NONE: LegOutcome = { reduced: false, realizedUsd: 0, closedCostUsd: 0, matchedProceedsUsd: 0, unmatchedProceedsUsd: 0 }

export function applyLeg(position: Position, side: 'buy' | 'sell', amount: bigint, valueUsd: number | null): LegOutcome {
  if (side === 'buy') {
    if (valueUsd !== null && amount > 0n) {
      position.quantity += amount
      position.costUsd += valueUsd
    }
    return NONE
  }
  const held = position.quantity
  const covered = amount < held ? amount : held
  const removed = covered === held ? position.costUsd : (position.costUsd * Number(covered)) / Number(held)
  position.quantity = held - covered
  position.costUsd = covered === held ? 0 : position.costUsd - removed
  if (valueUsd === null) return NONE
  const reduced = covered > 0n
  const proceeds = !reduced ? 0 : covered === amount ? valueUsd : (valueUsd * Number(covered)) / Number(amount)
  return {
    reduced,
    realizedUsd: reduced ? proceeds - removed : 0,
    closedCostUsd: reduced ? removed : 0,
    matchedProceedsUsd: proceeds,
    unmatchedProceedsUsd: valueUsd - proceeds,
  }
}
