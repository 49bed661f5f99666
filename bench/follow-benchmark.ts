/**
 * `npm run bench:follow -- [--swaps 100000] [--wallets 100] [--live-seconds 30]`
 *
 * On a devnet (anvil, the real Uniswap contracts) with `--swaps` trades mined in history:
 * 1. the raw eth_getLogs rate of the range (plain JSON-RPC, no decoding), the reference;
 * 2. the follower's history rate over the same range (decode, net, price, queue, stored and
 *    acknowledged by the ingest workers on the embedded store): blocks/s and swaps/s;
 * 3. live freshness: 1 s blocks with trades in each; from the moment a block is seen mined
 *    to its swaps served by GET /swap-transactions/:hash, p50/p99.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import type { Hex } from 'viem'
import { startApiServer } from '../api/api-server.js'
import { rpcBatch } from '../devnet/chain-client.js'
import { followerEnvOf, startDevnet } from '../devnet/devnet.js'
import { prng, tradeRound } from '../devnet/traders.js'
import { FOLLOWED_TOPICS } from '../follower/chain-logs.js'
import { startFollowerRole } from '../follower/role.js'
import { startIngestRole } from '../ingest/role.js'
import { openRuntime } from '../shared/bootstrap.js'
import { loadConfig } from '../shared/platform/config.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'

const { values } = parseArgs({
  options: {
    swaps: { type: 'string', default: '100000' },
    wallets: { type: 'string', default: '100' },
    'live-seconds': { type: 'string', default: '30' },
    port: { type: 'string', default: '8599' },
  },
})
const targetSwaps = Number(values.swaps)
const out = (line: string) => process.stdout.write(`${line}\n`)

const devnet = await startDevnet({ port: Number(values.port), wallets: Number(values.wallets), tokens: 24, blockTimeSeconds: 0 })
const d = devnet.deployment
const random = prng(42)
let sent = 0
let round = 0
const genStart = Date.now()
while (sent < targetSwaps) {
  const hashes = await tradeRound(devnet.url, d, devnet.traders, round++, random, 1)
  await devnet.client.mine({ blocks: 1 })
  sent += hashes.length
}
const head = Number(await devnet.client.getBlockNumber())
out(`devnet: ${sent} trades in ${round} blocks (${d.startBlock}..${head}), generated in ${((Date.now() - genStart) / 1000).toFixed(1)} s`)

// 1. The reference: raw eth_getLogs of the same range, same topics, 2,000 blocks a call.
const rawStart = performance.now()
let rawLogs = 0
for (let from = d.startBlock; from <= head; from += 2_000) {
  const [logs] = await rpcBatch<unknown[]>(devnet.url, [
    { method: 'eth_getLogs', params: [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${Math.min(head, from + 1_999).toString(16)}`, topics: [FOLLOWED_TOPICS] }] },
  ])
  rawLogs += logs!.length
}
const rawSeconds = (performance.now() - rawStart) / 1000
const blocks = head - d.startBlock + 1

// 2. The follower's history over the same range, into the embedded store.
const dataDir = mkdtempSync(join(tmpdir(), 'smartmoney-follow-bench-'))
const tag = randomBytes(4).toString('hex')
const config = loadConfig({
  ...process.env,
  ...followerEnvOf(devnet.url, d),
  CLICKHOUSE_URL: undefined,
  CLICKHOUSE_PATH: dataDir,
  CLICKHOUSE_DATABASE: `follow_bench_${tag}`,
  REDIS_PREFIX: `follow-bench-${tag}`,
  SAMPLE_DATA: 'false',
  FINALITY_DEPTH: '2',
  FOLLOW_POLL_MS: '50',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
})
const runtime = await openRuntime(config, 'bench')
const ingest = await startIngestRole(runtime)
const api = await startApiServer(runtime, 0, '127.0.0.1')
const histStart = performance.now()
const role = await startFollowerRole(runtime)
const follower = role.follower
while (follower.checkpoint.number < head) await new Promise((r) => setTimeout(r, 20))
const histSeconds = (performance.now() - histStart) / 1000
const stats = follower.stats.snapshot()
out(`raw eth_getLogs (reference): ${blocks} blocks, ${rawLogs} logs in ${rawSeconds.toFixed(2)} s = ${(blocks / rawSeconds).toFixed(0)} blocks/s, ${(rawLogs / rawSeconds).toFixed(0)} logs/s`)
out(
  `follower history (stored and acknowledged): ${blocks} blocks, ${stats.swaps} swaps (${stats.swapLogs} Swap logs, ${stats.unnetted} not one swap) in ${histSeconds.toFixed(2)} s = ` +
    `${(blocks / histSeconds).toFixed(0)} blocks/s, ${(stats.swaps / histSeconds).toFixed(0)} swaps/s; ${(rawSeconds / histSeconds).toFixed(2)} of the raw rate`,
)

// 3. Live freshness: a block a second, trades in each.
await devnet.client.setIntervalMining({ interval: 1 })
const liveSeconds = Number(values['live-seconds'])
const latencies: number[] = []
const pending = new Map<string, number>()
let seenHead = Number(await devnet.client.getBlockNumber())
const liveEnd = Date.now() + liveSeconds * 1000
let lastRound = 0
while (Date.now() < liveEnd || pending.size > 0) {
  if (Date.now() < liveEnd && Date.now() - lastRound > 1000) {
    lastRound = Date.now()
    await tradeRound(devnet.url, d, devnet.traders, round++, random, 0.2)
  }
  const now = Number(await devnet.client.getBlockNumber())
  if (now > seenHead) {
    const minedAt = Date.now()
    for (let n = seenHead + 1; n <= now; n++) {
      const block = await devnet.client.getBlock({ blockNumber: BigInt(n) })
      for (const tx of block.transactions as Hex[]) pending.set(tx, minedAt)
    }
    seenHead = now
  }
  await Promise.all(
    [...pending].map(async ([hash, minedAt]) => {
      const res = await fetch(`http://127.0.0.1:${api.port}/swap-transactions/${hash}`)
      await res.arrayBuffer()
      if (res.status === 200) {
        latencies.push(Date.now() - minedAt)
        pending.delete(hash)
      } else if (Date.now() - minedAt > 30_000) pending.delete(hash)
    }),
  )
  await new Promise((r) => setTimeout(r, 20))
}
latencies.sort((a, b) => a - b)
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN
out(`live freshness (block seen mined → served by GET /swap-transactions/:hash): ${latencies.length} swaps, p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${latencies[latencies.length - 1]} ms`)

await role.stop()
await api.close()
await ingest.stop()
await runtime.clickhouse.command({ query: `DROP DATABASE IF EXISTS ${runtime.tables.database}` })
await runtime.clickhouse.close()
const redis = createRedis(config.redis.url)
await deleteKeysWithPrefix(redis, config.redis.prefix)
redis.disconnect()
rmSync(dataDir, { recursive: true, force: true })
await devnet.stop()
process.exit(0)
