import { randomBytes, randomUUID } from 'node:crypto'
import type { ClickHouseClient } from '../storage/clickhouse.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'
import { criteriaOf, type AlertKind, type AlertRule, type AlertRuleInput, type AlertWebhook } from './alert-rule.js'

interface RuleRow {
  id: string
  name: string
  kind: string
  definition: string
  webhooks: string
  active: number
  created_ms: string
  updated_ms: string
}

/** A Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`
}

/**
 * The alert rules in ClickHouse (alert_rules, ReplacingMergeTree by id): every write is a
 * new version of the rule's row, a delete a tombstone. An update keeps the id and secret
 * of each webhook whose URL the rule already had (a secret given replaces it), so
 * receivers keep verifying.
 */
export class AlertRulesStore {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
    private readonly clock: () => number = Date.now,
  ) {}

  async create(input: AlertRuleInput): Promise<AlertRule> {
    const now = this.clock()
    const rule = this.build(`rule_${randomUUID().replaceAll('-', '')}`, input, [], now, now)
    await this.write(rule, false)
    return rule
  }

  async replace(existing: AlertRule, input: AlertRuleInput): Promise<AlertRule> {
    const rule = this.build(existing.id, input, existing.webhooks, existing.created_at, Math.max(this.clock(), existing.updated_at + 1))
    await this.write(rule, false)
    return rule
  }

  async delete(existing: AlertRule): Promise<void> {
    await this.write({ ...existing, updated_at: Math.max(this.clock(), existing.updated_at + 1) }, true)
  }

  async get(id: string): Promise<AlertRule | null> {
    const [row] = await this.rows('id = {id:String}', { id })
    return row === undefined ? null : fromRow(row)
  }

  async list(page: { limit: number; offset: number }): Promise<{ rules: AlertRule[]; total: number }> {
    const [count] = await queryRows<{ n: string }>(this.clickhouse, `SELECT toString(count()) AS n FROM ${this.tables.alertRules} FINAL`)
    const rows = await this.rows('1', { limit: page.limit, offset: page.offset }, 'ORDER BY created_at, id LIMIT {limit:UInt32} OFFSET {offset:UInt64}')
    return { rules: rows.map(fromRow), total: Number(count?.n ?? 0) }
  }

  /** The rules the evaluation applies. */
  async active(): Promise<AlertRule[]> {
    return (await this.rows('active = 1', {})).map(fromRow)
  }

  private build(id: string, input: AlertRuleInput, kept: AlertWebhook[], createdAt: number, updatedAt: number): AlertRule {
    const byUrl = new Map(kept.map((w) => [w.url, w]))
    const webhooks = input.webhooks.map((w) => {
      const known = byUrl.get(w.url)
      return { id: known?.id ?? `wh_${randomUUID().replaceAll('-', '')}`, url: w.url, secret: w.secret ?? known?.secret ?? newWebhookSecret() }
    })
    return {
      id,
      name: input.name,
      kind: input.kind,
      active: input.active,
      criteria: criteriaOf(input),
      webhooks: [...new Map(webhooks.map((w) => [w.url, w])).values()],
      created_at: createdAt,
      updated_at: updatedAt,
    }
  }

  private async write(rule: AlertRule, deleted: boolean): Promise<void> {
    await this.clickhouse.command({
      query: `INSERT INTO ${this.tables.alertRules} (id, name, kind, definition, webhooks, active, created_at, updated_at, is_deleted)
        VALUES ({id:String}, {name:String}, {kind:String}, {definition:String}, {webhooks:String}, {active:UInt8},
                {created:DateTime64(3, 'UTC')}, {updated:DateTime64(3, 'UTC')}, {deleted:UInt8})`,
      query_params: {
        id: rule.id,
        name: rule.name,
        kind: rule.kind,
        definition: JSON.stringify(rule.criteria),
        webhooks: JSON.stringify(rule.webhooks),
        active: rule.active ? 1 : 0,
        created: dateTime64Param(rule.created_at),
        updated: dateTime64Param(rule.updated_at),
        deleted: deleted ? 1 : 0,
      },
    })
  }

  private rows(where: string, params: Record<string, unknown>, tail = 'ORDER BY created_at, id'): Promise<RuleRow[]> {
    return queryRows<RuleRow>(
      this.clickhouse,
      `SELECT id, name, kind, definition, webhooks, active,
         toString(toUnixTimestamp64Milli(created_at)) AS created_ms, toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms
       FROM ${this.tables.alertRules} FINAL WHERE ${where} ${tail}`,
      params,
    )
  }
}

function fromRow(row: RuleRow): AlertRule {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as AlertKind,
    active: Number(row.active) === 1,
    criteria: JSON.parse(row.definition),
    webhooks: JSON.parse(row.webhooks),
    created_at: Number(row.created_ms),
    updated_at: Number(row.updated_ms),
  }
}
