import { dateTime64Param } from '../../shared/candles/candles.js'
import type { Runtime } from '../../shared/runtime.js'
import { storeSwapRows } from './store-swaps.js'

/** Direct ClickHouse inserts for candle tests that are about aggregation, not ingestion. */
export async function insertTokens(rt: Runtime, tokens: Array<{ address: string; decimals: number; symbol?: string }>) {
  await rt.clickhouse.insert({
    table: rt.tables.tokens,
    format: 'JSONEachRow',
    values: tokens.map((t) => ({
      contract_address: t.address,
      id: t.address,
      chain_id: 1,
      name: t.symbol ?? 'Token',
      symbol: t.symbol ?? 'TKN',
      decimals: t.decimals,
      updated_at: dateTime64Param(Date.now()),
    })),
  })
}

export async function insertPrices(
  rt: Runtime,
  prices: Array<{ address: string; time: number; price: number; volume?: number | null }>,
) {
  await rt.clickhouse.insert({
    table: rt.tables.prices,
    format: 'JSONEachRow',
    values: prices.map((p) => ({
      contract_address: p.address,
      timestamp: dateTime64Param(p.time),
      price_usd: p.price,
      volume_usd: p.volume ?? null,
      ingested_at: dateTime64Param(Date.now()),
    })),
  })
}

export interface SwapRow {
  hash: string
  time: number
  sold: { address: string; raw: string }
  bought: { address: string; raw: string }
  valueUsd: number | null
}

export async function insertSwaps(rt: Runtime, swaps: SwapRow[]) {
  await storeSwapRows(
    rt,
    swaps.map((s) => ({
      chain_id: 1,
      hash: s.hash,
      block_number: 1,
      timestamp: dateTime64Param(s.time),
      wallet_address: '0x' + 'a'.repeat(40),
      token_sold_address: s.sold.address,
      token_sold_amount: s.sold.raw,
      token_bought_address: s.bought.address,
      token_bought_amount: s.bought.raw,
      value_usd: s.valueUsd,
      dex: null,
      ingested_at: dateTime64Param(Date.now()),
    })),
  )
}

export function hashOf(n: number): string {
  return '0x' + n.toString(16).padStart(64, '0')
}

export function addressOf(n: number): string {
  return '0x' + n.toString(16).padStart(40, '0')
}
