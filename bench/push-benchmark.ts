/**
 * `npm run bench:push`: how fast the service tells, measured on the service as `npm start`
 * runs it (one process, embedded ClickHouse, a fresh store, its own Redis prefix), started
 * as a child process:
 * 1. Stream and webhooks under load: BENCH_CLIENTS (200) connections to GET /stream/swaps
 *    while a producer thread enqueues BENCH_RATE (10,000) swaps/s for BENCH_SECONDS (30):
 *    one client takes every swap, the others one wallet's each (an analyst follows wallets;
 *    200 firehoses would be 2,000,000 events/s). An alert rule (`wallet_trade`, a list of
 *    BENCH_ALERT_WALLETS wallets) posts to a webhook receiver in this process, which checks
 *    every signature. Latency of an event or a delivery: from its swap's job being
 *    acknowledged (the job's finishedOn, in Redis) to its arrival. Reference of the same run:
 *    the acknowledgement's own lag, from the job's enqueueing (timestamp) to finishedOn.
 * 2. Memory with a client that reads nothing: one connection that never reads, while the
 *    producer enqueues BENCH_IDLE_RATE (1,000) swaps/s for BENCH_IDLE_MINUTES (10); the
 *    service's heap and resident memory (GET /metrics) every 10 s. Reference: the first
 *    minute's figures.
 * Cleans up its store and keys.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, request, type IncomingMessage } from 'node:http'
import { connect, type Socket } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Worker as Thread } from 'node:worker_threads'
import { Job } from 'bullmq'
import { Webhook } from 'standardwebhooks'
import { loadConfig } from '../shared/platform/config.js'
import { QueueFactory } from '../shared/platform/queue-factory.js'
import { QueueNames } from '../shared/platform/queues.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import { createLogger } from '../shared/platform/logger.js'
import { syntheticSwap } from './ingest/synthetic-swaps.js'
import { closeServer, listen } from './load-test.js'
import { count, markdownTable, ms, percentile } from './report.js'
import type { ClientsReport } from './push/stream-clients-thread.js'
import type { PacedRun, SentJob } from './push/paced-producer-thread.js'

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 200)
const RATE = Number(process.env.BENCH_RATE ?? 10_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30)
const IDLE_RATE = Number(process.env.BENCH_IDLE_RATE ?? 1_000)
const IDLE_MINUTES = Number(process.env.BENCH_IDLE_MINUTES ?? 10)
const ALERT_WALLETS = Number(process.env.BENCH_ALERT_WALLETS ?? 10)
const JOB_SIZE = 1_000
/** The synthetic swaps' wallets: swap i is wallet i % 997's (bench/ingest/synthetic-swaps.ts). */
const WALLETS = 997

const tag = randomBytes(4).toString('hex')
const dataDir = mkdtempSync(join(tmpdir(), 'smartmoney-push-bench-'))
const port = 20_000 + Math.floor(Math.random() * 20_000)
const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`
const env: NodeJS.ProcessEnv = {
  ...process.env,
  CLICKHOUSE_PATH: dataDir,
  REDIS_PREFIX: `bench-push-${tag}`,
  PORT: String(port),
  SAMPLE_DATA: 'false',
  ADMIN_TOKEN: adminToken,
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
}
delete env.CLICKHOUSE_URL // the embedded store, as `npm start` runs by default
const config = loadConfig(env)
const base = `http://127.0.0.1:${port}`
const walletOf = (i: number) => syntheticSwap(i).wallet_address

const service = startService()
const queues = new QueueFactory(config, createLogger('warn'))
const ingestQueue = queues.queue(QueueNames.ingest)
const producer = tsThread('./push/paced-producer-thread.ts', { config: { redis: config.redis, ingest: config.ingest }, jobSize: JOB_SIZE })
const producerReady = message(producer, 'ready')
const receiver = await startReceiver()
let nextSwap = 0

