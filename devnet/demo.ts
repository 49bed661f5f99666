/**
 * `npm run demo`: a devnet (anvil, the real Uniswap contracts, wallets trading every second)
 * and the whole service following it on the embedded store, in one command. Each run starts
 * a fresh chain, so it starts a fresh demo store too (./data/demo, Redis prefix "demo").
 * Usage and options: devnet/demo-arguments.ts (`npm run demo -- --help`).
 */
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { readCommandLine } from '../shared/platform/command-line.js'
import { loadConfig } from '../shared/platform/config.js'
import { DEMO_OPTIONS, DEMO_SHORT_USAGE, DEMO_USAGE, demoArguments } from './demo-arguments.js'

const { args, config } = readCommandLine({ name: 'demo', usage: DEMO_USAGE, shortUsage: DEMO_SHORT_USAGE }, DEMO_OPTIONS, (values) => {
  const config = loadConfig()
  return { args: demoArguments(values, config.port), config }
})
const PREFIX = 'demo'
const DATA = './data/demo'

// Loaded once the arguments are read: --help and a mistake answer without loading the chain code.
const { createRedis, deleteKeysWithPrefix } = await import('../shared/platform/redis.js')
const { followerEnvOf, startDevnet } = await import('./devnet.js')
const redisUrl = config.redis.url
const redis = createRedis(redisUrl)
await deleteKeysWithPrefix(redis, PREFIX)
redis.disconnect()
rmSync(DATA, { recursive: true, force: true })

process.stdout.write('starting the devnet (anvil, Uniswap V2 and V3, tokens, wallets)...\n')
const devnet = await startDevnet({ port: args.rpcPort, wallets: args.wallets, tokens: 24, blockTimeSeconds: 1 })
process.stdout.write(`devnet at ${devnet.url}: ${devnet.deployment.pools.length} pools, ${devnet.traders.length} wallets trading every block\n`)

const service = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    ...followerEnvOf(devnet.url, devnet.deployment),
    // A devnet reorganizes only when told to: a short window keeps the demo's history step short.
    FINALITY_DEPTH: process.env.FINALITY_DEPTH ?? '8',
    PORT: String(args.port),
    SAMPLE_DATA: 'false',
    CLICKHOUSE_PATH: `${DATA}/clickhouse`,
    REDIS_PREFIX: PREFIX,
  },
})
process.stdout.write(
  `the service follows it at http://localhost:${args.port}, e.g.\n` +
    `  curl "http://localhost:${args.port}/swap-transactions?start_time=0&end_time=$(date +%s)000&limit=5"\n`,
)
const stop = async (code: number) => {
  await devnet.stop()
  process.exit(code)
}
service.on('exit', (code) => void stop(code ?? 1))
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    service.kill(signal)
  })
}
