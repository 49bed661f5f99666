/**
 * `npm run test:faults`: nothing lost, nothing doubled, under faults.
 *
 * On a private redis-server (AOF everysec, own port and directory) and an embedded store in
 * a temporary directory: backfill a file of 1,000,000 distinct swaps (with re-delivered
 * duplicates) with `backfill --wait` while the service (main.ts, every role) is killed with
 * SIGKILL at 20 random moments and started again, and Redis is restarted twice (once
 * gracefully, its AOF kept; once losing its data). The command must say what it cannot
 * vouch for (exit 1) instead of claiming success; running it again must converge. Then:
 * exactly the distinct swaps stored, each once (API and ClickHouse), fuzzed HTTP requests
 * (JSON envelope only, no 5xx), and bad records of every kind mixed with valid ones (every
 * bad one dead-lettered with a reason, every valid one stored). Prints its figures and
 * exits 1 if any check failed. FAULT_SWAPS, FAULT_FUZZ, FAULT_BAD, FAULT_KILLS scale it.
 * Then the alerts' webhook deliveries with their receiver down for 60 s and the service
 * killed mid-delivery (alert-delivery-faults.ts). FAULT_ONLY=alerts runs that phase alone.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClickHouse } from '../../shared/storage/clickhouse.js'
import { loadConfig } from '../../shared/platform/config.js'
import { tablesFor } from '../../shared/storage/tables.js'
import { freePort } from '../support/private-redis.js'
import { writeBadRecordFiles } from './bad-records.js'
import { running as runningBackfills, runBackfillToEnd, startBackfill, type BackfillOutcome } from './backfill-run.js'
import { FaultInjector } from './fault-injector.js'
import { fuzzHttp } from './http-fuzz.js'
import { PersistentRedis } from './persistent-redis.js'
import { ServiceProcess } from './service-process.js'
import { checkBadRecords, checkSwapStore } from './store-checks.js'
import { runAlertDeliveryFaults } from './alert-delivery-faults.js'
import { writeSwapDataset } from './swap-dataset.js'

const SWAPS = Number(process.env.FAULT_SWAPS ?? 1_000_000)
const FUZZ = Number(process.env.FAULT_FUZZ ?? 10_000)
const BAD = Number(process.env.FAULT_BAD ?? 10_000)
const KILLS = Number(process.env.FAULT_KILLS ?? 20)
const SEED = Number(process.env.FAULT_SEED ?? Date.now() % 1_000_000)
const ONLY = process.env.FAULT_ONLY
if (ONLY !== undefined && ONLY !== 'alerts') throw new Error(`FAULT_ONLY must be alerts (got "${ONLY}")`)
const BATCH = 5_000

const startedAt = Date.now()
const failures: string[] = []
const notes: string[] = []
function log(line: string): void {
  process.stderr.write(`[faults ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)} s] ${line}\n`)
}
function check(ok: boolean, what: string): void {
  log(`${ok ? 'ok  ' : 'FAIL'} ${what}`)
  if (!ok) failures.push(what)
}
const fmt = (n: number) => n.toLocaleString('en-US')

const work = mkdtempSync(join(tmpdir(), 'smartmoney-faults-'))
const redis = new PersistentRedis(await freePort(), join(work, 'redis'))
const apiPort = await freePort()
const env: Record<string, string> = {
  CLICKHOUSE_PATH: join(work, 'clickhouse'),
  CLICKHOUSE_DATABASE: 'faults',
  REDIS_URL: redis.url,
  REDIS_PREFIX: 'faults',
  REDIS_AUTOSTART: 'false',
  SAMPLE_DATA: 'false',
  PORT: String(apiPort),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  // A killed worker's jobs come back after about twice this. Not lower: on a loaded machine
  // (load average 30 on 2 cores) a worker missed renewing its locks at 2 s and 5 s, its jobs
  // were taken for stalled, and after 5 stalls failed for good (the command says so, exit 1).
  INGEST_STALLED_MS: '20000',
  HTTP_HEADERS_TIMEOUT_MS: '2000',
  HTTP_REQUEST_TIMEOUT_MS: '3000',
  TA_ON_DEMAND_WAIT_MS: '2000',
  SHUTDOWN_TIMEOUT_MS: '60000',
}
const service = new ServiceProcess(env)
/** The services a phase started of its own. */
const phaseServices: ServiceProcess[] = []
// Interrupted (Ctrl-C, a CI timeout): take the children down with the suite.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the service, the backfills and Redis`)
    for (const child of runningBackfills) child.kill('SIGKILL')
    void Promise.all([service.kill(), ...phaseServices.map((s) => s.kill()), redis.kill()]).finally(() => {
      rmSync(work, { recursive: true, force: true })
      process.exit(130)
    })
  })
}
const figures: Array<[string, string]> = []

