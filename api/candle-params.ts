import { HOUR_MS } from '../shared/platform/time-units.js'

/** The candle intervals served, by name, in ms (the `interval` parameter: api/contract/endpoints/tokens.ts). */
export const CANDLE_INTERVALS = { '1h': HOUR_MS, '4h': 4 * HOUR_MS, '1d': 24 * HOUR_MS } as const
export type CandleInterval = keyof typeof CANDLE_INTERVALS
export const DEFAULT_CANDLE_INTERVAL: CandleInterval = '4h'
