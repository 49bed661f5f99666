/**
 * `npm run devnet`: anvil from npm, the real Uniswap V2 and V3 contracts, WETH, USDC/USDT/DAI
 * and test tokens with liquidity, and wallets trading every block until Ctrl-C.
 *
 *   npm run devnet -- [--port 8545] [--wallets 200] [--tokens 24] [--block-time 1] [--out data/devnet.json]
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { parseArgs } from 'node:util'
import { startDevnet } from './devnet.js'

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8545' },
    wallets: { type: 'string', default: '200' },
    tokens: { type: 'string', default: '24' },
    'block-time': { type: 'string', default: '1' },
    out: { type: 'string', default: 'data/devnet.json' },
  },
})
const devnet = await startDevnet({
  port: Number(values.port),
  wallets: Number(values.wallets),
  tokens: Number(values.tokens),
  blockTimeSeconds: Number(values['block-time']),
})
mkdirSync(dirname(values.out), { recursive: true })
writeFileSync(values.out, JSON.stringify(devnet.deployment, null, 2))
const d = devnet.deployment
process.stdout.write(
  `devnet at ${devnet.url} (chain ${d.chainId}): ${d.pools.length} pools, ${devnet.traders.length} wallets trading; deployment in ${values.out}\n` +
    `follow it with:\n  ${devnet.followerEnv()} npm run follow\n`,
)
const stop = async () => {
  await devnet.stop()
  process.exit(0)
}
process.once('SIGINT', () => void stop())
process.once('SIGTERM', () => void stop())
