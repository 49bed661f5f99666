/**
 * A small seeded pseudo-random generator (mulberry32): the same seed gives the same
 * sequence on every machine and Node version, which Math.random cannot promise.
 */
export class Prng {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!
  }

  /** A standard normal deviate (Box-Muller). */
  gaussian(): number {
    const u = 1 - this.next()
    const v = this.next()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  }

  /** `digits` lower-case hexadecimal characters. */
  hex(digits: number): string {
    let out = ''
    while (out.length < digits) out += Math.floor(this.next() * 0x10000).toString(16).padStart(4, '0')
    return out.slice(0, digits)
  }
}

/** The floats of a seeded Prng as a plain function, for code that only draws floats. */
export function seededFloats(seed: number): () => number {
  const prng = new Prng(seed)
  return () => prng.next()
}
