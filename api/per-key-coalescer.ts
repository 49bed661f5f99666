/**
 * One computation per key at a time in this process: a caller asking for a key whose
 * computation is running gets that same promise, so a burst of requests for one token
 * costs one computation. The entry is dropped once it settles; the next caller starts anew.
 */
export class PerKeyCoalescer<T> {
  private readonly running = new Map<string, Promise<T>>()

  run(key: string, compute: () => Promise<T>): Promise<T> {
    const pending = this.running.get(key)
    if (pending !== undefined) return pending
    const started = compute().finally(() => this.running.delete(key))
    this.running.set(key, started)
    return started
  }

  /** Keys whose computation is running (for tests and diagnostics). */
  get size(): number {
    return this.running.size
  }
}
