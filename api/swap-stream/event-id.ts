/**
 * An event's id, `<block>-<index>`: the change feed's position (the changes table's block
 * number) of the changes it comes from, and its place among that block's events (from 1,
 * in an order fixed by the block's change rows alone: swap-events.ts). A client resuming
 * with it gets every event after it. `<block>-0` stands before a block's first event: a
 * restart point `<position + 1>-0` resumes after everything up to `position`.
 */
export interface EventId {
  block: number
  index: number
}

const EVENT_ID = /^(\d{1,16})-(\d{1,9})$/

export function formatEventId(id: EventId): string {
  return `${id.block}-${id.index}`
}

/** The id, or null when it is not `<block>-<index>` with block ≥ 1. */
export function parseEventId(raw: string): EventId | null {
  const match = EVENT_ID.exec(raw)
  if (match === null) return null
  const block = Number(match[1])
  const index = Number(match[2])
  return Number.isSafeInteger(block) && block >= 1 ? { block, index } : null
}

/** Whether an event at `id` comes after `point`. */
export function isAfter(id: EventId, point: EventId): boolean {
  return id.block > point.block || (id.block === point.block && id.index > point.index)
}

/** The position up to which a client resuming after `point` has every change: a `<block>-0` point has seen nothing of its block. */
export function positionBefore(point: EventId): number {
  return point.index === 0 ? point.block - 1 : point.block
}

/** The point after everything up to `position`. */
export function restartPoint(position: number): EventId {
  return { block: position + 1, index: 0 }
}
