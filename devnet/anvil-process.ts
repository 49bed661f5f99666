import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** A local anvil chain started from the npm package `@foundry-rs/anvil-linux-amd64`. */
export interface AnvilChain {
  url: string
  port: number
  process: ChildProcess
  stop(): Promise<void>
}

export interface AnvilOptions {
  port: number
  /** Seconds between blocks; undefined: a block per transaction (automine). */
  blockTime?: number
  /** Unlocked, funded default accounts (anvil's --accounts). */
  accounts?: number
  /** The first block's time (seconds); later blocks follow the clock from there (with `loadState`: the first new block's). */
  timestamp?: number
  /** Start from a state anvil saved (`dumpState`): its accounts, blocks and logs. */
  loadState?: string
  /** Where anvil saves its state, historical states included, when it stops. */
  dumpState?: string
}

export function anvilBinary(): string {
  const require = createRequire(import.meta.url)
  return join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil')
}

export async function startAnvil(options: AnvilOptions): Promise<AnvilChain> {
  const args = ['--port', String(options.port), ...(process.env.ANVIL_LOG ? [] : ['--silent']), '--accounts', String(options.accounts ?? 10), '--balance', '1000000', '--gas-limit', '1000000000']
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime))
  if (options.timestamp !== undefined) args.push('--timestamp', String(options.timestamp))
  if (options.loadState !== undefined) args.push('--load-state', options.loadState)
  if (options.dumpState !== undefined) args.push('--dump-state', options.dumpState, '--preserve-historical-states')
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', process.env.ANVIL_LOG ? 'inherit' : 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const url = `http://127.0.0.1:${options.port}`
  const deadline = Date.now() + 15_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited (${child.exitCode}): ${stderr.trim()}`)
    if (await answers(url)) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`anvil did not answer at ${url} within 15 s: ${stderr.trim()}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    port: options.port,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/** A port the OS has just handed out. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
    return res.ok
  } catch {
    return false
  }
}
