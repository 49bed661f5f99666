import { randomUUID } from 'node:crypto'
import { redisKey, type Redis } from '../platform/redis.js'
import { HOUR_MS } from '../platform/time-units.js'

/**
 * Which hours of swaps changed, told by ingestion to every API process through Redis, so
 * an API can cache an exact count of the swaps of each hour and recount only the hours
 * that changed (api/swap-hour-counts.ts).
 *
 * Each mark is a fresh random token, never a counter: after Redis loses its data a
 * token can only be missing or new, never equal to one a cache already holds, so a lost
 * mark makes an API recount rather than trust a stale count.
 */
export { HOUR_MS }

export function hourStart(ms: number): number {
  return ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS)
}

function keys(prefix: string) {
  return { hours: redisKey(prefix, 'swaps', 'hour-marks'), version: redisKey(prefix, 'swaps', 'hour-marks-version') }
}

/** Called after the rows are stored and before the job is acknowledged. */
export async function markSwapHoursChanged(redis: Redis, prefix: string, hours: ReadonlySet<number>): Promise<void> {
  if (hours.size === 0) return
  const token = randomUUID()
  const k = keys(prefix)
  const fields: string[] = []
  for (const hour of hours) fields.push(String(hour), token)
  await redis.multi().hset(k.hours, ...fields).set(k.version, token).exec()
}

/** A token that changes whenever any hour is marked (null when nothing was marked yet). */
export function readSwapHoursVersion(redis: Redis, prefix: string): Promise<string | null> {
  return redis.get(keys(prefix).version)
}

/** Every hour's latest mark. */
export async function readSwapHourMarks(redis: Redis, prefix: string): Promise<Map<number, string>> {
  const raw = await redis.hgetall(keys(prefix).hours)
  const marks = new Map<number, string>()
  for (const [hour, token] of Object.entries(raw)) marks.set(Number(hour), token)
  return marks
}