async function main(): Promise<void> {
  log(`seed ${SEED}, work directory ${work}, redis ${redis.url}, api port ${apiPort}`)
  await redis.start()
  if (ONLY === undefined) await swapPhases()
  // 7. Webhook deliveries: the receiver down, the service killed mid-delivery.
  await runAlertDeliveryFaults({ redisUrl: redis.url, dir: join(work, 'alerts'), log, check, figures, services: phaseServices })
}

async function swapPhases(): Promise<void> {
  // 1. The file.
  let t = Date.now()
  const dataset = await writeSwapDataset(join(work, 'swaps.ndjson'), {
    distinct: SWAPS,
    exactDuplicates: Math.round(SWAPS * 0.02),
    retimedDuplicates: Math.round(SWAPS * 0.002),
    endMs: Date.now() - 3_600_000,
    seed: SEED,
  })
  log(`wrote ${fmt(dataset.lines)} lines (${fmt(dataset.distinct)} distinct swaps, ${(statSync(dataset.path).size / 2 ** 20).toFixed(0)} MiB) in ${Date.now() - t} ms`)

  // 2. Backfill under faults, until a run vouches for every record.
  await service.start()
  log('service started')
  const injector = new FaultInjector(service, redis, env.REDIS_PREFIX!, SEED, log)
  const jobsPerRun = Math.ceil(dataset.lines / BATCH)
  const runs: BackfillOutcome[] = []
  t = Date.now()
  // Runs go on (the same file again: re-deliveries) until one vouches for every record
  // and every planned fault has happened.
  for (let run = 1; run <= 8; run++) {
    const backfill = startBackfill(['--type', 'swap', '--wait', dataset.path], env)
    const baseJobs = await injector.completedJobs()
    const killsLeft = KILLS - injector.kills
    // The first run takes both Redis restarts and about 60% of the kills.
    const maxKills = run === 1 ? injector.kills + Math.ceil(killsLeft * 0.6) : KILLS
    // Kills spread over the run: on average one per (jobs of a run / kills planned) jobs.
    const progressJobs = Math.max(1, Math.floor((2 * jobsPerRun) / Math.max(1, Math.ceil(KILLS * 0.6)) - 1))
    const faults = [injector.killWhileRunning(backfill.finished, maxKills, progressJobs)]
    if (run === 1) faults.push(injector.restartRedisAt(backfill.finished, baseJobs + Math.round(jobsPerRun * 0.3), baseJobs + Math.round(jobsPerRun * 0.65)))
    const outcome = await backfill.done
    await Promise.all(faults)
    runs.push(outcome)
    log(`backfill run ${run}: exit ${outcome.code}, read ${fmt(outcome.read)}, accepted ${fmt(outcome.accepted)}, rejected ${fmt(outcome.rejected)}, not confirmed ${fmt(outcome.notConfirmed)}, failed jobs ${outcome.failedJobs}, ${(outcome.ms / 1000).toFixed(1)} s`)
    if (outcome.code !== 0) log(`run ${run} summary:\n${outcome.stdout}\n${outcome.stderr.slice(-1_000)}`)
    check(outcome.read === dataset.lines, `run ${run} read every line (${fmt(outcome.read)} of ${fmt(dataset.lines)})`)
    // The command's arithmetic: every record read is accepted, rejected, not confirmed or in a failed job.
    const vouched = outcome.code === 0 ? outcome.accepted + outcome.rejected === outcome.read : outcome.notConfirmed > 0 || outcome.failedJobs > 0
    check(vouched, `run ${run}: exit 0 with every record accepted, or exit 1 naming what it cannot vouch for`)
    if (run === 1 && injector.redisDataLosses > 0 && injector.pendingAtDataLoss > 0) {
      check(
        outcome.code === 1 && outcome.notConfirmed > 0,
        `Redis lost its data with ${injector.pendingAtDataLoss} jobs unfinished: the command exits 1 and names ${fmt(outcome.notConfirmed)} records it cannot vouch for`,
      )
    }
    const clean = outcome.code === 0 && outcome.notConfirmed === 0 && outcome.failedJobs === 0
    if (clean && injector.kills >= KILLS && injector.redisDataLosses > 0) break
  }
  const backfillMs = Date.now() - t
  const last = runs[runs.length - 1]!
  check(last.code === 0 && last.accepted === dataset.lines && last.rejected === 0, `the last run vouches for every line (accepted ${fmt(last.accepted)} of ${fmt(dataset.lines)})`)
  check(injector.kills >= KILLS, `the service was killed ${injector.kills} times (wanted ${KILLS})`)
  check(injector.redisGracefulRestarts === 1 && injector.redisDataLosses === 1, 'Redis was restarted gracefully once and lost its data once')
  await injector.close()
  await service.waitReady(180_000)

  // 3. Through the API: the total, and swaps read back by hash.
  const base = `http://127.0.0.1:${apiPort}`
  const listed = (await (await fetch(`${base}/swap-transactions?start_time=${dataset.startMs}&end_time=${dataset.endMs}&limit=1`)).json()) as {
    pagination?: { total: number }
  }
  const apiTotal = listed.pagination?.total ?? -1
  check(apiTotal === dataset.distinct, `GET /swap-transactions pagination.total = ${fmt(apiTotal)} (want ${fmt(dataset.distinct)})`)
  // A sample by hash through the API (the full set is compared in ClickHouse below).
  const sampleSize = Math.min(500, dataset.distinct)
  let sampleFound = 0
  for (let i = 0; i < sampleSize; i++) {
    const hash = dataset.hashes[Math.floor((i * dataset.distinct) / sampleSize)]!
    const res = await fetch(`${base}/swap-transactions/${hash}`)
    const body = (await res.json()) as { result?: { hash?: string } }
    if (res.status === 200 && body.result?.hash === hash) sampleFound++
  }
  check(sampleFound === sampleSize, `GET /swap-transactions/:hash finds ${fmt(sampleFound)} of ${fmt(sampleSize)} sampled hashes`)

  // 4. Fuzzed requests.
  t = Date.now()
  const fuzz = await fuzzHttp(
    apiPort,
    {
      hashes: dataset.hashes.slice(0, 5_000),
      tokens: [...new Set((await tokenSample(base, dataset.startMs, dataset.endMs)) ?? [])],
      wallets: await walletSample(base, dataset.startMs, dataset.endMs),
      startMs: dataset.startMs,
      endMs: dataset.endMs,
    },
    FUZZ,
    SEED,
  )
  const fuzzMs = Date.now() - t
  const statuses = [...fuzz.byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${fmt(n)}`).join(', ')
  log(`fuzz: ${fmt(fuzz.requests)} requests (${fmt(fuzz.raw)} raw) in ${(fuzzMs / 1000).toFixed(1)} s; ${statuses}; closed without answer ${fuzz.closedWithoutAnswer}`)
  for (const line of fuzz.outsideEnvelope.slice(0, 10)) log(`  outside the envelope: ${line}`)
  for (const line of fuzz.serverErrors.slice(0, 10)) log(`  5xx: ${line}`)
  for (const line of fuzz.transportErrors.slice(0, 5)) log(`  transport: ${line}`)
  check(fuzz.outsideEnvelope.length === 0, `fuzz: ${fuzz.outsideEnvelope.length} responses outside the JSON envelope`)
  check(fuzz.serverErrors.length === 0, `fuzz: ${fuzz.serverErrors.length} 5xx responses`)

  // 5. Bad records beside valid ones, through the backfill command.
  t = Date.now()
  const bad = writeBadRecordFiles(work, BAD, SEED)
  let badAccepted = 0
  let badRejected = 0
  for (const file of bad.files) {
    const outcome = await runBackfillToEnd(['--type', file.type, '--format', file.format, '--wait', file.path], env)
    badAccepted += outcome.accepted
    badRejected += outcome.rejected
    check(
      outcome.code === 0 && outcome.accepted === file.validTotal && outcome.rejected === file.badTotal,
      `${file.path.slice(work.length + 1)}: accepted ${fmt(outcome.accepted)} of ${fmt(file.validTotal)} valid, rejected ${fmt(outcome.rejected)} of ${fmt(file.badTotal)} bad (exit ${outcome.code})`,
    )
    if (outcome.code !== 0) log(outcome.stdout + outcome.stderr.slice(-2_000))
  }
  const badMs = Date.now() - t

  // 6. Stop the service (it must drain and exit 0), then read the store directly.
  const stopCode = await service.stop()
  check(stopCode === 0, `the service stops on SIGTERM with exit 0 (got ${stopCode})`)
  const config = loadConfig(env)
  const clickhouse = createClickHouse(config.clickhouse)
  const tables = tablesFor(config.clickhouse.database)
  let store
  let badFigures
  try {
    store = await checkSwapStore(clickhouse, tables, dataset, dataset.hashes)
    badFigures = await checkBadRecords(clickhouse, tables, bad)
  } finally {
    await clickhouse.close()
  }
  check(store.rows === dataset.distinct && store.distinct === dataset.distinct, `ClickHouse: ${fmt(store.rows)} rows, ${fmt(store.distinct)} distinct hashes (want ${fmt(dataset.distinct)} each)`)
  check(store.missing === 0 && store.unexpected === 0, `ClickHouse hash set equals the file's: ${store.missing} missing ${store.missingSample.join(' ')}, ${store.unexpected} unexpected`)
  check(store.byWallet === dataset.distinct && store.unlocated === 0 && store.legs === 2 * dataset.distinct, `access paths: by wallet ${fmt(store.byWallet)}, live swaps without a location ${fmt(store.unlocated)}, legs ${fmt(store.legs)} (2 per swap)`)
  let badFound = 0
  for (const f of badFigures.files) {
    badFound += f.found
    const kinds = [...f.expectedByKind.keys()]
    const wrongKinds = kinds.filter((k) => f.byKind.get(k) !== f.expectedByKind.get(k))
    const unmarked = [...f.byKind.keys()].filter((k) => !f.expectedByKind.has(k))
    check(
      f.found === f.expected && f.withoutReason === 0 && wrongKinds.length === 0 && unmarked.length === 0,
      `${f.path.slice(work.length + 1)}: ${fmt(f.found)} of ${fmt(f.expected)} bad records dead-lettered, ${f.withoutReason} without a reason` +
        (wrongKinds.length > 0 ? `; kinds off: ${wrongKinds.map((k) => `${k} ${f.byKind.get(k) ?? 0}/${f.expectedByKind.get(k)}`).join(', ')}` : '') +
        (unmarked.length > 0 ? `; unexpected: ${unmarked.map((k) => `${k} ${f.byKind.get(k)}`).join(', ')}` : ''),
    )
  }
  check(badFigures.validStored === badFigures.validExpected && badFigures.tokensWithWrongId === 0, `valid neighbours stored: ${fmt(badFigures.validStored)} of ${fmt(badFigures.validExpected)}, ${badFigures.tokensWithWrongId} tokens with another id`)
  check(service.crashes.length === 0, `the service never exited by itself (${service.crashes.length} times)`)
  for (const crash of service.crashes.slice(0, 3)) log(`unexpected exit: ${crash}`)

  const badTotal = bad.files.reduce((s, f) => s + f.badTotal, 0)
  const kinds = new Set(bad.files.flatMap((f) => [...f.bad.keys()])).size
  figures.push(
    ['swaps in the file', `${fmt(dataset.lines)} lines: ${fmt(dataset.distinct)} distinct, ${fmt(dataset.exactDuplicates)} exact re-deliveries, ${fmt(dataset.retimedDuplicates)} re-deliveries at another time`],
    ['service killed (SIGKILL)', `${injector.kills} (${injector.startupKills} during start-up), restarted each time`],
    ['Redis restarts', `${injector.redisGracefulRestarts} graceful (AOF everysec kept), ${injector.redisDataLosses} losing its data`],
    ...runs.map((r, i): [string, string] => [
      `backfill run ${i + 1}`,
      `exit ${r.code}: accepted ${fmt(r.accepted)}, rejected ${fmt(r.rejected)}, not confirmed ${fmt(r.notConfirmed)}, failed jobs ${r.failedJobs} (${(r.ms / 1000).toFixed(0)} s)`,
    ]),
    ['stored (ClickHouse, FINAL)', `${fmt(store.rows)} rows, ${fmt(store.distinct)} distinct; missing ${store.missing}, unexpected ${store.unexpected}`],
    ['duplicates stored', `${fmt(store.rows - store.distinct)} (by wallet ${fmt(store.byWallet - dataset.distinct)}, without a location ${fmt(store.unlocated)}, legs ${fmt(store.legs - 2 * dataset.distinct)})`],
    ['API', `pagination.total ${fmt(apiTotal)}; ${fmt(sampleFound)} of ${fmt(sampleSize)} sampled hashes read back`],
    ['fuzzed requests', `${fmt(fuzz.requests)} (${fmt(fuzz.raw)} malformed HTTP): ${fuzz.outsideEnvelope.length} outside the envelope, ${fuzz.serverErrors.length} 5xx (${statuses}; GET /ready's 503 not ready: ${fuzz.notReady}); ${fuzz.transportErrors.length} without a response (connection closed) in ${(fuzzMs / 1000).toFixed(0)} s`],
    ['bad records', `${fmt(badTotal)} of ${kinds} kinds beside ${fmt(badFigures.validExpected)} valid: ${fmt(badFound)} dead-lettered with a reason, ${fmt(badFigures.validExpected - badFigures.validStored)} valid lost (command: accepted ${fmt(badAccepted)}, rejected ${fmt(badRejected)}; ${(badMs / 1000).toFixed(0)} s)`],
    ['time', `${((Date.now() - startedAt) / 1000).toFixed(0)} s in all, backfills under faults ${(backfillMs / 1000).toFixed(0)} s`],
  )
}

async function tokenSample(base: string, startMs: number, endMs: number): Promise<string[]> {
  const res = await fetch(`${base}/swap-transactions?start_time=${startMs}&end_time=${endMs}&limit=100`)
  const body = (await res.json()) as { result?: Array<{ token_sold: { contract_address: string }; token_bought: { contract_address: string } }> }
  return (body.result ?? []).flatMap((s) => [s.token_sold.contract_address, s.token_bought.contract_address])
}

async function walletSample(base: string, startMs: number, endMs: number): Promise<string[]> {
  const res = await fetch(`${base}/swap-transactions?start_time=${startMs}&end_time=${endMs}&limit=100&offset=5000`)
  const body = (await res.json()) as { result?: Array<{ wallet_address: string }> }
  return [...new Set((body.result ?? []).map((s) => s.wallet_address))]
}

let exitCode = 0
try {
  await main()
} catch (err) {
  failures.push(`the suite stopped: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
  log(failures[failures.length - 1]!)
  log(`service log:\n${service.recentLog()}`)
} finally {
  if (service.running) await service.kill()
  await redis.stopGracefully()
  if (failures.length === 0 || process.env.FAULT_KEEP !== '1') rmSync(work, { recursive: true, force: true })
}
const table = ['| Figure | Value |', '|---|---|', ...figures.map(([k, v]) => `| ${k} | ${v} |`)].join('\n')
process.stdout.write(`\nFault suite (seed ${SEED})\n\n${table}\n\n`)
for (const note of notes) process.stdout.write(`note: ${note}\n`)
if (failures.length > 0) {
  process.stdout.write(`FAILED (${failures.length}):\n${failures.map((f) => `- ${f}`).join('\n')}\n`)
  exitCode = 1
} else {
  process.stdout.write('passed: nothing lost, nothing doubled\n')
}
process.exit(exitCode)
