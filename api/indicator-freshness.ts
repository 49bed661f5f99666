import type { Queue } from 'bullmq'
import type { Redis } from '../shared/platform/redis.js'
import { toIndicatorJobResult } from './indicator-job-waiter.js'

/** Events read per round trip, and at most this many round trips (BullMQ keeps ~10,000 events per queue). */
const PAGE = 500
const MAX_PAGES = 25

/**
 * When the indicator engine last wrote a technical-analysis result (ms since the epoch),
 * from the indicators queue's event stream: the newest `completed` event whose result says
 * it wrote something. The stream is shared by every process, so an API process sees the
 * engine's work wherever it runs, at the cost of a few XREVRANGEs per scrape. Null when no
 * such event is on record (a new queue, or nothing written within the stream's last events).
 */
export async function newestIndicatorResultAt(redis: Redis, queue: Pick<Queue, 'keys'>): Promise<number | null> {
  const stream = queue.keys.events
  if (stream === undefined) throw new Error('BullMQ names no events stream for this queue')
  let end = '+'
  for (let page = 0; page < MAX_PAGES; page++) {
    const entries = await redis.xrevrange(stream, end, '-', 'COUNT', PAGE)
    for (const [id, fields] of entries) {
      const event = fieldValue(fields, 'event')
      if (event === 'completed' && toIndicatorJobResult(fieldValue(fields, 'returnvalue')).written > 0) {
        return Number(id.slice(0, id.indexOf('-')))
      }
    }
    if (entries.length < PAGE) return null
    end = `(${entries[entries.length - 1]![0]}`
  }
  return null
}

function fieldValue(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1]
  return undefined
}