try {
  await untilServing()
  await producerReady
  const secret = await createAlertRule(receiver.url)
  receiver.verifier = new Webhook(secret)

  // Warm-up: the first inserts, the feed's first reads, the stream's first clients.
  await produce({ rate: RATE, seconds: 2 })

  const clients = startClients()
  await message(clients, 'started')
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  const loadStart = loadavg()[0]!
  const deliveredBefore = receiver.deliveries.length
  const first = nextSwap
  const jobs = await produce({ rate: RATE, seconds: SECONDS })
  // Let the last events and deliveries arrive.
  await new Promise((resolve) => setTimeout(resolve, 5_000))
  const report = await ask<ClientsReport>(clients, 'report')
  const acks = await acknowledgements(jobs)
  const ackOf = (index: number) => acks.get(Math.floor((index - first) / JOB_SIZE))
  const eventLatencies: number[] = []
  for (let k = 0; k < report.arrivals.length; k += 2) {
    const ack = ackOf(report.arrivals[k]!)
    if (ack !== undefined) eventLatencies.push(report.arrivals[k + 1]! - ack.finishedOn)
  }
  const deliveryLatencies: number[] = []
  for (const d of receiver.deliveries.slice(deliveredBefore)) {
    const times = d.swaps.map((i) => ackOf(i)?.finishedOn).filter((t): t is number => t !== undefined)
    if (times.length > 0) deliveryLatencies.push(d.at - Math.max(...times))
  }
  const expectedEvents = expectedStreamEvents(first, nextSwap)
  const ackLags = [...acks.values()].map((a) => a.finishedOn - a.enqueuedAt)
  const load = `${loadStart.toFixed(1)}–${loadavg()[0]!.toFixed(1)}`
  console.log(`\nStream and webhooks under load: ${count(RATE)} swaps/s for ${SECONDS} s (${count(nextSwap - first)} swaps, jobs of ${count(JOB_SIZE)}), ${report.connected} of ${CLIENTS} clients connected; ${cpus()[0]?.model ?? 'CPU'}, ${cpus().length} cores, load ${load}; ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`)
  console.log(
    markdownTable(
      ['measure', 'n', 'p50 ms', 'p99 ms', 'max ms', 'target'],
      [
        ['acknowledgement → SSE event', count(eventLatencies.length), ms(percentile(eventLatencies, 0.5)), ms(percentile(eventLatencies, 0.99)), ms(highest(eventLatencies)), 'p99 ≤ 500'],
        ['acknowledgement → webhook delivered', count(deliveryLatencies.length), ms(percentile(deliveryLatencies, 0.5)), ms(percentile(deliveryLatencies, 0.99)), ms(highest(deliveryLatencies)), 'p99 ≤ 2,000'],
        ['reference: enqueued → acknowledged', count(ackLags.length), ms(percentile(ackLags, 0.5)), ms(percentile(ackLags, 0.99)), ms(highest(ackLags)), ''],
      ],
      ['left', 'right', 'right', 'right', 'right', 'left'],
    ),
  )
  console.log(`events: ${count(eventLatencies.length)} swap events of ${count(expectedEvents)} expected; ${receiver.rejected} deliveries with a bad signature; ${report.ended.length} connections ended${report.ended.length > 0 ? ` (${report.ended.slice(0, 3).join('; ')})` : ''}`)
  await ask(clients, 'close')
  await clients.terminate()

  await idleClientMemory()
} finally {
  producer.postMessage('stop')
  await message(producer, 'stopped').catch(() => undefined)
  await producer.terminate()
  await closeServer(receiver.server)
  await stopService()
  await queues.close()
  const redis = createRedis(config.redis.url)
  await deleteKeysWithPrefix(redis, config.redis.prefix)
  redis.disconnect()
  rmSync(dataDir, { recursive: true, force: true })
}

