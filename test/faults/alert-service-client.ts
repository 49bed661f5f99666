import type { RecordInput } from '../../shared/records/records.js'
import { addressFor, hashFor } from '../support/factories.js'

/** What the alerts fault phase asks of the service over HTTP: rules, firings, deliveries. */
export class AlertServiceClient {
  constructor(
    readonly base: string,
    private readonly adminToken: string,
  ) {}

  /** Creates a wallet_trade rule on `wallets` posting to `webhookUrl` (none: no webhook); its id and webhook secret. */
  async createRule(name: string, wallets: string[], webhookUrl?: string): Promise<{ id: string; secret: string | undefined }> {
    const res = await fetch(`${this.base}/admin/alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, kind: 'wallet_trade', wallets, min_value_usd: 0, webhooks: webhookUrl ? [{ url: webhookUrl }] : [] }),
    })
    const body = (await res.json()) as { result: { id: string; webhooks: Array<{ secret: string }> } }
    if (res.status !== 201) throw new Error(`POST /admin/alerts answered ${res.status}: ${JSON.stringify(body)}`)
    return { id: body.result.id, secret: body.result.webhooks[0]?.secret }
  }

  /** A rule's firings in firing order (GET /alerts lists them newest first). */
  async firings(ruleId: string): Promise<Array<{ id: string; status: string; fired_at: number }>> {
    const res = await fetch(`${this.base}/alerts?rule_id=${ruleId}&limit=500`)
    if (res.status !== 200) throw new Error(`GET /alerts answered ${res.status}`)
    const body = (await res.json()) as { result: Array<{ id: string; status: string; fired_at: number }> }
    return body.result.reverse()
  }

  /** A rule's deliveries in a state (GET /admin/alerts/deliveries). */
  async deliveries(ruleId: string, status: 'failed' | 'completed'): Promise<Array<{ id: string; firing_id: string; attempts_made: number; failed_reason: string | null }>> {
    const res = await fetch(`${this.base}/admin/alerts/deliveries?status=${status}&limit=500`, { headers: { authorization: `Bearer ${this.adminToken}` } })
    if (res.status !== 200) throw new Error(`GET /admin/alerts/deliveries answered ${res.status}`)
    const body = (await res.json()) as { result: Array<{ id: string; rule_id: string; firing_id: string; attempts_made: number; failed_reason: string | null }> }
    return body.result.filter((d) => d.rule_id === ruleId)
  }
}

const FIRST_SWAP_AT = Date.now() - 3_600_000

/** A swap by `wallet`, its hash from `label`, `second` seconds after the phase's first. */
export function alertSwap(label: string, wallet: string, second: number): RecordInput<'swap'> {
  return {
    hash: hashFor(label),
    block_number: 1,
    timestamp: FIRST_SWAP_AT + second * 1000,
    wallet_address: wallet,
    token_sold: { contract_address: addressFor('alert-faults-usdc'), amount_raw: '1000000000' },
    token_bought: { contract_address: addressFor('alert-faults-token'), amount_raw: '5000000000000000000' },
    value_usd: 1000,
    dex: 'uniswap_v2',
  }
}
