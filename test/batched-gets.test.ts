import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { BatchedGets } from '../api/batched-gets.js'
import { createRedis, deleteKeysWithPrefix, type Redis } from '../shared/platform/redis.js'
import { testRedisUrl } from './support/runtime.js'

describe('BatchedGets (the cached technical-analysis reads)', () => {
  const prefix = `test-batched-gets-${randomBytes(4).toString('hex')}`
  const key = (name: string) => `${prefix}:${name}`
  let redis: Redis

  beforeAll(async () => {
    redis = createRedis(testRedisUrl)
    await redis.set(key('a'), 'A')
    await redis.set(key('b'), 'B')
  })
  afterAll(async () => {
    vi.restoreAllMocks()
    await deleteKeysWithPrefix(redis, prefix)
    redis.disconnect()
  })

  it('reads what GET reads, the reads of one turn in a few MGETs (at most 16 reads each), a key asked twice once', async () => {
    const gets = new BatchedGets(redis)
    const mget = vi.spyOn(redis, 'mget')
    const names = ['a', 'b', 'missing', 'a']
    expect(await Promise.all(names.map((name) => gets.get(key(name))))).toEqual(['A', 'B', null, 'A'])
    expect(mget).toHaveBeenCalledTimes(1)
    expect(mget.mock.calls[0]?.[0]).toEqual([key('a'), key('b'), key('missing')])

    mget.mockClear()
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => gets.get(key(i % 2 === 0 ? 'a' : 'b'))))
    expect(many).toEqual(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 'A' : 'B')))
    expect(mget).toHaveBeenCalledTimes(3)

    // Nothing is kept: a later read sees a later value.
    await redis.set(key('a'), 'A2')
    expect(await gets.get(key('a'))).toBe('A2')
  })

  it('a failed MGET fails every read of its batch with its error', async () => {
    const gets = new BatchedGets(redis)
    vi.spyOn(redis, 'mget').mockRejectedValueOnce(new Error('boom'))
    const reads = [gets.get(key('a')), gets.get(key('b'))]
    await expect(reads[0]).rejects.toThrow('boom')
    await expect(reads[1]).rejects.toThrow('boom')
    expect(await gets.get(key('b'))).toBe('B')
  })
})
