import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createRedis } from '../../shared/platform/redis.js'
import type { Runtime } from '../../shared/runtime.js'
import type { TechnicalAnalysis } from '../../shared/candles/technical-analysis.js'
import { publishTokensChanged, tokensChangedChannel } from '../../shared/records/token-events.js'
import { storeSwapRows } from './store-swaps.js'

/**
 * Rows written straight into the ClickHouse tables, with sensible defaults, for tests
 * that need data without going through the ingestion queue. Columns follow
 * shared/storage/schema/ (tokens-schema.ts, swaps-schema.ts…); addresses and hashes are stored in lower case,
 * so the factories lower-case them as ingestion does.
 */

/** A deterministic lower-case address for a label ("wallet-1", "weth"...). */
export function addressFor(label: string): string {
  return `0x${createHash('sha256').update(`address:${label}`).digest('hex').slice(0, 40)}`
}

/** A deterministic lower-case transaction hash for a label. */
export function hashFor(label: string): string {
  return `0x${createHash('sha256').update(`hash:${label}`).digest('hex')}`
}

/** An EIP-55-like mixed-case spelling of an address (the case pattern is not a real checksum). */
export function mixedCase(address: string): string {
  return '0x' + [...address.slice(2)].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join('')
}

export interface TokenRowInput {
  contract_address: string
  /** Defaults to '' (no producer id: the API derives it from the address). */
  id?: string
  chain_id?: number
  name?: string
  symbol?: string
  decimals?: number
  /** ms since the epoch; the version of the row (the latest wins). */
  updated_at?: number
}

export interface SwapRowInput {
  hash: string
  timestamp: number
  wallet_address?: string
  token_sold_address?: string
  token_sold_amount?: string
  token_bought_address?: string
  token_bought_amount?: string
  chain_id?: number
  block_number?: number
  value_usd?: number | null
  dex?: string | null
  ingested_at?: number
}

/** A wallet's trade of a token against a quote token: a buy gives the quote for the token, a sell the token for the quote; valued at `usd`. */
export interface TradeInput {
  hash: string
  timestamp: number
  wallet: string
  side: 'buy' | 'sell'
  token: { address: string; amount: string }
  quote: { address: string; amount: string }
  usd: number
}

export function tradeRow({ hash, timestamp, wallet, side, token, quote, usd }: TradeInput): SwapRowInput {
  const [sold, bought] = side === 'buy' ? [quote, token] : [token, quote]
  return {
    hash,
    timestamp,
    wallet_address: wallet,
    token_sold_address: sold.address,
    token_sold_amount: sold.amount,
    token_bought_address: bought.address,
    token_bought_amount: bought.amount,
    value_usd: usd,
  }
}

export interface HoldingRowInput {
  wallet_address: string
  contract_address: string
  balance_raw?: string
  value_usd?: number | null
  as_of?: number
}

export interface PriceRowInput {
  contract_address: string
  timestamp: number
  price_usd: number
  volume_usd?: number | null
  ingested_at?: number
}

const lower = (s: string) => s.toLowerCase()

async function insert(runtime: Runtime, table: string, values: Record<string, unknown>[]): Promise<void> {
  if (values.length === 0) return
  await runtime.clickhouse.insert({ table, values, format: 'JSONEachRow' })
}

export async function insertTokens(runtime: Runtime, rows: TokenRowInput[]): Promise<void> {
  await insert(
    runtime,
    runtime.tables.tokens,
    rows.map((r) => ({
      contract_address: lower(r.contract_address),
      id: r.id ?? '',
      chain_id: r.chain_id ?? 1,
      name: r.name ?? 'Test Token',
      symbol: r.symbol ?? 'TEST',
      decimals: r.decimals ?? 18,
      updated_at: r.updated_at ?? Date.now(),
    })),
  )
  await announceTokens(runtime, rows.map((r) => lower(r.contract_address)))
}

/**
 * Tells the API's token directory, as ingestion does, that these tokens changed (for
 * rows written or deleted straight in ClickHouse). Pub/sub delivers later than PUBLISH
 * returns, so this also listens on the channel and returns once its own message comes
 * back: Redis wrote it to the API's earlier subscription first, so a request made after
 * this finds the directory reloading and waits for it.
 */
