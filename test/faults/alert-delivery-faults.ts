import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { loadConfig } from '../../shared/platform/config.js'
import { IngestProducer } from '../../shared/records/ingest-producer.js'
import { addressFor } from '../support/factories.js'
import { freePort } from '../support/private-redis.js'
import { WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js'
import { AlertServiceClient, alertSwap } from './alert-service-client.js'
import { sleep } from './fault-injector.js'
import { ServiceProcess } from './service-process.js'

/**
 * The alerts' webhook deliveries under faults, on the service as `npm start` runs it (a
 * child process with its own embedded store and Redis prefix, the delivery retries at their
 * defaults) and receivers in this process that verify every signature with standardwebhooks:
 *
 * - Receiver down: one rule's receiver listens to nothing for 60 s from its first firing,
 *   while more fire; then it is back. Every firing must arrive, each `webhook-id` exactly
 *   once, in firing order, none left failed.
 * - Service killed mid-delivery: another rule's receiver holds the first request it gets
 *   and the service is SIGKILLed while it is in flight; started again, the same delivery is
 *   sent again (it must keep its `webhook-id`), held, and the service killed again. Two
 *   more swaps are enqueued while the service is down. Every firing must then arrive (a
 *   duplicate id is allowed, a missing firing or a second id for one firing is not), in
 *   firing order.
 *
 * Both run at once: the kills fall within the outage, whose receiver comes back only after
 * them, so its deliveries are never in flight at a kill.
 */

export interface FaultPhase {
  redisUrl: string
  /** A directory for the phase's store. */
  dir: string
  log(line: string): void
  check(ok: boolean, what: string): void
  figures: Array<[string, string]>
  /** Where the phase lists the service it starts (the suite kills it when interrupted). */
  services: ServiceProcess[]
}

const OUTAGE_MS = 60_000
const OUTAGE_FIRINGS = 4
const KILL_FIRINGS = 3
const FIRED_WHILE_DOWN = 2
/** The sender gives a receiver this long to answer (shared/alerts/alert-sender.ts): a kill must come before. */
const SEND_TIMEOUT_MS = 10_000

export async function runAlertDeliveryFaults(phase: FaultPhase): Promise<void> {
  const { log, check } = phase
  const startedAt = Date.now()
  const adminToken = `faults-admin-${randomBytes(12).toString('hex')}`
  const port = await freePort()
  const env: Record<string, string> = {
    CLICKHOUSE_PATH: join(phase.dir, 'clickhouse'),
    CLICKHOUSE_DATABASE: 'alert_faults',
    REDIS_URL: phase.redisUrl,
    REDIS_PREFIX: 'faults-alerts',
    REDIS_AUTOSTART: 'false',
    SAMPLE_DATA: 'false',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ADMIN_TOKEN: adminToken,
    // A delivery in flight at a kill is sent again after about twice this (30 s by default):
    // shorter, the kills fit within the outage.
    ALERT_DELIVERY_STALLED_MS: '5000',
  }
  const service = new ServiceProcess(env)
  phase.services.push(service)
  const producer = new IngestProducer(loadConfig(env))
  const steady = new WebhookReceiver()
  const down = new WebhookReceiver()
  const wallets = { probe: addressFor('alert-faults-probe'), outage: addressFor('alert-faults-outage'), kill: addressFor('alert-faults-kill') }
  try {
    await steady.listen()
    // Its port taken once, then nothing listening there: connections are refused.
    await down.listen()
    await down.close()
    await service.start()
    const api = new AlertServiceClient(`http://127.0.0.1:${port}`, adminToken)
    const probeRule = await api.createRule('probe', [wallets.probe])
    const outageRule = await api.createRule('outage', [wallets.outage], `${down.url}/outage`)
    down.secrets.set('/outage', outageRule.secret!)
    const killRule = await api.createRule('kill', [wallets.kill], `${steady.url}/kill`)
    steady.secrets.set('/kill', killRule.secret!)
    steady.held.add('/kill')
    let held = nextHeld(steady)
    await untilEvaluating(api, producer, probeRule.id, wallets.probe)

    // The outage's firings, one evaluation each; then the kill rule's, in one.
    for (let i = 1; i <= OUTAGE_FIRINGS; i++) {
      await producer.send('swap', [alertSwap(`alert-faults-outage-${i}`, wallets.outage, i)], 'alert-faults')
      await untilFirings(api, outageRule.id, i)
    }
    const outageFrom = (await api.firings(outageRule.id))[0]!.fired_at
    await producer.send('swap', Array.from({ length: KILL_FIRINGS }, (_, i) => alertSwap(`alert-faults-kill-${i}`, wallets.kill, i)), 'alert-faults')
    await untilFirings(api, killRule.id, KILL_FIRINGS)
    log(`alerts: ${OUTAGE_FIRINGS} firings for the receiver that is down, ${KILL_FIRINGS} for the one that holds`)

    const first = await within(held, 30_000, 'the kill rule\'s first delivery')
    const firstKillLag = await killService(service, steady)
    log(`alerts: kill 1, ${firstKillLag} ms after ${first.id} reached the receiver`)
    for (let i = 1; i <= FIRED_WHILE_DOWN; i++) {
      await producer.send('swap', [alertSwap(`alert-faults-while-down-${i}`, wallets.kill, KILL_FIRINGS + i)], 'alert-faults')
    }
    held = nextHeld(steady)
    await service.start()
    await untilFirings(api, killRule.id, KILL_FIRINGS + FIRED_WHILE_DOWN)
    const again = await within(held, 150_000, 'the held delivery sent again')
    const secondKillLag = await killService(service, steady)
    log(`alerts: kill 2, ${secondKillLag} ms after ${again.id} came again`)
    check(firstKillLag < SEND_TIMEOUT_MS && secondKillLag < SEND_TIMEOUT_MS, `alerts: both kills landed while a delivery was in flight (${firstKillLag} ms, ${secondKillLag} ms after it reached the receiver)`)
    check(again.id === first.id && again.firingId === first.firingId, `alerts: the delivery in flight at the kill is sent again with its webhook-id (${first.id}, then ${again.id})`)
    steady.held.delete('/kill')
    await service.start()

    // The outage lasts its 60 s, longer if the kills took more.
    const outageMs = Math.max(OUTAGE_MS, Date.now() - outageFrom)
    await sleep(outageFrom + outageMs - Date.now())
    await down.listen()
    log(`alerts: the receiver is back after ${(outageMs / 1000).toFixed(0)} s`)

    const outageFirings = (await api.firings(outageRule.id)).map((f) => f.id)
    const killFirings = (await api.firings(killRule.id)).map((f) => f.id)
    const settled = await untilDelivered(api, [
      { ruleId: outageRule.id, firings: outageFirings, delivered: () => down.delivered('/outage') },
      { ruleId: killRule.id, firings: killFirings, delivered: () => steady.delivered('/kill') },
    ])
    log(`alerts: deliveries settled ${settled.ms} ms after the receiver came back${settled.failed.length > 0 ? `; failed: ${settled.failed.map((d) => `${d.id} (${d.failed_reason})`).join(', ')}` : ''}`)

    const outage = checkDeliveries('receiver down', outageFirings, down.received, check)
    const onlyOnce = down.received.every((r) => r.status === 200) && new Set(down.received.map((r) => r.id)).size === down.received.length
    check(onlyOnce, `alerts, receiver down: each webhook-id received exactly once (${down.received.length} requests for ${outageFirings.length} firings)`)
    const headAttempts = (await api.deliveries(outageRule.id, 'completed')).find((d) => d.firing_id === outageFirings[0])?.attempts_made ?? 0
    const kill = checkDeliveries('service killed', killFirings, steady.received, check)
    check(settled.failed.length === 0, `alerts: no delivery failed for good (${settled.failed.length})`)
    check(service.crashes.length === 0, `alerts: the service never exited by itself (${service.crashes.length} times)`)
    const stopCode = await service.stop()
    check(stopCode === 0, `alerts: the service stops on SIGTERM with exit 0 (got ${stopCode})`)

    phase.figures.push(
      ['alert webhooks, receiver down', `${(outageMs / 1000).toFixed(0)} s (connections refused), ${outageFirings.length} firings: ${outage.delivered} delivered, each id once, ${outage.inOrder ? 'in' : 'NOT in'} firing order; the first on attempt ${headAttempts} (default retries)`],
      ['alert webhooks, service killed', `2 SIGKILLs while a delivery was in flight, ${FIRED_WHILE_DOWN} swaps enqueued while down; ${killFirings.length} firings: ${kill.delivered} delivered in ${steady.received.length} requests (${steady.received.filter((r) => r.status === null).length} cut by the kills, ${kill.duplicates} duplicates answered), ${kill.inOrder ? 'in' : 'NOT in'} firing order`],
      ['alert webhooks, phase time', `${((Date.now() - startedAt) / 1000).toFixed(0)} s`],
    )
  } catch (err) {
    log(`alerts: service log:\n${service.recentLog()}`)
    throw err
  } finally {
    if (service.running) await service.kill()
    await producer.close()
    await steady.close()
    await down.close()
  }
}

/**
 * Every firing delivered (answered 200), every delivery signed right, one webhook-id per
 * firing and one firing per webhook-id, and the firings' first deliveries in firing order.
 */
function checkDeliveries(name: string, firings: string[], received: ReceivedWebhook[], check: FaultPhase['check']) {
  const delivered = received.filter((r) => r.status === 200)
  const missing = firings.filter((f) => !delivered.some((r) => r.firingId === f))
  check(missing.length === 0, `alerts, ${name}: every firing delivered (${firings.length - missing.length} of ${firings.length}; missing ${missing.join(' ')})`)
  check(received.every((r) => r.verified), `alerts, ${name}: every request's signature verifies (${received.filter((r) => !r.verified).length} do not)`)
  const idsOf = new Map<string, Set<string>>()
  const firingsOf = new Map<string, Set<string>>()
  for (const r of received) {
    idsOf.set(r.firingId, (idsOf.get(r.firingId) ?? new Set()).add(r.id))
    firingsOf.set(r.id, (firingsOf.get(r.id) ?? new Set()).add(r.firingId))
  }
  const split = [...idsOf.values()].filter((ids) => ids.size > 1).length + [...firingsOf.values()].filter((f) => f.size > 1).length
  check(split === 0, `alerts, ${name}: one webhook-id per firing, the same on every attempt (${split} firings or ids with two)`)
  const order = [...new Set(delivered.map((r) => r.firingId))]
  const inOrder = order.join(' ') === firings.join(' ')
  check(inOrder, `alerts, ${name}: first deliveries in firing order`)
  return { delivered: order.length, duplicates: delivered.length - order.length, inOrder }
}

/** Waits until a probe swap fires: before its first step the evaluator starts at the feed's head, skipping what is stored. */
async function untilEvaluating(api: AlertServiceClient, producer: IngestProducer, ruleId: string, wallet: string): Promise<void> {
  const deadline = Date.now() + 60_000
  for (let i = 0; ; i++) {
    await producer.send('swap', [alertSwap(`alert-faults-probe-${i}`, wallet, i)], 'alert-faults')
    const until = Date.now() + 3_000
    while (Date.now() < until) {
      if ((await api.firings(ruleId)).length > 0) return
      await sleep(100)
    }
    if (Date.now() > deadline) throw new Error('no probe swap fired within 60 s')
  }
}

async function untilFirings(api: AlertServiceClient, ruleId: string, count: number): Promise<void> {
  const deadline = Date.now() + 60_000
  while ((await api.firings(ruleId)).length < count) {
    if (Date.now() > deadline) throw new Error(`rule ${ruleId} did not reach ${count} firings within 60 s`)
    await sleep(100)
  }
}

/** Until each firing is delivered or its delivery failed for good (it will not come without a re-drive), or 4 minutes. */
async function untilDelivered(
  api: AlertServiceClient,
  rules: Array<{ ruleId: string; firings: string[]; delivered: () => ReceivedWebhook[] }>,
): Promise<{ ms: number; failed: Array<{ id: string; firing_id: string; failed_reason: string | null }> }> {
  const started = Date.now()
  for (;;) {
    const failed = (await Promise.all(rules.map((r) => api.deliveries(r.ruleId, 'failed')))).flat()
    const settled = rules.every((r) => r.firings.every((f) => r.delivered().some((d) => d.firingId === f) || failed.some((d) => d.firing_id === f)))
    if (settled || Date.now() - started > 240_000) return { ms: Date.now() - started, failed }
    await sleep(250)
  }
}

/** The next request the receiver holds. */
function nextHeld(receiver: WebhookReceiver): Promise<ReceivedWebhook> {
  return new Promise((resolve) => {
    receiver.onHeld = resolve
  })
}

/** SIGKILL, then the held requests' connections closed; the ms from the held request's arrival to the kill. */
async function killService(service: ServiceProcess, receiver: WebhookReceiver): Promise<number> {
  const lag = Date.now() - receiver.received[receiver.received.length - 1]!.at
  await service.kill()
  receiver.drop()
  return lag
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
