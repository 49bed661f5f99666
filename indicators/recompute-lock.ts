import { randomBytes } from 'node:crypto'
import type { Redis } from '../shared/redis.js'
import { redisKey } from '../shared/redis.js'

/** Deletes a lock only if it still holds our token (never someone else's after our TTL ran out). */
const RELEASE = `
local released = 0
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    released = released + redis.call('DEL', key)
  end
end
return released`

/**
 * One recompute of the same token at a time, across processes: a Redis lock per token
 * (SET NX PX with a random owner token), released by compare-and-delete. The TTL bounds
 * how long a crashed holder can block a token.
 */
export class RecomputeLocks {
  readonly owner = randomBytes(12).toString('hex')

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {}

  key(contractAddress: string): string {
    return redisKey(this.prefix, 'ta-lock', contractAddress)
  }

  /** Takes every free lock in one round trip; returns the tokens now held. */
  async acquireMany(addresses: string[]): Promise<string[]> {
    if (addresses.length === 0) return []
    const pipeline = this.redis.pipeline()
    for (const address of addresses) pipeline.set(this.key(address), this.owner, 'PX', this.ttlMs, 'NX')
    const results = (await pipeline.exec()) ?? []
    const held: string[] = []
    results.forEach(([err, reply], i) => {
      if (err) throw err
      if (reply === 'OK') held.push(addresses[i]!)
    })
    return held
  }

  /** Waits (polling) until the token's lock is free and takes it; false after `waitMs`. */
  async acquire(address: string, waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs
    for (;;) {
      const reply = await this.redis.set(this.key(address), this.owner, 'PX', this.ttlMs, 'NX')
      if (reply === 'OK') return true
      if (Date.now() >= deadline) return false
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  async release(addresses: string[]): Promise<void> {
    if (addresses.length === 0) return
    await this.redis.eval(RELEASE, addresses.length, ...addresses.map((a) => this.key(a)), this.owner)
  }
}
