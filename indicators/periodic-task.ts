/**
 * Runs `tick` in the background every `intervalMs` after the previous tick ended, so ticks
 * never overlap; 0 never runs it. A tick handles its own errors. stop() waits for the tick
 * under way.
 */
export function startPeriodic(intervalMs: number, tick: () => Promise<void>): { stop(): Promise<void> } {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      running = tick().finally(schedule)
    }, intervalMs)
  }
  if (intervalMs > 0) schedule()
  return {
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await running
    },
  }
}
