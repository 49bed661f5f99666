import type { Logger } from '../../shared/platform/logger.js'

/** How often a live stream reads the store while clients are connected. */
export const POLL_MS = 100

export interface StreamPollerOptions {
  /** One read of the store: sends the live clients what was written since the last. */
  read: () => Promise<void>
  /** Whether to go on: false once the last client left or the server is closing. */
  wanted: () => boolean
  /** Runs once the poller stops because it is no longer wanted. */
  onStop: () => void
  logger: Logger
  /** Logged once when reads start failing, and once when they succeed again. */
  messages: { failing: string; recovered: string }
}

/**
 * A live stream's poll loop in one API process: a read every POLL_MS after the previous one
 * ended, while wanted. A failed read is logged (once per run of failures) and tried again.
 */
export class StreamPoller {
  private timer: NodeJS.Timeout | null = null
  private failing = false

  constructor(private readonly options: StreamPollerOptions) {}

  start(): void {
    this.timer = setTimeout(() => void this.poll(), POLL_MS)
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }

  private async poll(): Promise<void> {
    const { read, wanted, onStop, logger, messages } = this.options
    if (wanted()) {
      try {
        await read()
        if (this.failing) logger.info(messages.recovered)
        this.failing = false
      } catch (err) {
        if (!this.failing) logger.warn(messages.failing, { error: err instanceof Error ? err.message : String(err) })
        this.failing = true
      }
    }
    if (wanted()) this.start()
    else onStop()
  }
}
