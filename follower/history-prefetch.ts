import type { AdaptiveLogReader } from './adaptive-log-reader.js'
import { swapLogBlocks, type RawLog } from './chain-logs.js'
import type { BlockSenders, ChainRpc } from './chain-rpc.js'

/** A finalized range as read from the node: its followed logs, and the senders and times of its blocks with swaps. */
export interface HistoryChunk {
  from: number
  to: number
  logs: RawLog[]
  blocks: BlockSenders
}

/**
 * Reads finalized history one range ahead of the follower: while a range is extracted and
 * stored (most of a step is waiting for the queue's acknowledgement), the next one is read.
 * Only reads happen ahead; everything with an effect (pools, prices, records, the
 * checkpoint) stays in step order. A range read ahead for another start than the one asked
 * for (after a restart of the step from its checkpoint) is dropped.
 */
export class HistoryPrefetch {
  private ahead: Promise<HistoryChunk> | null = null

  constructor(
    private readonly reader: AdaptiveLogReader,
    private readonly rpc: ChainRpc,
  ) {}

  /** The range starting at `from` (ending at `finalHead` at most), then starts reading the one after it. */
  async take(from: number, finalHead: number): Promise<HistoryChunk> {
    const ahead = this.ahead
    this.ahead = null
    let chunk = ahead ? await ahead.catch(() => null) : null
    if (chunk === null || chunk.from !== from || chunk.to > finalHead) chunk = await this.read(from, finalHead)
    if (chunk.to < finalHead) {
      const next = this.read(chunk.to + 1, finalHead)
      // Its failure is the next take's to meet (that take reads again); never an unhandled rejection.
      next.catch(() => undefined)
      this.ahead = next
    }
    return chunk
  }

  private async read(from: number, finalHead: number): Promise<HistoryChunk> {
    const { to, logs } = await this.reader.read(from, finalHead)
    return { from, to, logs, blocks: await this.rpc.blocksWithSenders(swapLogBlocks(logs)) }
  }
}
