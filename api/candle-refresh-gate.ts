import { refreshCandles } from '../shared/candles/candle-refresh.js'
import type { CandleRefresh } from '../shared/candles/candles.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { readDataVersion } from '../shared/swaps/data-versions.js'
import type { Redis } from '../shared/platform/redis.js'
import type { Tables } from '../shared/storage/tables.js'

/** Tokens remembered at most; the least recently refreshed is forgotten first. */
const MAX_TOKENS = 10_000

/**
 * The re-aggregation a candle read runs first (so what was stored a moment ago is in the
 * candles), skipped when nothing that can change a candle was stored since this process
 * last ran it for the token. Ingestion sets a new candle-inputs token in Redis after
 * storing swaps, retractions, prices or tokens and before acknowledging them
 * (shared/swaps/data-versions.ts); the token is read before the refresh runs, so rows stored
 * while it runs leave a newer token behind and the next read refreshes again. Without a
 * token (none yet, Redis emptied or unreachable) every read refreshes, as before.
 */
export class CandleRefreshGate {
  /** Per token, the candle-inputs token read before its last refresh. */
  private readonly refreshedAt = new Map<string, string>()

  constructor(
    private readonly redis: Redis,
    private readonly redisPrefix: string,
  ) {}

  readonly refresh: CandleRefresh = async (clickhouse: ClickHouseClient, tables: Tables, token: string) => {
    const version = await readDataVersion(this.redis, this.redisPrefix, 'candleInputs').catch(() => null)
    if (version !== null && this.refreshedAt.get(token) === version) return
    await refreshCandles(clickhouse, tables, { token })
    if (version === null) return
    this.refreshedAt.delete(token)
    this.refreshedAt.set(token, version)
    if (this.refreshedAt.size > MAX_TOKENS) this.refreshedAt.delete(this.refreshedAt.keys().next().value!)
  }
}
