import { Router } from 'express'
import { AlertRulesStore } from '../../shared/alerts/alert-rules-store.js'
import type { AlertDeliveriesQueue } from '../../shared/alerts/alert-deliveries.js'
import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'
import type { Tables } from '../../shared/storage/tables.js'
import { alertDeliveryRoutes } from './alert-delivery-routes.js'
import { alertRuleRoutes } from './alert-rule-routes.js'

/** The alert rules and their webhook deliveries under /admin (the deliveries' paths first: they would read as a rule id). */
export function alertAdminRoutes(deps: { clickhouse: ClickHouseClient; tables: Tables; deliveries: unknown }): Router {
  const router = Router()
  router.use(alertDeliveryRoutes(deps.deliveries as AlertDeliveriesQueue))
  router.use(alertRuleRoutes(new AlertRulesStore(deps.clickhouse, deps.tables)))
  return router
}
