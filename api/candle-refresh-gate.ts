import { refreshCandles } from '../shared/candles/candle-refresh.js'
import type { CandleRefresh } from '../shared/candles/candles.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { ChangeKind } from '../shared/storage/schema/changes-schema.js'
import type { Tables } from '../shared/storage/tables.js'
import { versionOf, type FeedWatch } from './feed-watch.js'

/** Tokens remembered at most; the least recently refreshed is forgotten first. */
const MAX_TOKENS = 10_000

/** The changes a candle is made of: swaps and retractions, prices, token metadata (decimals). */
const CANDLE_INPUTS: readonly ChangeKind[] = ['swap', 'price', 'token']

/**
 * The re-aggregation a candle read runs first (so what was stored a moment ago is in the
 * candles), skipped when the change feed shows nothing that can change a candle since this
 * process last ran it for the token (feed-watch.ts). The feed is read before the refresh
 * runs, so rows stored while it runs leave a newer version behind and the next read
 * refreshes again. When the feed cannot be read, every read refreshes.
 */
export class CandleRefreshGate {
  /** Per token, the candle-inputs version read before its last refresh. */
  private readonly refreshedAt = new Map<string, number>()

  constructor(private readonly feed: FeedWatch) {}

  readonly refresh: CandleRefresh = async (clickhouse: ClickHouseClient, tables: Tables, token: string) => {
    const reading = await this.feed.read().catch(() => null)
    const version = reading === null ? null : versionOf(reading, CANDLE_INPUTS)
    const refreshed = this.refreshedAt.get(token)
    if (version !== null && refreshed !== undefined && refreshed >= version) return
    await refreshCandles(clickhouse, tables, { token })
    if (version === null) return
    const since = Math.max(version, this.refreshedAt.get(token) ?? 0)
    this.refreshedAt.delete(token)
    this.refreshedAt.set(token, since)
    if (this.refreshedAt.size > MAX_TOKENS) this.refreshedAt.delete(this.refreshedAt.keys().next().value!)
  }
}
