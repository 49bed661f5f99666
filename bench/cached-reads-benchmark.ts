/**
 * `npm run bench:cached-reads`: the cached reads' throughput target on its own, in under a minute.
 * GET /technical-analysis (a cached result: one Redis read) and GET /tokens/:contract_address
 * (token metadata in memory) must serve at least half the requests/s of a hello-world
 * Express server measured in the same run by the same client.
 *
 * Starts the real API (the test helpers: a fresh embedded store, its own Redis prefix, the
 * documented defaults but LOG_LEVEL=BENCH_LOG_LEVEL, default info as in production), seeds
 * one token and its cached technical analysis, and starts the hello-world reference in this
 * process (bench/load-test.ts, as bench:api does). Then autocannon (BENCH_CONNECTIONS, default
 * 50; from a worker thread) loads the reference and both routes in turn, BENCH_ROUNDS rounds
 * (default 3) of BENCH_ROUND_S seconds each (default 2): on a machine others share, the load
 * changes from second to second, and each round's ratio compares runs seconds apart. Prints
 * req/s over all rounds, the ratio to hello-world's, each round's ratios and the load
 * average. Cleans up its database and keys.
 */
import { loadavg } from 'node:os'
import { closeServer, cannon, startHelloWorld } from './load-test.js'
import { count, markdownTable } from './report.js'
import { createRedis } from '../shared/platform/redis.js'
import { writeTechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import { addressFor, insertTokens, sampleTechnicalAnalysis } from '../test/support/factories.js'
import { startTestApi } from '../test/support/http.js'
import { createTestRuntime } from '../test/support/runtime.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const ROUND_S = Number(process.env.BENCH_ROUND_S ?? 2)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const TARGET_RATIO = 0.5

interface Target {
  name: string
  url: string
  /** Requests/s of each round. */
  rounds: number[]
  failures: number
}

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length

const runtime = await createTestRuntime({
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  REDIS_PREFIX: `cached-reads-bench-${process.pid}`,
})
const redis = createRedis(runtime.config.redis.url)
const hello = await startHelloWorld()
let api: Awaited<ReturnType<typeof startTestApi>> | undefined
try {
  const token = addressFor('cached-reads-bench-token')
  await insertTokens(runtime, [{ contract_address: token, name: 'Bench Token', symbol: 'BENCH', decimals: 18 }])
  await writeTechnicalAnalysis(redis, runtime.config.redis.prefix, sampleTechnicalAnalysis({ contractAddress: token, name: 'Bench Token', symbol: 'BENCH' }))
  api = await startTestApi(runtime)
  const target = (name: string, url: string): Target => ({ name, url, rounds: [], failures: 0 })
  const reference = target('hello-world Express (reference)', hello.url)
  const routes = [
    target('GET /technical-analysis?contract_address= (cached)', `${api.baseUrl}/technical-analysis?contract_address=${token}`),
    target('GET /tokens/:contract_address', `${api.baseUrl}/tokens/${token}`),
  ]
  const targets = [reference, ...routes]
  for (const { url } of targets) {
    const res = await fetch(url)
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${(await res.text()).slice(0, 300)}`)
    await res.arrayBuffer()
    // A short warm-up: the first requests of a route compile its code paths.
    await cannon(url, { connections: CONNECTIONS, durationS: 1 })
  }

  console.log(`autocannon: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${ROUND_S} s per target (load average ${loadAverage()})`)
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) {
      const result = await cannon(t.url, { connections: CONNECTIONS, durationS: ROUND_S })
      t.rounds.push(result.rps)
      t.failures += result.non2xx + result.errors
    }
  }

  const helloRps = mean(reference.rounds)
  const rows = routes.map((t) => [
    t.name,
    count(mean(t.rounds)),
    `${(mean(t.rounds) / helloRps).toFixed(2)}x`,
    t.rounds.map((rps, i) => (rps / reference.rounds[i]!).toFixed(2)).join(' / '),
    t.failures === 0 ? 'ok' : `${t.failures} failed`,
  ])
  rows.push([reference.name, count(helloRps), '1.00x', reference.rounds.map(count).join(' / ') + ' req/s', ''])
  console.log(`\n${markdownTable(['route', 'req/s', 'vs hello-world', 'each round', 'responses'], rows, ['left', 'right', 'right', 'right', 'left'])}\n`)
  console.log(`load average at the end: ${loadAverage()}`)
  for (const t of routes) {
    const ok = mean(t.rounds) >= TARGET_RATIO * helloRps && t.failures === 0
    console.log(`- [${ok ? 'x' : ' '}] ${t.name} >= ${TARGET_RATIO} x hello-world (${count(TARGET_RATIO * helloRps)} req/s)`)
  }
} finally {
  await api?.close()
  await closeServer(hello.server)
  redis.disconnect()
  await runtime.cleanup()
}
