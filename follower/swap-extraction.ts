import type { RecordInput, SwapRetractionRecord } from '../shared/records/records.js'
import { decodePairCreated, decodePoolCreated, decodeV2Swap, decodeV2Sync, decodeV3Swap, TOPICS, type RawLog } from './chain-logs.js'
import type { BlockSenders } from './chain-rpc.js'
import { netTransaction, type SwapLeg } from './net-swaps.js'
import type { PoolRegistry } from './pool-registry.js'
import type { TokenMetadataReader } from './token-metadata.js'
import { TradePrices, type FollowedPriceRecord, type PriceSlots } from './trade-prices.js'
import type { PricedToken, UsdPrices } from './usd-prices.js'

/** A swap record as the follower builds it (a valid `swap` record of shared/records/records.ts). */
export interface FollowedSwapRecord {
  hash: string
  block_number: number
  timestamp: number
  wallet_address: string
  token_sold: { contract_address: string; amount_raw: string }
  token_bought: { contract_address: string; amount_raw: string }
  value_usd: number | null
  dex: string
  chain_id: number
}

export interface ExtractedSwap {
  record: FollowedSwapRecord
  blockNumber: number
  blockHash: string
}

export interface Extraction {
  swaps: ExtractedSwap[]
  /** Token records first seen in this range. */
  tokens: RecordInput<'token'>[]
  /** Transactions with swaps that are not one swap, with why. */
  unnetted: Array<{ hash: string; reason: string }>
  swapLogs: number
  /** Price records of the trades (every swap log of a pricing pool, netted or not), by block hash. */
  prices: Map<string, FollowedPriceRecord[]>
}

export interface ExtractionDeps {
  pools: PoolRegistry
  metadata: TokenMetadataReader
  prices: UsdPrices
  priceSlots: PriceSlots
  chainId: number
}

/** What retracts an extracted swap (the same version the swap record delivers). */
export function retractionOf(swap: ExtractedSwap, chainId: number): SwapRetractionRecord {
  const r = swap.record
  return {
    hash: r.hash,
    chain_id: chainId,
    timestamp: r.timestamp,
    wallet_address: r.wallet_address,
    token_sold_address: r.token_sold.contract_address,
    token_bought_address: r.token_bought.contract_address,
  }
}

/**
 * Logs of a block range (in chain order) as records: pools registered from creation
 * events, swap legs of followed pools grouped by transaction and netted, each swap
 * valued in USD at the prices of the moment, and the metadata of tokens seen first.
 * Senders and block times are `blocks`, read for the blocks of `swapLogBlocks(logs)`; a swap
 * whose transaction or block is not among them (a reorg while reading) is not recorded.
 */
