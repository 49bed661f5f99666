import { feedPosition } from '../shared/changes/change-feed.js'
import { evaluateAlerts, type AlertEvaluationDeps } from '../shared/alerts/alert-evaluation.js'
import type { Logger } from '../shared/platform/logger.js'
import { startPeriodic } from './periodic-task.js'

export interface AlertEvaluatorDeps extends AlertEvaluationDeps {
  logger: Logger
  /** How long to wait when the feed has not moved (or after an error). */
  pollMs: number
}

/**
 * Runs the alerts' change-feed consumer (shared/alerts/alert-evaluation.ts) in the
 * background: a step whenever the feed's position moved past the last one this process
 * recorded, checked every `pollMs` when idle (one small query), so a firing is delivered
 * within about that of its swap's insert. One step at a time; an error is logged and the
 * next check tries again.
 */
export function startAlertEvaluator(deps: AlertEvaluatorDeps): { stop(): Promise<void> } {
  let seen = -1

  const tick = async () => {
    try {
      if (seen >= 0 && (await feedPosition(deps.clickhouse, deps.tables)) === seen) return
      const result = await evaluateAlerts(deps)
      seen = result.position
      if (result.fired.length + result.retracted.length > 0) {
        deps.logger.debug('alerts evaluated', { fired: result.fired.length, retracted: result.retracted.length })
      }
    } catch (err) {
      seen = -1
      deps.logger.warn('alert evaluation failed', { err })
    }
  }
  return startPeriodic(deps.pollMs, tick)
}
