import { randomBytes } from 'node:crypto'
import type { Redis } from '../shared/platform/redis.js'
import { redisKey } from '../shared/platform/redis.js'

/** Takes every free lock among KEYS (SET NX PX, owner ARGV[1], TTL ARGV[2] ms); returns the 1-based positions taken. */
const ACQUIRE = `
local held = {}
for i, key in ipairs(KEYS) do
  if redis.call('SET', key, ARGV[1], 'PX', ARGV[2], 'NX') then held[#held + 1] = i end
end
return held`

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

  /** Takes every free lock in one round trip (one script: one command to encode, however many tokens); returns the tokens now held. */
  async acquireMany(addresses: readonly string[]): Promise<string[]> {
    if (addresses.length === 0) return []
    const taken = await this.redis.eval(ACQUIRE, addresses.length, ...addresses.map((a) => this.key(a)), this.owner, this.ttlMs)
    if (!Array.isArray(taken)) throw new Error(`lock script answered ${typeof taken}, not a list`)
    return taken.map((position) => addresses[Number(position) - 1]!)
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

  async release(addresses: readonly string[]): Promise<void> {
    if (addresses.length === 0) return
    await this.redis.eval(RELEASE, addresses.length, ...addresses.map((a) => this.key(a)), this.owner)
  }
}
