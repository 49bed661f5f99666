import type { Redis } from '../shared/platform/redis.js'
import { readDataVersion, type VersionedData } from '../shared/swaps/data-versions.js'

/** Most results kept per kind of data (a page of 50 swaps is ~30 KB of rows). */
const MAX_ENTRIES = 500

/** A client's `Cache-Control: no-cache` (or `no-store`) asks for a result computed now. */
export function readOptionsOf(req: { get(name: string): string | undefined }): ReadOptions {
  return { fresh: /\bno-(cache|store)\b/i.test(req.get('cache-control') ?? '') }
}

export interface ReadOptions {
  /** Compute anew even when a result for the current version is kept (Cache-Control: no-cache). */
  fresh?: boolean
}

/**
 * Results of reads of one kind of data, kept while that data's version token
 * (shared/swaps/data-versions.ts) stays the same. Ingestion sets a new token after storing
 * rows and before acknowledging them, so a kept result is exactly what the query would
 * return now. Requests for the same result share one computation while it runs (50
 * analysts polling the newest page cost one query). Without a token (none written yet,
 * Redis emptied or unreachable) nothing is kept and every read computes.
 */
export class VersionedResults {
  private version: string | null = null
  /** Insertion order is recency: a hit moves its entry to the end. */
  private readonly entries = new Map<string, Promise<unknown>>()

  constructor(
    private readonly redis: Redis,
    private readonly redisPrefix: string,
    private readonly data: VersionedData,
  ) {}

  async read<T>(key: string, compute: () => Promise<T>, options: ReadOptions = {}): Promise<T> {
    const version = await readDataVersion(this.redis, this.redisPrefix, this.data).catch(() => null)
    if (version === null) return compute()
    if (version !== this.version) {
      this.entries.clear()
      this.version = version
    }
    const kept = options.fresh ? undefined : this.entries.get(key)
    if (kept !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, kept)
      return kept as Promise<T>
    }
    const result = compute()
    this.entries.delete(key)
    this.entries.set(key, result)
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
    result.catch(() => {
      if (this.entries.get(key) === result) this.entries.delete(key)
    })
    return result
  }
}
