import { CANDLE_MS } from '../shared/candles/candles.js'
import { IndicatorJobNames } from '../shared/platform/queues.js'
import { indicatorJobRetention, type IndicatorQueue } from './indicator-queue.js'

/** BullMQ types a scheduler id like a job name. The id predates the incremental step (kept, so an upgrade updates the one scheduler in place). */
export const INDICATOR_SCHEDULER_ID = IndicatorJobNames.recomputeAll

/**
 * Registers (or updates in place) the one job scheduler that runs the incremental step (advance)
 * `delayMs` after each UTC 4-hour boundary: BullMQ's `every` slots are aligned to the
 * epoch, so every: 4 h with offset: delay fires at 00:00+delay, 04:00+delay ... UTC.
 * upsertJobScheduler keys it by id, so restarts and several engine processes never
 * duplicate it. (An offset of 0 would make BullMQ anchor the slots at "now", hence >= 1.)
 */
export async function scheduleAdvance(queue: IndicatorQueue, delayMs: number): Promise<void> {
  await queue.upsertJobScheduler(
    INDICATOR_SCHEDULER_ID,
    { every: CANDLE_MS, offset: Math.max(1, delayMs % CANDLE_MS) },
    { name: IndicatorJobNames.advance, data: {}, opts: { ...indicatorJobRetention } },
  )
}
