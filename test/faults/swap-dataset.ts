import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { Prng } from '../../ingest/sample-data/prng.js'

/**
 * The fault suite's backfill file: `distinct` swaps with unique hashes (roughly in time
 * order, over the 60 days before `endMs`), and among them, later in the file, exact
 * re-deliveries of earlier lines and re-deliveries of earlier hashes at another time (a
 * corrected producer). The store must end with each hash once.
 */
export interface SwapDataset {
  path: string
  /** Lines in the file (distinct + re-delivered). */
  lines: number
  distinct: number
  exactDuplicates: number
  retimedDuplicates: number
  /** Every distinct hash (lower case), in the order first written. */
  hashes: string[]
  /** The hashes whose later re-delivery moved them to another time (their stored time may be either). */
  retimed: Set<string>
  startMs: number
  endMs: number
}

const DEXES = ['uniswap_v2', 'uniswap_v3', 'sushiswap', 'curve', 'balancer', '1inch']

function hexDigits(prng: Prng, n: number): string {
  let s = ''
  while (s.length < n) s += Math.floor(prng.next() * 0x100000000).toString(16).padStart(8, '0')
  return s.slice(0, n)
}

export async function writeSwapDataset(
  path: string,
  options: { distinct: number; exactDuplicates: number; retimedDuplicates: number; endMs: number; seed: number },
): Promise<SwapDataset> {
  const { distinct, exactDuplicates, retimedDuplicates, endMs, seed } = options
  const prng = new Prng(seed)
  const spanMs = 60 * 24 * 3600_000
  const startMs = endMs - spanMs
  const tokens = Array.from({ length: 30 }, () => `0x${hexDigits(prng, 40)}`)
  const wallets = Array.from({ length: 2_000 }, () => `0x${hexDigits(prng, 40)}`)
  const hashes: string[] = new Array(distinct)
  const lines: string[] = new Array(distinct)
  const retimed = new Set<string>()

  const swapLine = (i: number, timestamp: number, block: number): string => {
    const sold = tokens[i % tokens.length]!
    const bought = tokens[(i * 7 + 3) % tokens.length]!
    const record = {
      hash: hashes[i],
      block_number: block,
      timestamp,
      wallet_address: wallets[i % wallets.length],
      token_sold: { contract_address: sold, amount_raw: `${prng.int(1, 999_999_999)}${prng.int(0, 999_999_999)}000000000` },
      token_bought: { contract_address: bought === sold ? tokens[(i + 1) % tokens.length] : bought, amount_raw: String(prng.int(1, 2 ** 31)) },
      ...(i % 4 === 0 ? {} : { value_usd: prng.int(1, 10_000_000) / 100 }),
      ...(i % 6 === 0 ? {} : { dex: DEXES[i % DEXES.length] }),
    }
    return JSON.stringify(record)
  }

  for (let i = 0; i < distinct; i++) {
    // Unique by construction: the index is the hash's last 8 hex digits.
    hashes[i] = `0x${hexDigits(prng, 56)}${i.toString(16).padStart(8, '0')}`
    const timestamp = startMs + Math.floor((i / distinct) * spanMs) + prng.int(0, 999)
    lines[i] = swapLine(i, timestamp, 18_000_000 + Math.floor(i / 4))
  }

  // Re-deliveries are spliced in after the line they repeat.
  const extra = new Map<number, string[]>()
  const addAfter = (at: number, line: string) => {
    const list = extra.get(at)
    if (list) list.push(line)
    else extra.set(at, [line])
  }
  for (let d = 0; d < exactDuplicates; d++) {
    const i = prng.int(0, distinct - 2)
    addAfter(prng.int(i + 1, Math.min(distinct - 1, i + 200_000)), lines[i]!)
  }
  for (let d = 0; d < retimedDuplicates; d++) {
    const i = prng.int(0, distinct - 2)
    retimed.add(hashes[i]!)
    const timestamp = startMs + prng.int(0, spanMs - 1)
    addAfter(prng.int(i + 1, distinct - 1), swapLine(i, timestamp, 18_000_000 + prng.int(0, 250_000)))
  }

  const out = createWriteStream(path)
  let chunk: string[] = []
  let written = 0
  const flush = async () => {
    if (!out.write(`${chunk.join('\n')}\n`)) await once(out, 'drain')
    chunk = []
  }
  for (let i = 0; i < distinct; i++) {
    chunk.push(lines[i]!)
    written++
    for (const line of extra.get(i) ?? []) {
      chunk.push(line)
      written++
    }
    if (chunk.length >= 10_000) await flush()
  }
  if (chunk.length > 0) await flush()
  out.end()
  await once(out, 'finish')
  return {
    path,
    lines: written,
    distinct,
    exactDuplicates,
    retimedDuplicates,
    hashes,
    retimed,
    startMs,
    endMs,
  }
}
