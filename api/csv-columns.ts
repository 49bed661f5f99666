import type { Candle, Holding, SwapTransaction, Token, TokenRef } from '../shared/records/domain.js'
import type { IndicatorHistoryRow } from './indicator-history-row.js'

/**
 * Every field of a row type, a nested object as its own shape, a value as `true`. Written
 * against the row's TypeScript type, so a field added to or removed from a row type
 * without its column here is a compile error.
 */
export type ColumnShape<T> = {
  [K in keyof T]-?: NonNullable<T[K]> extends object ? ColumnShape<NonNullable<T[K]>> : true
}

/** The CSV columns of a row type: its fields in order, a nested field as `parent.child`. */
export type CsvColumns = readonly string[]

function columnsOf<T>(shape: ColumnShape<T>): CsvColumns {
  const columns: string[] = []
  const walk = (node: object, path: string) => {
    for (const [name, child] of Object.entries(node)) {
      const column = path === '' ? name : `${path}.${name}`
      if (child === true) columns.push(column)
      else walk(child as object, column)
    }
  }
  walk(shape, '')
  return columns
}

const tokenRef: ColumnShape<TokenRef> = { id: true, name: true, symbol: true, decimals: true, contract_address: true }

export const TOKEN_COLUMNS = columnsOf<Token>(tokenRef)

export const HOLDING_COLUMNS = columnsOf<Holding>({
  id: true,
  wallet_address: true,
  token: tokenRef,
  balance_raw: true,
  balance: true,
  value_usd: true,
  updated_at: true,
})

const swapLeg = { ...tokenRef, amount_raw: true, amount: true } as const

export const SWAP_COLUMNS = columnsOf<SwapTransaction>({
  hash: true,
  chain_id: true,
  block_number: true,
  timestamp: true,
  timestamp_ms: true,
  wallet_address: true,
  token_sold: swapLeg,
  token_bought: swapLeg,
  value_usd: true,
  dex: true,
})

export const CANDLE_COLUMNS = columnsOf<Candle>({ time: true, open: true, high: true, low: true, close: true, volume: true })

export const INDICATOR_HISTORY_COLUMNS = columnsOf<IndicatorHistoryRow>({
  candleTime: true,
  ma50: true,
  ma100: true,
  ma200: true,
  rsi: true,
  macd: { macd: true, signal: true, histogram: true },
  pivotPoints: {
    keyLevel: true,
    Resistance1: true,
    Support1: true,
    Resistance2: true,
    Support2: true,
    dailyHigh: true,
    dailyLow: true,
    dailyClose: true,
    volume24: true,
  },
})
