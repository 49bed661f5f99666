import type { FollowerProgress } from './chain-follower.js'

/** A one-line progress bar for a history run: block, share done, blocks/s, swaps/s, ETA. */
export function progressPrinter(write: (line: string) => void, everyMs = 1_000): (p: FollowerProgress) => void {
  let startedAt = 0
  let startBlock = 0
  let startSwaps = 0
  let lastPrint = 0
  let lastMode: FollowerProgress['mode'] | null = null
  return (p) => {
    const now = Date.now()
    if (startedAt === 0) {
      startedAt = now
      startBlock = p.block
      startSwaps = p.stats.swaps
    }
    if (p.mode !== lastMode && p.mode === 'live') write(`\nhistory done at block ${p.block}: following the head\n`)
    lastMode = p.mode
    if (p.mode !== 'history' || now - lastPrint < everyMs) return
    lastPrint = now
    const seconds = Math.max(0.001, (now - startedAt) / 1000)
    const blocksPerS = (p.block - startBlock) / seconds
    const swapsPerS = (p.stats.swaps - startSwaps) / seconds
    const left = Math.max(0, p.head - p.block)
    const eta = blocksPerS > 0 ? Math.round(left / blocksPerS) : 0
    const share = p.head > 0 ? Math.min(100, (p.block / p.head) * 100) : 100
    const width = 24
    const filled = Math.round((share / 100) * width)
    write(
      `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] block ${p.block}/${p.head} ${share.toFixed(1)}%  ${blocksPerS.toFixed(0)} blocks/s  ${swapsPerS.toFixed(0)} swaps/s  ETA ${Math.floor(eta / 60)}:${String(eta % 60).padStart(2, '0')}  `,
    )
  }
}
