import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Tables } from '../shared/storage/tables.js'
import { refreshTokenFlows } from '../shared/token-flows/token-flows-refresh.js'
import type { FeedReading } from './feed-watch.js'

/**
 * The refresh of the stored token flows a read runs first, so what was stored before the
 * request is in them (shared/token-flows/token-flows-refresh.ts). Skipped when the change
 * feed shows no swap change since the reading a refresh started after; one refresh at a
 * time, shared by every read it covers. Without a reading (the feed cannot be read), every
 * read refreshes.
 */
export class TokenFlowsRefreshGate {
  /** The swap version every stored flow follows. */
  private refreshed = -1
  private epoch = -1
  private running: Promise<void> | null = null

  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  async upTo(reading: FeedReading | undefined): Promise<void> {
    if (reading === undefined) {
      await refreshTokenFlows(this.clickhouse, this.tables)
      return
    }
    if (reading.epoch !== this.epoch) {
      // The feed started again: versions of another epoch say nothing.
      this.epoch = reading.epoch
      this.refreshed = -1
    }
    const version = reading.versions.swap
    for (;;) {
      if (this.refreshed >= version) return
      const running = this.running
      if (running === null) break
      // A refresh that failed leaves the version as it was: this read runs its own.
      await running.catch(() => undefined)
    }
    const refresh = refreshTokenFlows(this.clickhouse, this.tables).then(() => {
      if (this.epoch === reading.epoch) this.refreshed = Math.max(this.refreshed, version)
    })
    this.running = refresh
    const settled = () => {
      if (this.running === refresh) this.running = null
    }
    refresh.then(settled, settled)
    await refresh
  }
}
