import { readFileSync } from 'node:fs'

/**
 * What a timed step had of the machine, averaged over the step: the cores this process kept
 * busy (embedded ClickHouse runs in it) and the cores the hypervisor took away from this
 * virtual machine (steal, from Linux's /proc/stat). On a shared host the same code runs
 * slower by what is stolen, so a figure is read beside it.
 */
export interface MachineShare {
  ownCores: number
  /** null where /proc/stat is not there to read. */
  stolenCores: number | null
}

/** Linux counts /proc/stat in USER_HZ ticks, 100 per second on every architecture it supports. */
const TICK_MS = 10

function stolenTicks(): number | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/)
    const steal = Number(fields[8])
    return fields[0] === 'cpu' && Number.isFinite(steal) ? steal : null
  } catch {
    return null
  }
}

/** Runs `work`, returning its value, its wall time in ms and what it had of the machine. */
export async function timedShare<T>(work: () => Promise<T>): Promise<[T, number, MachineShare]> {
  const stolenBefore = stolenTicks()
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  const value = await work()
  const wallMs = performance.now() - started
  const cpu = process.cpuUsage(cpuBefore)
  const stolenAfter = stolenTicks()
  const stolenCores = stolenBefore === null || stolenAfter === null ? null : ((stolenAfter - stolenBefore) * TICK_MS) / wallMs
  return [value, wallMs, { ownCores: (cpu.user + cpu.system) / 1000 / wallMs, stolenCores }]
}

export function shareText({ ownCores, stolenCores }: MachineShare): string {
  return `${ownCores.toFixed(2)} cores ours, ${stolenCores === null ? '—' : stolenCores.toFixed(2)} stolen`
}
