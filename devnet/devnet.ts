import type { Address } from 'viem'
import { startAnvil, type AnvilChain } from './anvil-process.js'
import { devnetClient, type DevnetClient } from './chain-client.js'
import { deployDevnet, type DevnetDeployment } from './deploy-devnet.js'
import { savedDevnet } from './saved-devnet.js'
import { prng, setupTraders, tradeRound, type Trader } from './traders.js'

export interface DevnetOptions {
  port: number
  wallets: number
  tokens: number
  /** Seconds per block while trading; 0: no trading loop (the caller mines). */
  blockTimeSeconds: number
  seed?: number
  /**
   * The chain's first block time (seconds), e.g. hours ago so that its trades fall in closed
   * candles. With `savedStateDir`: the time of the block mined after loading the deployment,
   * whose own blocks are older (devnet/saved-devnet.ts).
   */
  genesisTimestamp?: number
  /**
   * A directory where the deployment (wallets funded) is saved once per wallets and tokens
   * count and loaded from then on instead of deployed (devnet/saved-devnet.ts); the tests share one per run.
   */
  savedStateDir?: string
}

export interface Devnet {
  url: string
  chain: AnvilChain
  client: DevnetClient
  deployment: DevnetDeployment
  traders: Trader[]
  /** The environment that points the follower at this devnet. */
  followerEnv(): string
  stop(): Promise<void>
}

/** Starts anvil, deploys the market, funds the wallets and (with a block time) trades every block. */
export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  const saved = options.savedStateDir === undefined ? undefined : await savedDevnet(options.savedStateDir, options.wallets, options.tokens)
  const chain = await startAnvil({ port: options.port, accounts: options.wallets + 1, timestamp: options.genesisTimestamp, loadState: saved?.statePath })
  const client = devnetClient(chain.url)
  let timer: NodeJS.Timeout | undefined
  try {
    const { deployment, traders } = saved ?? (await deployAndFund(client, chain.url, options))
    if (saved) {
      // As a deployment leaves it: automine off (the caller mines), and the head dated at the
      // genesis (or now), not at the saved blocks' time: one empty block more than a deployment.
      await client.setAutomine(false)
      await client.mine({ blocks: 1 })
    }
    if (options.blockTimeSeconds > 0) {
      await client.setIntervalMining({ interval: options.blockTimeSeconds })
      const random = prng(options.seed ?? 1)
      let round = 0
      let busy = false
      timer = setInterval(() => {
        if (busy) return
        busy = true
        tradeRound(chain.url, deployment, traders, round++, random)
          .catch((err: unknown) => process.stderr.write(`devnet: trade round failed: ${String(err)}\n`))
          .finally(() => {
            busy = false
          })
      }, options.blockTimeSeconds * 1000)
    }
    return {
      url: chain.url,
      chain,
      client,
      deployment,
      traders,
      followerEnv: () => followerEnv(chain.url, deployment),
      async stop() {
        if (timer) clearInterval(timer)
        await chain.stop()
      },
    }
  } catch (err) {
    await chain.stop()
    throw err
  }
}

async function deployAndFund(client: DevnetClient, url: string, options: DevnetOptions): Promise<{ deployment: DevnetDeployment; traders: Trader[] }> {
  const deployment = await deployDevnet(client, url, options.tokens)
  const accounts = await client.getAddresses()
  const traders = await setupTraders(client, url, deployment, accounts.slice(1, options.wallets + 1) as Address[])
  return { deployment, traders }
}

/** The follower's settings for a deployment (see shared/platform/config.ts). */
export function followerEnvOf(url: string, d: DevnetDeployment): Record<string, string> {
  return {
    RPC_URL: url,
    FOLLOW_V2_FACTORIES: d.v2Factory,
    FOLLOW_V3_FACTORIES: d.v3Factory,
    FOLLOW_WETH: d.weth.address,
    FOLLOW_STABLECOINS: d.stablecoins.map((s) => s.address).join(','),
    FOLLOW_FROM_BLOCK: String(d.startBlock),
  }
}

function followerEnv(url: string, d: DevnetDeployment): string {
  return Object.entries(followerEnvOf(url, d))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')
}
