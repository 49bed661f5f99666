import { firingJson, type AlertFiring } from '../../shared/alerts/alert-firing.js'
import type { FiringPlace } from '../../shared/alerts/alert-firings-store.js'
import { sseFrame } from '../sse/sse-writer.js'
import { formatAlertEventId } from './alert-event-id.js'

/** What one client asked for (GET /stream/alerts's filters, GET /alerts's rule_id and token). */
export interface AlertStreamFilter {
  ruleId?: string | undefined
  token?: string | undefined
}

/** A firing version as every client gets it: serialized once. */
export interface AlertStreamEvent {
  place: FiringPlace
  firing: AlertFiring
  /** The whole SSE frame. */
  frame: string
}

/** `alert` for a firing, `alert_retracted` for its retraction (the webhooks' alert.fired and alert.retracted); data: the alert as GET /alerts lists it. */
export function alertEvent(place: FiringPlace, firing: AlertFiring): AlertStreamEvent {
  const name = firing.status === 'retracted' ? 'alert_retracted' : 'alert'
  return { place, firing, frame: sseFrame(name, JSON.stringify(firingJson(firing)), formatAlertEventId(place)) }
}

export function matches(filter: AlertStreamFilter, firing: AlertFiring): boolean {
  return (filter.ruleId === undefined || firing.rule_id === filter.ruleId) && (filter.token === undefined || firing.token === filter.token)
}
