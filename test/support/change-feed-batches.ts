/** The SIGKILL test's batches of swaps (test/change-feed-sigkill.test.ts), each of distinct hashes. */
export const BATCH_ROWS = 1_000

export function batchHashes(batch: number): string[] {
  return Array.from({ length: BATCH_ROWS }, (_, i) => `0x${batch.toString(16).padStart(8, '0')}${i.toString(16).padStart(56, '0')}`)
}
