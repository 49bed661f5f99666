/** Calls onStep with the time since the previous step (or `started`). */
export function stepTimer(onStep: ((step: string, ms: number) => void) | undefined, started: number): (name: string) => void {
  let previous = started
  return (name) => {
    const now = Date.now()
    onStep?.(name, now - previous)
    previous = now
  }
}
