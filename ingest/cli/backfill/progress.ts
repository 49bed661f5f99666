/** What the progress display shows; read from the command on every tick. */
export interface ProgressState {
  phase: 'reading' | 'waiting'
  bytesRead: number
  totalBytes: number
  records: number
  jobsEnqueued: number
  jobsFinished: number
  accepted: number
  rejected: number
}

export interface ProgressOutput {
  write(text: string): unknown
  isTTY?: boolean
  columns?: number
}

/**
 * A hand-written progress display: on a terminal one bar redrawn in place with rows/s
 * and an ETA by bytes read (compressed bytes for gzip); elsewhere a plain line every
 * few seconds, so logs of a CI job stay readable.
 */
export class ProgressReporter {
  private timer: NodeJS.Timeout | undefined
  private readonly startedAt = Date.now()
  private drawn = false

  constructor(
    private readonly output: ProgressOutput,
    private readonly state: () => ProgressState,
    private readonly intervalMs = output.isTTY ? 200 : 2_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.render(), this.intervalMs)
    this.timer.unref()
  }

  /** Stops the display; on a terminal leaves the final bar on its own line. */
  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    if (this.output.isTTY) {
      this.render()
      if (this.drawn) this.output.write('\n')
    }
  }

  render(): void {
    const s = this.state()
    const line = this.output.isTTY ? this.bar(s) : this.plain(s)
    if (this.output.isTTY) {
      this.output.write(`\r\x1b[2K${line}`)
      this.drawn = true
    } else {
      this.output.write(`${line}\n`)
    }
  }

  private bar(s: ProgressState): string {
    if (s.phase === 'waiting') return this.waitingLine(s)
    const fraction = s.totalBytes > 0 ? Math.min(1, s.bytesRead / s.totalBytes) : 1
    const width = Math.max(10, Math.min(30, (this.output.columns ?? 80) - 60))
    const filled = Math.round(fraction * width)
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled)
    return `[${bar}] ${(fraction * 100).toFixed(1).padStart(5)}%  ${formatCount(s.records)} rows  ${formatCount(this.rate(s.records))} rows/s  ETA ${formatDuration(this.eta(fraction))}`
  }

  private plain(s: ProgressState): string {
    if (s.phase === 'waiting') return `backfill: ${this.waitingLine(s)}`
    const fraction = s.totalBytes > 0 ? Math.min(1, s.bytesRead / s.totalBytes) : 1
    return `backfill: ${(fraction * 100).toFixed(1)}% read, ${formatCount(s.records)} rows, ${formatCount(this.rate(s.records))} rows/s, ETA ${formatDuration(this.eta(fraction))}`
  }

  private waitingLine(s: ProgressState): string {
    return `waiting for the workers: ${s.jobsFinished}/${s.jobsEnqueued} jobs done, ${formatCount(s.accepted)} accepted, ${formatCount(s.rejected)} rejected`
  }

  private rate(records: number): number {
    const seconds = (Date.now() - this.startedAt) / 1000
    return seconds > 0 ? Math.round(records / seconds) : 0
  }

  private eta(fraction: number): number | undefined {
    if (fraction <= 0) return undefined
    const elapsed = Date.now() - this.startedAt
    return (elapsed / fraction) * (1 - fraction)
  }
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US')
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '--:--'
  const total = Math.round(ms / 1000)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const sec = String(total % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`
}