/** Part 2: one client that reads nothing, the service's memory sampled while swaps keep coming. */
async function idleClientMemory(): Promise<void> {
  const idle = idleClient()
  const samples: { at: number; heap: number; rss: number }[] = []
  const started = Date.now()
  const sampling = setInterval(() => void memory().then((m) => samples.push({ at: Date.now() - started, ...m })), 10_000)
  await produce({ rate: IDLE_RATE, seconds: IDLE_MINUTES * 60 })
  clearInterval(sampling)
  const told = await idle.closedBecause()
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
  const minute = (from: number, to: number) => samples.filter((s) => s.at >= from && s.at < to)
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)
  const firstMinute = minute(0, 60_000)
  const lastMinute = minute((IDLE_MINUTES - 1) * 60_000, Infinity)
  console.log(`\nMemory with one client that reads nothing: ${count(IDLE_RATE)} swaps/s for ${IDLE_MINUTES} min, ${samples.length} samples`)
  console.log(
    markdownTable(
      ['service memory', 'first minute (reference), MB', 'last minute, MB', 'highest, MB'],
      [
        ['JS heap used', mb(mean(firstMinute.map((s) => s.heap))), mb(mean(lastMinute.map((s) => s.heap))), mb(highest(samples.map((s) => s.heap)))],
        ['resident (JS and embedded ClickHouse)', mb(mean(firstMinute.map((s) => s.rss))), mb(mean(lastMinute.map((s) => s.rss))), mb(highest(samples.map((s) => s.rss)))],
      ],
      ['left', 'right', 'right', 'right'],
    ),
  )
  console.log(`the idle client: ${told}`)
}

/** Enqueues the next synthetic swaps at `rate` for `seconds`; resolves with the jobs sent. */
async function produce(run: Omit<PacedRun, 'first'>): Promise<SentJob[]> {
  const first = nextSwap
  nextSwap += Math.round((run.rate * run.seconds) / JOB_SIZE) * JOB_SIZE
  return ask<SentJob[]>(producer, { ...run, first })
}

/** Each job's enqueueing and acknowledgement (ms), by its position in `jobs`. */
async function acknowledgements(jobs: readonly SentJob[]): Promise<Map<number, { enqueuedAt: number; finishedOn: number }>> {
  const acks = new Map<number, { enqueuedAt: number; finishedOn: number }>()
  for (let k = 0; k < jobs.length; k++) {
    const job = await Job.fromId(ingestQueue, jobs[k]!.id)
    if (job?.finishedOn !== undefined) acks.set(k, { enqueuedAt: job.timestamp, finishedOn: job.finishedOn })
  }
  return acks
}

/** Swap events the clients should get for swaps [from, to): every one once, and each followed wallet's again. */
function expectedStreamEvents(from: number, to: number): number {
  const followed = new Set(Array.from({ length: CLIENTS - 1 }, (_, c) => c % WALLETS))
  let n = to - from
  for (let i = from; i < to; i++) if (followed.has(i % WALLETS)) n += Math.floor((CLIENTS - 1 - (i % WALLETS)) / WALLETS) + 1
  return n
}

function startClients(): Thread {
  const urls = [`${base}/stream/swaps`, ...Array.from({ length: CLIENTS - 1 }, (_, c) => `${base}/stream/swaps?address=${walletOf(c % WALLETS)}`)]
  return tsThread('./push/stream-clients-thread.ts', { urls })
}

/** A connection to the stream that sends its request and never reads; at the end, what the server last sent it. */
function idleClient(): { closedBecause(): Promise<string> } {
  const socket: Socket = connect(port, '127.0.0.1')
  // The service may reset a connection that never takes its last bytes: that is how it ends.
  let reset: string | null = null
  socket.on('error', (err: NodeJS.ErrnoException) => (reset = err.code ?? err.message))
  socket.write(`GET /stream/swaps HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`)
  socket.pause()
  return {
    closedBecause: () =>
      new Promise((resolve) => {
        let tail = ''
        let closed = false
        socket.on('data', (chunk: Buffer) => {
          tail = (tail + chunk.toString('utf8')).slice(-2_000)
        })
        socket.on('close', () => {
          closed = true
          const final = /event: closed\ndata: ([^\n]*)/.exec(tail)
          resolve(final ? `closed by the service: ${final[1]}` : reset !== null ? `reset by the service (${reset})` : 'closed without a closing event')
        })
        socket.resume()
        setTimeout(() => {
          if (!closed) resolve('still open: the service never closed it')
          socket.destroy()
        }, 5_000)
      }),
  }
}

