import type { ClickHouseClient } from '../storage/clickhouse.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'

/**
 * How a full run cuts the wallets into slices: about `swaps` swaps per slice (the fold's
 * memory grows faster than its input, so a large store is folded a slice at a time), the
 * cuts placed by a sample of one stored swap in `sampleEvery`.
 */
export interface Slicing {
  swaps: number
  sampleEvery: number
}

/**
 * Two million swaps a slice: the fewer the slices, the fewer times a slice's fixed costs are
 * paid, and two million kept a full run's peak memory under 1.8 GB on the benchmark's 10M
 * store (docs/decisions/0010-two-million-swaps-a-slice.md).
 */
const SLICING: Slicing = { swaps: 2_000_000, sampleEvery: 1_024 }

/**
 * Where the slices of a full run start: wallet addresses cutting the wallet path (ordered
 * by wallet) into ranges of about `slicing.swaps` swaps each, from a sample of its rows, so that
 * each slice reads only its own range. None for a store of one slice.
 */
async function sliceStarts(clickhouse: ClickHouseClient, tables: Tables, slicing: Slicing = SLICING): Promise<string[]> {
  const sample = await queryRows<{ wallet_address: string }>(
    clickhouse,
    `SELECT wallet_address FROM ${tables.swapsByWallet} WHERE cityHash64(wallet_address, timestamp) % {every: UInt32} = 0 ORDER BY wallet_address`,
    { every: slicing.sampleEvery },
  )
  const perSlice = Math.max(1, Math.round(slicing.swaps / slicing.sampleEvery))
  const starts: string[] = []
  for (let i = perSlice; i < sample.length; i += perSlice) {
    const start = sample[i]!.wallet_address
    if (start !== starts.at(-1) && start !== sample[0]!.wallet_address) starts.push(start)
  }
  return starts
}

/** A slice of the wallets: a condition on wallet_address and its parameters. */
export interface WalletSlice {
  condition: string
  params: { lower?: string; upper?: string }
}

/** The slices of a full run: from each start up to the next (sliceStarts), the first from the lowest address, the last to the highest. */
export async function walletSlices(clickhouse: ClickHouseClient, tables: Tables, slicing: Slicing = SLICING): Promise<WalletSlice[]> {
  const starts = await sliceStarts(clickhouse, tables, slicing)
  return Array.from({ length: starts.length + 1 }, (_, i) => {
    const lower = i > 0 ? 'wallet_address >= {lower: String}' : null
    const upper = i < starts.length ? 'wallet_address < {upper: String}' : null
    return { condition: [lower, upper].filter((c) => c !== null).join(' AND ') || '1', params: { lower: starts[i - 1], upper: starts[i] } }
  })
}