export async function announceTokens(runtime: Runtime, addresses: string[]): Promise<void> {
  const { url, prefix } = runtime.config.redis
  const publisher = createRedis(url)
  const listener = createRedis(url)
  try {
    await listener.subscribe(tokensChangedChannel(prefix))
    const echoed = once(listener, 'message')
    await publishTokensChanged(publisher, prefix, addresses)
    if (addresses.length > 0) await echoed
  } finally {
    publisher.disconnect()
    listener.disconnect()
  }
}

export async function insertSwaps(runtime: Runtime, rows: SwapRowInput[]): Promise<void> {
  await storeSwapRows(runtime, swapRowValues(rows))
}

/** Swap rows as the swaps' entry tables take them, with defaults for what a test leaves out. */
export function swapRowValues(rows: SwapRowInput[]) {
  return rows.map((r) => ({
    chain_id: r.chain_id ?? 1,
    hash: lower(r.hash),
    block_number: r.block_number ?? 19_000_000,
    timestamp: r.timestamp,
    wallet_address: lower(r.wallet_address ?? addressFor('wallet-default')),
    token_sold_address: lower(r.token_sold_address ?? addressFor('token-sold-default')),
    token_sold_amount: r.token_sold_amount ?? '1000000000000000000',
    token_bought_address: lower(r.token_bought_address ?? addressFor('token-bought-default')),
    token_bought_amount: r.token_bought_amount ?? '2000000',
    value_usd: r.value_usd === undefined ? 100 : r.value_usd,
    dex: r.dex === undefined ? 'uniswap-v3' : r.dex,
    ingested_at: r.ingested_at ?? Date.now(),
  }))
}

export async function insertHoldings(runtime: Runtime, rows: HoldingRowInput[]): Promise<void> {
  await insert(
    runtime,
    runtime.tables.holdings,
    rows.map((r) => ({
      wallet_address: lower(r.wallet_address),
      contract_address: lower(r.contract_address),
      balance_raw: r.balance_raw ?? '1000000000000000000',
      value_usd: r.value_usd === undefined ? 100 : r.value_usd,
      as_of: r.as_of ?? Date.now(),
    })),
  )
}

export async function insertPrices(runtime: Runtime, rows: PriceRowInput[]): Promise<void> {
  await insert(
    runtime,
    runtime.tables.prices,
    rows.map((r) => ({
      contract_address: lower(r.contract_address),
      timestamp: r.timestamp,
      price_usd: r.price_usd,
      volume_usd: r.volume_usd ?? null,
      ingested_at: r.ingested_at ?? Date.now(),
    })),
  )
}

/** A complete cached indicator result (shared/candles/technical-analysis.ts) for one token. */
export function sampleTechnicalAnalysis(token: {
  contractAddress: string
  id?: string
  name?: string | null
  symbol?: string | null
  decimals?: number | null
}): TechnicalAnalysis {
  const contractAddress = token.contractAddress.toLowerCase()
  return {
    pivotPoints: {
      keyLevel: 101.5,
      Resistance1: 103,
      Support1: 100,
      Resistance2: 104.5,
      Support2: 98.5,
      dailyHigh: 103,
      dailyLow: 100,
      dailyClose: 101.5,
      volume24: 123456.78,
    },
    ma50: 99.25,
    ma100: 98.125,
    ma200: null,
    rsi: 55.123456789,
    macd: { macd: 0.5, signal: 0.25, histogram: 0.25 },
    timestamp: '2025-02-01T04:01:00.000Z',
    token: {
      id: token.id ?? contractAddress,
      name: token.name === undefined ? 'Test Token' : token.name,
      symbol: token.symbol === undefined ? 'TEST' : token.symbol,
      decimals: token.decimals === undefined ? 18 : token.decimals,
      contractAddress,
    },
    candleTime: Date.UTC(2025, 1, 1, 0),
    candleCount: 180,
  }
}