async function memory(): Promise<{ heap: number; rss: number }> {
  const text = await get(`${base}/metrics`)
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN)
  return { heap: metric('nodejs_heap_size_used_bytes'), rss: metric('process_resident_memory_bytes') }
}

/** A webhook receiver: checks each delivery's signature, keeps when it arrived and the synthetic swaps it names. */
async function startReceiver() {
  const state = {
    deliveries: [] as { at: number; id: string; swaps: number[] }[],
    rejected: 0,
    verifier: undefined as Webhook | undefined,
    server: createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const at = Date.now()
        const body = Buffer.concat(chunks).toString('utf8')
        try {
          state.verifier!.verify(body, req.headers as Record<string, string>)
        } catch {
          state.rejected++
          res.writeHead(400).end()
          return
        }
        const swaps = [...new Set([...body.matchAll(/0x([0-9a-f]{16})(?:9f3a){12}/g)].map((m) => parseInt(m[1]!, 16)))]
        state.deliveries.push({ at, id: String(req.headers['webhook-id']), swaps })
        res.writeHead(204).end()
      })
    }),
    url: '',
  }
  state.url = `http://127.0.0.1:${await listen(state.server)}/webhook`
  return state
}

/** The rule every measured delivery comes from; returns its webhook's signing secret. */
async function createAlertRule(url: string): Promise<string> {
  const wallets = Array.from({ length: ALERT_WALLETS }, (_, w) => walletOf(w))
  const created = JSON.parse(
    await send('POST', `${base}/admin/alerts`, { name: 'bench: listed wallets trade', kind: 'wallet_trade', wallets, min_value_usd: 0, webhooks: [{ url }] }),
  )
  return created.result.webhooks[0].secret
}

function startService(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], { env, stdio: ['ignore', 'inherit', 'inherit'], cwd: new URL('..', import.meta.url).pathname })
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') console.error(`the service exited: ${code ?? signal}`)
  })
  return child
}

async function stopService(): Promise<void> {
  if (service.exitCode !== null) return
  const exited = new Promise((resolve) => service.once('exit', resolve))
  service.kill('SIGTERM')
  await exited
}

async function untilServing(): Promise<void> {
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    if (await get(`${base}/ready`).then(() => true, () => false)) return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error('the service did not become ready within 120 s')
}

function get(url: string): Promise<string> {
  return send('GET', url)
}

function send(method: string, url: string, body?: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${adminToken}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const req = request(url, { method, headers }, (res: IncomingMessage) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        if ((res.statusCode ?? 500) >= 300) reject(new Error(`${method} ${url}: HTTP ${res.statusCode} ${text}`))
        else resolve(text)
      })
    })
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

/** The largest value (NaN for none); a spread of hundreds of thousands of arguments overflows the stack. */
function highest(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => (b > a ? b : a), -Infinity)
}

/** A thread running a TypeScript module of bench/: a thread cannot load TypeScript by itself, so it registers tsx first. */
function tsThread(path: string, workerData: unknown): Thread {
  const url = new URL(path, import.meta.url).href
  return new Thread(`import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(url)}, ${JSON.stringify(import.meta.url)}))`, { eval: true, workerData })
}

function message(thread: Thread, expected: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown) => {
      if (m !== expected) return
      thread.off('message', onMessage)
      resolve()
    }
    thread.on('message', onMessage)
    thread.once('error', reject)
  })
}

function ask<T>(thread: Thread, question: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    thread.once('message', (m: T) => resolve(m))
    thread.once('error', reject)
    thread.postMessage(question)
  })
}
