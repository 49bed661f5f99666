import type { Address, Hex } from 'viem'
import { inject } from 'vitest'
import { sendBatch } from '../../devnet/chain-client.js'
import type { DeployedToken } from '../../devnet/deploy-devnet.js'
import { followerEnvOf, startDevnet, type Devnet } from '../../devnet/devnet.js'
import { tradeTx, type TradeRoute } from '../../devnet/traders.js'
import { rawAmount } from '../../devnet/market.js'
import type { ChainFollower } from '../../follower/chain-follower.js'
import { startFollowerRole } from '../../follower/role.js'
import { loadConfig } from '../../shared/platform/config.js'
import { startIngestHarness, type IngestHarness } from './ingest-harness.js'
import { freePort } from './private-redis.js'
import { startTestApi, type TestApi } from './http.js'
import { createTestRuntime, type TestRuntime } from './runtime.js'

/** A devnet (anvil, real Uniswap contracts), the ingest workers, the API, and a follower on demand. */
export interface FollowerHarness {
  devnet: Devnet
  runtime: TestRuntime
  ingest: IngestHarness
  api: TestApi
  startFollower(env?: Record<string, string>): Promise<{ follower: ChainFollower; stop(): Promise<void> }>
  /** One trade by trader `i` (or by the wallet at that address), mined in its own block: its hash. */
  trade(i: number | Address, route: TradeRoute, path: DeployedToken[], usd: number): Promise<Hex>
  close(): Promise<void>
}

/** A port the OS has just handed out (not a random guess: test files run side by side). */
export { freePort } from './private-redis.js'

export async function startFollowerHarness(env: Record<string, string> = {}, wallets = 4, genesisTimestamp?: number, tokens = 3): Promise<FollowerHarness> {
  const settings = { FOLLOW_POLL_MS: '50', INGEST_FLUSH_MS: '20', ...env }
  // The chain and the runtime (database, migrations) start side by side; the follower's
  // settings, which need the chain's addresses, join the runtime's environment after.
  const [started, opened] = await Promise.allSettled([
    startDevnet({ port: await freePort(), wallets, tokens, blockTimeSeconds: 0, genesisTimestamp, savedStateDir: inject('devnetStateDir') }),
    createTestRuntime(settings),
  ])
  if (started.status === 'rejected' || opened.status === 'rejected') {
    if (started.status === 'fulfilled') await started.value.stop()
    if (opened.status === 'fulfilled') await opened.value.cleanup()
    throw started.status === 'rejected' ? started.reason : (opened as PromiseRejectedResult).reason
  }
  const devnet = started.value
  const runtimeEnv = { ...opened.value.env, ...followerEnvOf(devnet.url, devnet.deployment), ...settings }
  const runtime: TestRuntime = { ...opened.value, env: runtimeEnv, config: loadConfig(runtimeEnv) }
  const ingest = await startIngestHarness(runtime)
  const api = await startTestApi(runtime)
  const followers: Array<() => Promise<void>> = []
  return {
    devnet,
    runtime,
    ingest,
    api,
    async startFollower(extra = {}) {
      const config = { ...runtime.config, follower: { ...runtime.config.follower, ...parseFollowerOverrides(extra) } }
      const role = await startFollowerRole({ config, logger: runtime.logger })
      let stopped = false
      const stop = async () => {
        if (!stopped) await role.stop()
        stopped = true
      }
      followers.push(stop)
      return { follower: role.follower, stop }
    },
    async trade(i, route, path, usd) {
      const wallet = typeof i === 'number' ? devnet.traders[i]!.address : i
      const [hash] = await sendBatch(devnet.url, [tradeTx(devnet.deployment, wallet, route, path, rawAmount(usd, path[0]!))])
      await devnet.client.mine({ blocks: 1 })
      const receipt = await devnet.client.getTransactionReceipt({ hash: hash! })
      if (receipt.status !== 'success') throw new Error(`trade ${hash} reverted`)
      return hash!
    },
    async close() {
      for (const stop of followers) await stop()
      await api.close()
      await ingest.close()
      await runtime.cleanup()
      await devnet.stop()
    },
  }
}

function parseFollowerOverrides(extra: Record<string, string>) {
  const out: { finalityDepth?: number; rpcUrl?: string } = {}
  if (extra.FINALITY_DEPTH) out.finalityDepth = Number(extra.FINALITY_DEPTH)
  if (extra.RPC_URL) out.rpcUrl = extra.RPC_URL
  return out
}

/** Waits until the follower's checkpoint reaches `block`. */
export async function waitForCheckpoint(follower: ChainFollower, block: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (follower.checkpoint.number < block) {
    if (Date.now() > deadline) throw new Error(`follower at block ${follower.checkpoint.number}, not ${block}, after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** Waits until the follower has sent the price and holding records of `block` (final) and every block before it. */
export async function waitForFinalized(follower: ChainFollower, block: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (follower.finalizedThrough < block) {
    if (Date.now() > deadline) throw new Error(`follower final through block ${follower.finalizedThrough}, not ${block}, after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

/**
 * What a transaction did to its sender's ERC-20 balances, from the receipt's Transfer
 * events (not from the Swap events the follower decodes): token → net received.
 */
export async function netTransfersOf(devnet: Devnet, hash: Hex): Promise<Map<string, bigint>> {
  const receipt = await devnet.client.getTransactionReceipt({ hash })
  const wallet = receipt.from.toLowerCase()
  const net = new Map<string, bigint>()
  for (const log of receipt.logs) {
    if (log.topics[0] !== TRANSFER) continue
    const from = `0x${log.topics[1]!.slice(26)}`
    const to = `0x${log.topics[2]!.slice(26)}`
    const value = BigInt(log.data)
    const token = log.address.toLowerCase()
    if (from === wallet) net.set(token, (net.get(token) ?? 0n) - value)
    if (to === wallet) net.set(token, (net.get(token) ?? 0n) + value)
  }
  return net
}
