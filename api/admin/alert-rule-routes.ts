import express, { Router, type Request } from 'express'
import { alertRuleInput, describeIssue, inputOf, ruleJson, type AlertRule, type AlertRuleInput } from '../../shared/alerts/alert-rule.js'
import type { AlertRulesStore } from '../../shared/alerts/alert-rules-store.js'
import { sendPage, sendResult } from '../envelope.js'
import { badRequest, notFound } from '../http-error.js'
import { parsePage } from '../pagination.js'

/**
 * The alert rules (under /admin, behind the admin token):
 * POST   /admin/alerts        creates a rule; the response holds each webhook's secret (shown once)
 * GET    /admin/alerts        a page of rules, oldest first
 * GET    /admin/alerts/:id    one rule
 * PUT    /admin/alerts/:id    replaces a rule (a webhook kept by URL keeps its id, and its secret unless one is given)
 * PATCH  /admin/alerts/:id    changes the fields given (null removes `wallets` or `token`)
 * DELETE /admin/alerts/:id    deletes a rule (its firings stay)
 * A webhook's secret (generated, or given as `secret`) is in the response that set it, and never again.
 */
export function alertRuleRoutes(rules: AlertRulesStore): Router {
  const router = Router()
  const json = express.json({ limit: '1mb' })

  router.post('/alerts', json, async (req, res) => {
    const rule = await rules.create(parseRule(req.body))
    res.status(201)
    sendResult(res, ruleJson(rule, 'all'))
  })

  router.get('/alerts', async (req, res) => {
    const page = parsePage(req)
    const { rules: found, total } = await rules.list(page)
    sendPage(res, found.map((r) => ruleJson(r)), { ...page, total })
  })

  router.get('/alerts/:id', async (req, res) => {
    sendResult(res, ruleJson(await existing(rules, req)))
  })

  router.put('/alerts/:id', json, async (req, res) => {
    const before = await existing(rules, req)
    const rule = await rules.replace(before, parseRule(req.body))
    sendResult(res, ruleJson(rule, newSecrets(before, rule)))
  })

  router.patch('/alerts/:id', json, async (req, res) => {
    const before = await existing(rules, req)
    if (!isObject(req.body)) throw badRequest('Invalid alert rule: the body must be a JSON object')
    const merged: Record<string, unknown> = { ...inputOf(before), ...req.body }
    for (const [key, value] of Object.entries(req.body)) if (value === null && (key === 'wallets' || key === 'token')) delete merged[key]
    if (merged.kind !== before.kind) {
      // Another kind's thresholds differ: a change of kind names them all (PUT).
      throw badRequest(`Invalid alert rule: kind: a PATCH keeps the kind ("${before.kind}"); use PUT to change it`)
    }
    const rule = await rules.replace(before, parseRule(merged))
    sendResult(res, ruleJson(rule, newSecrets(before, rule)))
  })

  router.delete('/alerts/:id', async (req, res) => {
    const rule = await existing(rules, req)
    await rules.delete(rule)
    sendResult(res, { id: rule.id, deleted: true })
  })
  return router
}

function parseRule(body: unknown): AlertRuleInput {
  if (!isObject(body)) throw badRequest('Invalid alert rule: the body must be a JSON object')
  const parsed = alertRuleInput.safeParse(body)
  if (!parsed.success) throw badRequest(`Invalid alert rule: ${parsed.error.issues.map(describeIssue).join('; ')}`)
  return parsed.data
}

async function existing(rules: AlertRulesStore, req: Request): Promise<AlertRule> {
  const id = String(req.params.id)
  const rule = await rules.get(id)
  if (rule === null) throw notFound(`No alert rule with id ${id}`)
  return rule
}

/** The webhooks a change added or gave another secret: their secrets are in its response. */
function newSecrets(before: AlertRule, after: AlertRule): Set<string> {
  const known = new Map(before.webhooks.map((w) => [w.id, w.secret]))
  return new Set(after.webhooks.filter((w) => known.get(w.id) !== w.secret).map((w) => w.id))
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
