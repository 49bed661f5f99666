import { describe, expect, it } from 'vitest'
import { ExpiringMemory } from '../api/expiring-memory.js'
import { PerKeyCoalescer } from '../api/per-key-coalescer.js'

describe('ExpiringMemory (the negative cache of on-demand computations)', () => {
  it('forgets a value after its time, keeps at most maxEntries (oldest out first), and keeps nothing with ttl 0', () => {
    let now = 1_000
    const memory = new ExpiringMemory<string>(500, 2, () => now)
    memory.set('a', 'A')
    now += 499
    expect(memory.get('a')).toBe('A')
    now += 1
    expect(memory.get('a')).toBeUndefined()

    memory.set('a', 'A')
    memory.set('b', 'B')
    memory.set('c', 'C')
    expect([memory.get('a'), memory.get('b'), memory.get('c')]).toEqual([undefined, 'B', 'C'])

    const off = new ExpiringMemory<string>(0)
    off.set('a', 'A')
    expect(off.get('a')).toBeUndefined()
  })
})

describe('PerKeyCoalescer', () => {
  it('shares one running computation per key, and starts anew once it settled (also after a failure)', async () => {
    const coalescer = new PerKeyCoalescer<number>()
    let calls = 0
    let release: (n: number) => void = () => undefined
    const compute = () =>
      new Promise<number>((resolve) => {
        calls++
        release = resolve
      })
    const waiting = Array.from({ length: 50 }, () => coalescer.run('t', compute))
    expect(calls).toBe(1)
    release(7)
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 50 }, () => 7))
    expect(coalescer.size).toBe(0)

    await expect(coalescer.run('t', () => Promise.reject(new Error('engine down')))).rejects.toThrow('engine down')
    expect(await coalescer.run('t', async () => 8)).toBe(8)
  })
})
