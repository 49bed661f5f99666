import { closeSync, existsSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Address } from 'viem'
import { freePort, startAnvil } from './anvil-process.js'
import { devnetClient } from './chain-client.js'
import { deployDevnet, type DevnetDeployment } from './deploy-devnet.js'
import { setupTraders, type Trader } from './traders.js'

/**
 * Where the saved deployment's blocks are dated (2020-01-01): before any genesis a chain
 * loading it asks for, since block times only go forward.
 */
export const SAVED_DEPLOYMENT_TIME = 1_577_836_800

const WAIT_MS = 120_000

/** A deployment saved once: anvil's state file and what it holds. */
export interface SavedDevnet {
  statePath: string
  deployment: DevnetDeployment
  traders: Trader[]
}

interface SavedDescription {
  deployment: DevnetDeployment
  traders: Array<{ address: Address; strategy: Trader['strategy']; tokens: Address[] }>
}

/**
 * The deployment of a devnet with `wallets` wallets and `tokens` tokens, made once per
 * `dir`: the first caller (of any process) deploys on a throwaway anvil, which saves its
 * state when stopped (`<key>.state.json`, historical states included, so calls at old
 * blocks answer as on the chain that deployed), and writes the deployment and traders
 * beside it (`<key>.json`, written last: it says the state is complete). The others wait
 * for it, and every chain then starts from the state (anvil --load-state) instead of
 * deploying: the same addresses, balances, nonces, blocks and logs.
 */
export async function savedDevnet(dir: string, wallets: number, tokens: number): Promise<SavedDevnet> {
  const key = `devnet-${wallets}w-${tokens}t`
  const statePath = join(dir, `${key}.state.json`)
  const descriptionPath = join(dir, `${key}.json`)
  const lockPath = join(dir, `${key}.lock`)
  const deadline = Date.now() + WAIT_MS
  while (!existsSync(descriptionPath)) {
    const lock = takeLock(lockPath)
    if (lock !== undefined) {
      try {
        if (!existsSync(descriptionPath)) await deployAndSave(statePath, descriptionPath, wallets, tokens)
      } finally {
        closeSync(lock)
        unlinkSync(lockPath)
      }
      break
    }
    if (Date.now() > deadline) throw new Error(`no saved devnet at ${descriptionPath} after ${WAIT_MS} ms (lock ${lockPath})`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { statePath, ...described(JSON.parse(readFileSync(descriptionPath, 'utf8')) as SavedDescription) }
}

async function deployAndSave(statePath: string, descriptionPath: string, wallets: number, tokens: number): Promise<void> {
  const partial = `${statePath}.${process.pid}`
  const chain = await startAnvil({ port: await freePort(), accounts: wallets + 1, timestamp: SAVED_DEPLOYMENT_TIME, dumpState: partial })
  let description: SavedDescription
  try {
    const client = devnetClient(chain.url)
    const deployment = await deployDevnet(client, chain.url, tokens)
    const accounts = await client.getAddresses()
    const traders = await setupTraders(client, chain.url, deployment, accounts.slice(1, wallets + 1) as Address[])
    description = { deployment, traders: traders.map((t) => ({ address: t.address, strategy: t.strategy, tokens: t.tokens.map((k) => k.address) })) }
  } finally {
    await chain.stop() // anvil writes the state as it stops
  }
  if (!existsSync(partial)) throw new Error(`anvil saved no state at ${partial}`)
  renameSync(partial, statePath)
  writeFileSync(`${descriptionPath}.${process.pid}`, JSON.stringify(description))
  renameSync(`${descriptionPath}.${process.pid}`, descriptionPath)
}

/** The traders' tokens as the deployment's own objects, as setupTraders gives them. */
function described(saved: SavedDescription): { deployment: DevnetDeployment; traders: Trader[] } {
  const d = saved.deployment
  const byAddress = new Map(d.tokens.map((t) => [t.address, t]))
  const traders = saved.traders.map((t) => ({ address: t.address, strategy: t.strategy, tokens: t.tokens.map((a) => byAddress.get(a)!) }))
  return { deployment: d, traders }
}

/** The lock file, created (with this pid) if no live process holds it; undefined if one does. */
function takeLock(path: string): number | undefined {
  try {
    const fd = openSync(path, 'wx')
    writeSync(fd, String(process.pid))
    return fd
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  try {
    // Empty for a moment while its taker writes its pid.
    const holder = Number(readFileSync(path, 'utf8').trim())
    if (holder > 0 && !alive(holder)) unlinkSync(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  return undefined
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
