import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'
import type { Tables } from '../../shared/storage/tables.js'

/** Helpers of the backfill tests: swap records with uint256 amounts, CSV rows, the command as a child process. */

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))

export const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'
export const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'

export interface SwapInput {
  hash: string
  block_number: number
  timestamp: number
  wallet_address: string
  token_sold: { contract_address: string; amount_raw: string }
  token_bought: { contract_address: string; amount_raw: string }
  value_usd?: number
  dex?: string
}

function hex(seed: string, digits: number): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, digits)
}

/** Swap `i` of a family `tag`: amounts above 2^53 (the sold one near 2^200) and upper-case hex in. */
export function makeSwap(tag: string, i: number): SwapInput {
  return {
    hash: `0x${hex(`${tag}-${i}`, 64).toUpperCase()}`,
    block_number: 19_000_000 + i,
    timestamp: 1_700_000_000_000 + i * 1_000,
    wallet_address: `0x${hex(`wallet-${i % 40}`, 40)}`,
    token_sold: { contract_address: WETH.toUpperCase().replace('0X', '0x'), amount_raw: (2n ** 200n + BigInt(i)).toString() },
    token_bought: { contract_address: USDC, amount_raw: (9_007_199_254_740_993n + BigInt(i)).toString() },
    ...(i % 3 === 0 ? {} : { value_usd: i + 0.25 }),
    ...(i % 5 === 0 ? {} : { dex: 'uniswap_v3' }),
  }
}

export const SWAP_CSV_HEADER =
  'hash,block_number,timestamp,wallet_address,token_sold.contract_address,token_sold.amount_raw,token_bought.contract_address,token_bought.amount_raw,value_usd,dex'

export function swapCsvRow(s: SwapInput): string {
  return [
    s.hash,
    s.block_number,
    s.timestamp,
    s.wallet_address,
    s.token_sold.contract_address,
    s.token_sold.amount_raw,
    s.token_bought.contract_address,
    s.token_bought.amount_raw,
    s.value_usd ?? '',
    s.dex ?? '',
  ].join(',')
}

/** How a swap reads back from ClickHouse (normalized: lower case, amounts as digit strings). */
export function storedSwap(s: SwapInput) {
  return {
    hash: s.hash.toLowerCase(),
    block_number: String(s.block_number),
    ts: String(s.timestamp),
    wallet_address: s.wallet_address.toLowerCase(),
    sold: s.token_sold.contract_address.toLowerCase(),
    sold_amount: s.token_sold.amount_raw,
    bought: s.token_bought.contract_address.toLowerCase(),
    bought_amount: s.token_bought.amount_raw,
    value_usd: s.value_usd ?? null,
    dex: s.dex ?? null,
  }
}

export async function readSwaps(clickhouse: ClickHouseClient, tables: Tables, hashes: string[]) {
  const rs = await clickhouse.query({
    query: `SELECT hash, block_number, toUnixTimestamp64Milli(timestamp) AS ts, wallet_address,
        token_sold_address AS sold, toString(token_sold_amount) AS sold_amount,
        token_bought_address AS bought, toString(token_bought_amount) AS bought_amount, value_usd, dex
      FROM ${tables.swaps} FINAL WHERE hash IN {hashes:Array(String)} ORDER BY hash`,
    query_params: { hashes: hashes.map((h) => h.toLowerCase()) },
    format: 'JSONEachRow',
  })
  return rs.json<ReturnType<typeof storedSwap>>()
}

export interface CommandResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/**
 * Starts a TypeScript entry point as `node --import tsx`, one process (the `tsx` command
 * would run the script in a second process, out of reach of a SIGKILL sent to it).
 */
export function spawnTsx(script: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: 'pipe',
  })
}

/** Runs a TypeScript entry point to its end, with the given environment additions. */
export function runTsx(script: string, args: string[], env: Record<string, string>): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawnTsx(script, args, env)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

export function runBackfill(args: string[], env: Record<string, string>): Promise<CommandResult> {
  return runTsx('ingest/cli/backfill-cli.ts', args, env)
}
