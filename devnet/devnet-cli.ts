/**
 * `npm run devnet`: anvil from npm, the real Uniswap V2 and V3 contracts, WETH, USDC/USDT/DAI
 * and test tokens with liquidity, and wallets trading every block until Ctrl-C.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { integerOption, readCommandLine } from '../shared/platform/command-line.js'

const USAGE = `Usage: npm run devnet -- [--port 8545] [--wallets 200] [--tokens 24] [--block-time 1] [--out data/devnet.json]

Starts anvil (from npm) with the real Uniswap V2 and V3 contracts, WETH, USDC/USDT/DAI and
test tokens with liquidity, and wallets trading every block until Ctrl-C. Writes the
deployment (addresses, pools, wallets) to --out and prints how to follow the chain.

Options:
  --port PORT           anvil's RPC port (default 8545)
  --wallets N           trading wallets (default 200)
  --tokens N            test tokens (default 24)
  --block-time SECONDS  seconds between blocks; 0 mines only on demand, with no trading (default 1)
  --out FILE            where the deployment is written (default data/devnet.json)
  --help, -h            show this help

Exit codes:
  0  stopped with Ctrl-C (SIGINT) or SIGTERM
  1  the devnet could not start (e.g. the port is taken)
  2  bad arguments (nothing was started)`

const SHORT_USAGE = 'usage: npm run devnet -- [--port 8545] [--wallets 200] [--tokens 24] [--block-time 1] [--out FILE]   (--help for more)'

const args = readCommandLine(
  { name: 'devnet', usage: USAGE, shortUsage: SHORT_USAGE },
  {
    port: { type: 'string', default: '8545' },
    wallets: { type: 'string', default: '200' },
    tokens: { type: 'string', default: '24' },
    'block-time': { type: 'string', default: '1' },
    out: { type: 'string', default: 'data/devnet.json' },
  },
  (values) => ({
    port: integerOption('port', values.port, 1, 65535),
    wallets: integerOption('wallets', values.wallets, 1, 100_000),
    tokens: integerOption('tokens', values.tokens, 1, 1000),
    blockTimeSeconds: integerOption('block-time', values['block-time'], 0, 86_400),
    out: values.out,
  }),
)
// Loaded once the arguments are read: --help and a mistake answer without loading the chain code.
const { startDevnet } = await import('./devnet.js')
const devnet = await startDevnet({
  port: args.port,
  wallets: args.wallets,
  tokens: args.tokens,
  blockTimeSeconds: args.blockTimeSeconds,
})
mkdirSync(dirname(args.out), { recursive: true })
writeFileSync(args.out, JSON.stringify(devnet.deployment, null, 2))
const d = devnet.deployment
process.stdout.write(
  `devnet at ${devnet.url} (chain ${d.chainId}): ${d.pools.length} pools, ${devnet.traders.length} wallets trading; deployment in ${args.out}\n` +
    `follow it with:\n  ${devnet.followerEnv()} npm run follow\n`,
)
const stop = async () => {
  await devnet.stop()
  process.exit(0)
}
process.once('SIGINT', () => void stop())
process.once('SIGTERM', () => void stop())
