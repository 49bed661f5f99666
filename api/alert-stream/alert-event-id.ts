import { FIRING_ID_PREFIX } from '../../shared/alerts/alert-firing.js'
import type { FiringPlace } from '../../shared/alerts/alert-firings-store.js'

/**
 * An event's id, `<block>-<firing>`: the place of the firing version it comes from (the
 * block number of the insert that wrote it, then the firing id's 32 hexadecimal digits). A
 * client resuming with it gets every version written after it. `<block>-0` stands before a
 * block's first version: a restart point `<position + 1>-0` resumes after everything up to
 * `position`.
 */
const EVENT_ID = /^(\d{1,16})-(0|[0-9a-f]{32})$/

export function formatAlertEventId(place: FiringPlace): string {
  return `${place.block}-${place.id === '' ? '0' : place.id.slice(FIRING_ID_PREFIX.length)}`
}

/** The place, or null when the id is not `<block>-<firing>` with block ≥ 1. */
export function parseAlertEventId(raw: string): FiringPlace | null {
  const match = EVENT_ID.exec(raw)
  if (match === null) return null
  const block = Number(match[1])
  if (!Number.isSafeInteger(block) || block < 1) return null
  return { block, id: match[2] === '0' ? '' : `${FIRING_ID_PREFIX}${match[2]}` }
}

/** Whether the place `a` comes after `b`. */
export function isAfter(a: FiringPlace, b: FiringPlace): boolean {
  return a.block > b.block || (a.block === b.block && a.id > b.id)
}

/** The position (block number) up to which a client resuming after `place` has every version: a `<block>-0` place has seen nothing of its block. */
export function positionBefore(place: FiringPlace): number {
  return place.id === '' ? place.block - 1 : place.block
}

/** The place after everything up to `position`. */
export function restartPoint(position: number): FiringPlace {
  return { block: position + 1, id: '' }
}