export async function extractSwaps(logs: readonly RawLog[], deps: ExtractionDeps, blocks: BlockSenders): Promise<Extraction> {
  const { pools, metadata, prices } = deps
  for (const log of logs) {
    if (log.topics[0] === TOPICS.pairCreated) pools.created(decodePairCreated(log))
    else if (log.topics[0] === TOPICS.poolCreated) pools.created(decodePoolCreated(log))
  }
  const swapish = logs.filter((l) => l.topics[0] === TOPICS.v2Swap || l.topics[0] === TOPICS.v3Swap || l.topics[0] === TOPICS.v2Sync)
  await pools.discover(
    swapish.map((l) => l.address.toLowerCase()),
    (address) => (swapish.find((l) => l.address.toLowerCase() === address)!.topics[0] === TOPICS.v3Swap ? 'uniswap-v3' : 'uniswap-v2'),
  )
  const followed = swapish.filter((l) => pools.get(l.address.toLowerCase()) !== undefined)

  const tokens: RecordInput<'token'>[] = []
  const newTokens = new Set<string>()
  for (const l of followed) {
    const pool = pools.get(l.address.toLowerCase())!
    for (const t of [pool.token0, pool.token1]) if (!metadata.has(t)) newTokens.add(t)
  }
  for (const { record } of await Promise.all([...newTokens].map((t) => metadata.read(t)))) {
    if (record) tokens.push(record)
  }

  // Legs by transaction, in chain order; prices move with each pool state. A V2 pool's
  // Sync (also emitted by liquidity changes) precedes its Swap: the price is a trade's at the Swap.
  // `priceAt`: the prices of the transaction's tokens just after its last swap, which value it.
  const byTx = new Map<string, { legs: SwapLeg[]; block: number; blockHash: string; last: RawLog; priceAt: Map<string, number> }>()
  const tradePrices = new TradePrices(deps.priceSlots)
  const syncedPrices = new Map<string, PricedToken[]>()
  let swapLogs = 0
  for (const log of followed) {
    const poolAddress = log.address.toLowerCase()
    const pool = pools.get(poolAddress)!
    if (log.topics[0] === TOPICS.v2Sync) {
      const s = decodeV2Sync(log)
      syncedPrices.set(poolAddress, prices.observeReserves(pool, s.reserve0, s.reserve1))
      continue
    }
    swapLogs++
    let d: { delta0: bigint; delta1: bigint }
    if (log.topics[0] === TOPICS.v2Swap) {
      d = decodeV2Swap(log)
      tradePrices.add(log.blockHash, syncedPrices.get(poolAddress) ?? [])
      syncedPrices.delete(poolAddress)
    } else {
      const v3 = decodeV3Swap(log)
      tradePrices.add(log.blockHash, prices.observeV3(pool, v3.sqrtPriceX96, v3.liquidity))
      d = v3
    }
    const leg: SwapLeg = { dex: pool.dex, deltas: [{ token: pool.token0, amount: d.delta0 }, { token: pool.token1, amount: d.delta1 }] }
    const hash = log.transactionHash.toLowerCase()
    let entry = byTx.get(hash)
    if (entry) {
      entry.legs.push(leg)
      entry.last = log
    } else {
      entry = { legs: [leg], block: Number(log.blockNumber), blockHash: log.blockHash, last: log, priceAt: new Map() }
      byTx.set(hash, entry)
    }
    for (const l of entry.legs) {
      for (const { token } of l.deltas) {
        const price = prices.priceOf(token)
        if (price === undefined) entry.priceAt.delete(token)
        else entry.priceAt.set(token, price)
      }
    }
  }

  const netted = [...byTx].map(([hash, e]) => ({ hash, e, net: netTransaction(e.legs) }))
  const { senders, times } = blocks

  const swaps: ExtractedSwap[] = []
  const unnetted: Array<{ hash: string; reason: string }> = []
  for (const { hash, e, net } of netted) {
    if ('reason' in net) {
      unnetted.push({ hash, reason: net.reason })
      continue
    }
    const wallet = senders.get(hash)
    const timestamp = times.get(e.blockHash)
    if (wallet === undefined || timestamp === undefined) {
      unnetted.push({ hash, reason: 'transaction or block not found on the node (reorganized while reading)' })
      continue
    }
    swaps.push({
      record: {
        hash,
        block_number: e.block,
        timestamp,
        wallet_address: wallet,
        token_sold: { contract_address: net.sold.token, amount_raw: net.sold.amount.toString() },
        token_bought: { contract_address: net.bought.token, amount_raw: net.bought.amount.toString() },
        value_usd: valueUsd(net.sold, net.bought, e.priceAt, deps),
        dex: net.dex,
        chain_id: deps.chainId,
      },
      blockNumber: e.block,
      blockHash: e.blockHash,
    })
  }
  return { swaps, tokens, unnetted, swapLogs, prices: tradePrices.records(times) }
}

/**
 * The swap's USD value: from its stablecoin side, else its WETH side (WETH priced by its
 * stablecoin pools), else whichever side has a price; at the prices just after the trade.
 * Not from a token's own pool before WETH: the trade has just moved that price (a large
 * sale of a token for WETH would be valued at the lower price it sold the token down to).
 */
function valueUsd(sold: { token: string; amount: bigint }, bought: { token: string; amount: bigint }, priceAt: ReadonlyMap<string, number>, deps: ExtractionDeps): number | null {
  const valueOf = (leg: { token: string; amount: bigint }) => {
    const price = priceAt.get(leg.token)
    const decimals = deps.metadata.known(leg.token)?.record?.decimals
    if (price === undefined || decimals === undefined) return undefined
    return (Number(leg.amount) / 10 ** Number(decimals)) * price
  }
  const ordered = deps.prices.anchorRank(bought.token) < deps.prices.anchorRank(sold.token) ? [bought, sold] : [sold, bought]
  for (const leg of ordered) {
    const v = valueOf(leg)
    if (v !== undefined && Number.isFinite(v)) return Math.round(v * 100) / 100
  }
  return null
}
