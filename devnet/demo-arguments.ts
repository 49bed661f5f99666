import { integerOption } from '../shared/platform/command-line.js'

export const DEMO_USAGE = `Usage: npm run demo -- [--port PORT] [--rpc-port 8545] [--wallets 100]

Starts a devnet (anvil, the real Uniswap V2 and V3 contracts, wallets trading every second)
and the whole service following it on the embedded store, in one command. Each run starts a
fresh chain, so it starts a fresh demo store too: ./data/demo and the Redis prefix "demo"
are emptied first. Stop it with Ctrl-C.

Options:
  --port PORT        the service's HTTP port (default: PORT from the environment, else 3000)
  --rpc-port PORT    anvil's RPC port (default 8545)
  --wallets N        trading wallets (default 100)
  --help, -h         show this help

Exit codes:
  0  stopped with Ctrl-C (SIGINT) or SIGTERM
  1  the devnet or the service failed (the service's own exit code when it stopped)
  2  bad arguments or settings (nothing was started)`

export const DEMO_SHORT_USAGE = 'usage: npm run demo -- [--port PORT] [--rpc-port 8545] [--wallets 100]   (--help for more)'

export const DEMO_OPTIONS = {
  port: { type: 'string' },
  'rpc-port': { type: 'string', default: '8545' },
  wallets: { type: 'string', default: '100' },
} as const

export interface DemoArguments {
  port: number
  rpcPort: number
  wallets: number
}

/** --port wins over the configured port (PORT). */
export function demoArguments(values: { port: string | undefined; 'rpc-port': string; wallets: string }, configuredPort: number): DemoArguments {
  return {
    port: values.port === undefined ? configuredPort : integerOption('port', values.port, 1, 65535),
    rpcPort: integerOption('rpc-port', values['rpc-port'], 1, 65535),
    wallets: integerOption('wallets', values.wallets, 1, 100_000),
  }
}
