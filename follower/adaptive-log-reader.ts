import type { Logger } from '../shared/platform/logger.js'
import type { RawLog } from './chain-logs.js'
import { errorText, isTransient, type ChainRpc } from './chain-rpc.js'

const TOO_MANY = /too many|limit exceeded|more than \d+ (results|logs)|response size|query returned more|block range|range too (large|wide)|exceed/i

/** Reads after which a range size once refused may be tried again (the chain's density changes). */
const CEILING_READS = 50

/**
 * eth_getLogs over a block range whose size adapts: halved when the provider refuses a
 * range as too large (or times out), doubled again while pieces come back fast and small,
 * up to `maxRange`, but for CEILING_READS reads after a refusal not beyond the halved size
 * (each refusal costs a whole answer thrown away). Transient failures are retried with backoff.
 */
export class AdaptiveLogReader {
  size: number
  private ceiling: number
  private readsUnderCeiling = 0

  constructor(
    private readonly rpc: ChainRpc,
    private readonly maxRange: number,
    private readonly logger: Logger,
    private readonly fastMs = 1_000,
    private readonly smallCount = 10_000,
  ) {
    this.size = Math.min(100, maxRange)
    this.ceiling = maxRange
  }

  /** Reads one piece starting at `from`, ending at `maxTo` at most: its end and its logs. */
  async read(from: number, maxTo: number): Promise<{ to: number; logs: RawLog[] }> {
    let delay = 100
    for (;;) {
      const to = Math.min(maxTo, from + this.size - 1)
      const started = Date.now()
      try {
        const logs = await this.rpc.logs(from, to)
        if (this.ceiling < this.maxRange && ++this.readsUnderCeiling >= CEILING_READS) this.ceiling = this.maxRange
        if (Date.now() - started < this.fastMs && logs.length < this.smallCount && to - from + 1 === this.size) {
          this.size = Math.min(this.ceiling, this.size * 2)
        }
        return { to, logs }
      } catch (err) {
        const text = errorText(err)
        const timeout = /timed? ?out|took too long/i.test(text)
        if ((TOO_MANY.test(text) || timeout) && this.size > 1) {
          this.size = Math.max(1, Math.floor(this.size / 2))
          this.ceiling = this.size
          this.readsUnderCeiling = 0
          this.logger.debug('eth_getLogs range shrunk', { size: this.size, reason: text.slice(0, 200) })
          continue
        }
        if (!isTransient(err) || this.rpc.isHalted) throw err
        this.logger.warn('eth_getLogs failed: retrying', { from, to, err })
        await new Promise((r) => setTimeout(r, delay))
        delay = Math.min(delay * 2, 5_000)
      }
    }
  }
}
