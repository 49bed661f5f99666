import type { ChangeKind } from '../shared/storage/schema/changes-schema.js'
import { versionOf, type FeedReading, type FeedWatch } from './feed-watch.js'

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
 * Results of reads of some kinds of data, kept while the change feed shows no change of
 * those kinds (feed-watch.ts: the version of a kind is the last read of the feed that
 * found changes of it). Ingestion stores rows before acknowledging them, and the feed is
 * read after a request arrives, so a kept result is exactly what the query would return
 * now. Requests for the same result share one computation while it runs (50 analysts
 * polling the newest page cost one query). When the feed cannot be read, nothing is kept.
 */
export class VersionedResults {
  private version: number | undefined
  /** Insertion order is recency: a hit moves its entry to the end. */
  private readonly entries = new Map<string, Promise<unknown>>()

  constructor(
    private readonly feed: FeedWatch,
    private readonly kinds: readonly ChangeKind[],
  ) {}

  /** `compute` is given the reading of the feed this read took (undefined: none could be taken), which a computation may use as its own. */
  async read<T>(key: string, compute: (reading?: FeedReading) => Promise<T>, options: ReadOptions = {}): Promise<T> {
    const reading = await this.feed.read().catch(() => undefined)
    if (reading === undefined) return compute()
    const version = versionOf(reading, this.kinds)
    // A reading older than one already taken in: compute, keep nothing.
    if (this.version !== undefined && version < this.version) return compute(reading)
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
    const result = compute(reading)
    this.entries.delete(key)
    this.entries.set(key, result)
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
    result.catch(() => {
      if (this.entries.get(key) === result) this.entries.delete(key)
    })
    return result
  }
}
