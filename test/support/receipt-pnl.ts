import type { Address, Hex } from 'viem'

/**
 * Realized PnL worked out from transaction receipts alone, for the devnet proof of the
 * smart-money rules: what each transaction did to its sender's ERC-20 balances (Transfer
 * events), valued at the trade's own price (its stablecoin leg), then the weighted-average
 * cost rule of docs/smart-money.md applied token by token in chain order. Nothing here reads the
 * follower, the store or shared/smart-money.
 */
export interface RawLog {
  address: Address
  topics: Hex[]
  data: Hex
}

export interface RawReceipt {
  transactionHash: Hex
  from: Address
  status: Hex
  blockNumber: Hex
  transactionIndex: Hex
  logs: RawLog[]
}

export interface ReceiptTrade {
  hash: Hex
  /** Chain order: block, then position in the block. */
  order: [number, number]
  sold: { token: string; amount: bigint }
  bought: { token: string; amount: bigint }
  /** The stablecoin leg's amount in dollars (a stablecoin is $1). */
  usd: number
}

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

/** The sender's net change per token (lower-case address → raw amount received, negative = paid). */
export function netTransfers(receipt: RawReceipt): Map<string, bigint> {
  const wallet = receipt.from.toLowerCase()
  const net = new Map<string, bigint>()
  for (const log of receipt.logs) {
    if (log.topics[0] !== TRANSFER || log.topics.length !== 3) continue
    const [from, to] = [`0x${log.topics[1]!.slice(26)}`, `0x${log.topics[2]!.slice(26)}`]
    const token = log.address.toLowerCase()
    const value = BigInt(log.data)
    if (from === wallet) net.set(token, (net.get(token) ?? 0n) - value)
    if (to === wallet) net.set(token, (net.get(token) ?? 0n) + value)
  }
  return net
}

/** A successful transaction that paid one token and received another, one of them a stablecoin (address → decimals). */
export function tradeOf(receipt: RawReceipt, stablecoins: ReadonlyMap<string, number>): ReceiptTrade {
  const moved = [...netTransfers(receipt)].filter(([, v]) => v !== 0n)
  const paid = moved.filter(([, v]) => v < 0n)
  const received = moved.filter(([, v]) => v > 0n)
  if (paid.length !== 1 || received.length !== 1) throw new Error(`${receipt.transactionHash} is not one token for another`)
  const sold = { token: paid[0]![0], amount: -paid[0]![1] }
  const bought = { token: received[0]![0], amount: received[0]![1] }
  const stable = stablecoins.has(bought.token) ? bought : stablecoins.has(sold.token) ? sold : undefined
  if (!stable) throw new Error(`${receipt.transactionHash} has no stablecoin leg to value it by`)
  const usd = Number(stable.amount) / 10 ** stablecoins.get(stable.token)!
  return { hash: receipt.transactionHash, order: [Number(receipt.blockNumber), Number(receipt.transactionIndex)], sold, bought, usd }
}

/**
 * Weighted average cost, per token: a buy adds its quantity and its USD value to the
 * position; a sell of q removes covered = min(q, held) and the share covered/held of the
 * cost, and realizes (usd · covered/q) − that cost. A sell of what was never bought with a
 * value (a token the wallet was sent) realizes nothing.
 */
export function realizedPnlUsd(trades: readonly ReceiptTrade[]): { realizedUsd: number; reduced: number; won: number } {
  const sorted = [...trades].sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1])
  const positions = new Map<string, { held: bigint; cost: number }>()
  let realizedUsd = 0
  let reduced = 0
  let won = 0
  for (const t of sorted) {
    const out = positions.get(t.sold.token) ?? { held: 0n, cost: 0 }
    const covered = t.sold.amount < out.held ? t.sold.amount : out.held
    if (covered > 0n) {
      const cost = (out.cost * Number(covered)) / Number(out.held)
      const pnl = (t.usd * Number(covered)) / Number(t.sold.amount) - cost
      realizedUsd += pnl
      reduced += 1
      if (pnl > 0) won += 1
      positions.set(t.sold.token, { held: out.held - covered, cost: out.cost - cost })
    }
    const into = positions.get(t.bought.token) ?? { held: 0n, cost: 0 }
    positions.set(t.bought.token, { held: into.held + t.bought.amount, cost: into.cost + t.usd })
  }
  return { realizedUsd, reduced, won }
}
