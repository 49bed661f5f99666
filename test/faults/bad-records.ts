import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Prng } from '../../ingest/sample-data/prng.js'
import type { RecordType } from '../../shared/platform/queues.js'

/**
 * Backfill files mixing bad records of every kind the issue lists (and more) with valid
 * neighbours. Every bad record carries a marker `bad:<kind>:<n>` (in a field the schema
 * ignores, or in the raw text of an unreadable line), so its dead letter can be counted
 * by kind. Valid neighbours are remembered by identity, to find them stored.
 */

export interface BadRecordsFile {
  path: string
  type: RecordType
  format: 'ndjson' | 'csv'
  /** Bad records per kind. */
  bad: Map<string, number>
  badTotal: number
  validTotal: number
}

export interface BadRecordsSet {
  files: BadRecordsFile[]
  validSwapHashes: string[]
  /** Valid tokens: address → the id they must end with. */
  validTokens: Map<string, string>
  validHoldings: Array<{ wallet: string; token: string }>
  validPrices: Array<{ token: string; timestamp: number }>
  /** Valid swaps' time range (kept apart from the main dataset's). */
  swapStartMs: number
  swapEndMs: number
}

const SWAP_START_MS = Date.UTC(2021, 0, 1)

function hex(prng: Prng, n: number): string {
  let s = ''
  while (s.length < n) s += Math.floor(prng.next() * 0x100000000).toString(16).padStart(8, '0')
  return s.slice(0, n)
}

class Counter {
  readonly bad = new Map<string, number>()
  valid = 0
  add(kind: string): string {
    const n = (this.bad.get(kind) ?? 0) + 1
    this.bad.set(kind, n)
    return `bad:${kind}:${n}`
  }
  get badTotal(): number {
    let n = 0
    for (const v of this.bad.values()) n += v
    return n
  }
}

export function writeBadRecordFiles(dir: string, badTarget: number, seed: number): BadRecordsSet {
  const prng = new Prng(seed)
  const set: BadRecordsSet = {
    files: [],
    validSwapHashes: [],
    validTokens: new Map(),
    validHoldings: [],
    validPrices: [],
    swapStartMs: SWAP_START_MS,
    swapEndMs: SWAP_START_MS,
  }
  let swapSeq = 0
  const validSwap = () => {
    const i = swapSeq++
    const hash = `0xbad0${hex(prng, 52)}${i.toString(16).padStart(8, '0')}`
    const timestamp = SWAP_START_MS + i * 60_000
    set.swapEndMs = Math.max(set.swapEndMs, timestamp)
    return {
      hash,
      block_number: 12_000_000 + i,
      timestamp,
      wallet_address: `0x${hex(prng, 40)}`,
      token_sold: { contract_address: `0x${hex(prng, 40)}`, amount_raw: `${prng.int(1, 1e9)}000000000000` },
      token_bought: { contract_address: `0x${hex(prng, 40)}`, amount_raw: String(prng.int(1, 1e9)) },
      value_usd: prng.int(1, 1e6) / 100,
      dex: prng.pick(['uniswap_v3', 'sushiswap', 'curve, v2', 'quote "q" dex']),
    }
  }

  // Swaps as NDJSON: one bad line after each valid one.
  const swapKinds: Array<[string, (note: string) => string]> = [
    ['lone-surrogate-dex', (note) => JSON.stringify({ ...validSwap(), dex: `uni\ud800swap`, note })],
    ['lone-surrogate-dex-low', (note) => JSON.stringify({ ...validSwap(), dex: `\udc00`, note })],
    ['deep-nesting', (note) => `{"note":"${note}","hash":${'['.repeat(4_200)}${']'.repeat(4_200)}}`],
    ['not-json', (note) => `{"note":"${note}","hash":"0x12`],
    ['not-an-object', (note) => JSON.stringify([note, 1, 2])],
    ['json-string', (note) => JSON.stringify(note)],
    ['bad-wallet-address', (note) => JSON.stringify({ ...validSwap(), wallet_address: '0xZZ', note })],
    ['bad-token-address', (note) => JSON.stringify({ ...validSwap(), token_sold: { contract_address: '0x1234', amount_raw: '1' }, note })],
    ['bad-hash', (note) => JSON.stringify({ ...validSwap(), hash: '0xabc', note })],
    ['negative-amount', (note) => JSON.stringify({ ...validSwap(), token_bought: { contract_address: `0x${hex(prng, 40)}`, amount_raw: '-5' }, note })],
    ['float-amount', (note) => JSON.stringify({ ...validSwap(), token_bought: { contract_address: `0x${hex(prng, 40)}`, amount_raw: '1.5' }, note })],
    ['number-amount', (note) => JSON.stringify({ ...validSwap(), token_bought: { contract_address: `0x${hex(prng, 40)}`, amount_raw: 12345 }, note })],
    ['amount-over-uint256', (note) => JSON.stringify({ ...validSwap(), token_sold: { contract_address: `0x${hex(prng, 40)}`, amount_raw: (2n ** 256n).toString() }, note })],
    ['missing-field', (note) => {
      const { token_bought: _, ...rest } = validSwap()
      return JSON.stringify({ ...rest, note })
    }],
    ['timestamp-out-of-range', (note) => JSON.stringify({ ...validSwap(), timestamp: 1e16, note })],
    ['negative-value-usd', (note) => JSON.stringify({ ...validSwap(), value_usd: -3, note })],
    ['negative-block', (note) => JSON.stringify({ ...validSwap(), block_number: -1, note })],
  ]
  const csvKinds: Array<[string, (note: string) => string]> = [
    ['csv-unterminated-quote', (note) => `0x${'1'.repeat(64)},1,1700000000000,0x${'2'.repeat(40)},0x${'3'.repeat(40)},1,0x${'4'.repeat(40)},1,1,"${note} never closed`],
    ['csv-stray-quote', (note) => `0x${'1'.repeat(64)},1,1700000000000,0x${'2'.repeat(40)},0x${'3'.repeat(40)},1,0x${'4'.repeat(40)},1,1,uni"${note}`],
    ['csv-wrong-cell-count', (note) => `0x${'1'.repeat(64)},1,${note}`],
  ]
  const tokenKinds = ['lone-surrogate-name', 'id-conflict', 'id-is-another-address', 'bad-decimals', 'empty-symbol']
  const holdingKinds = ['negative-balance', 'float-balance', 'bad-as-of']
  const priceKinds = ['zero-price', 'negative-volume', 'nan-price']
  const kindCount = swapKinds.length + csvKinds.length + tokenKinds.length + holdingKinds.length + priceKinds.length
  const perKind = Math.ceil(badTarget / kindCount)

  {
    const c = new Counter()
    const lines: string[] = []
    for (let n = 0; n < perKind; n++) {
      for (const [kind, make] of swapKinds) {
        const good = validSwap()
        set.validSwapHashes.push(good.hash)
        lines.push(JSON.stringify(good))
        c.valid++
        lines.push(make(c.add(kind)))
      }
    }
    // The valid swaps the bad ones were derived from are not stored: only `good` ones count.
    const path = join(dir, 'bad-swaps.ndjson')
    writeFileSync(path, `${lines.join('\n')}\n`)
    set.files.push({ path, type: 'swap', format: 'ndjson', bad: c.bad, badTotal: c.badTotal, validTotal: c.valid })
  }
  {
    const c = new Counter()
    const rows = ['hash,block_number,timestamp,wallet_address,token_sold.contract_address,token_sold.amount_raw,token_bought.contract_address,token_bought.amount_raw,value_usd,dex']
    const csvCell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)
    for (let n = 0; n < perKind; n++) {
      for (const [kind, make] of csvKinds) {
        const good = validSwap()
        set.validSwapHashes.push(good.hash)
        rows.push(
          [good.hash, good.block_number, good.timestamp, good.wallet_address, good.token_sold.contract_address, good.token_sold.amount_raw,
            good.token_bought.contract_address, good.token_bought.amount_raw, good.value_usd, good.dex].map((v) => csvCell(String(v))).join(','),
        )
        c.valid++
        rows.push(make(c.add(kind)))
      }
    }
    const path = join(dir, 'bad-swaps.csv')
    writeFileSync(path, `${rows.join('\n')}\n`)
    set.files.push({ path, type: 'swap', format: 'csv', bad: c.bad, badTotal: c.badTotal, validTotal: c.valid })
  }
  {
    // Tokens: a conflicting record always follows the one it conflicts with on the next
    // line, and the file has an even number of lines per batch, so both are in one job
    // (which decides in order: the first claimant keeps the id).
    const c = new Counter()
    const lines: string[] = []
    const validToken = () => {
      const address = `0x${hex(prng, 40)}`
      const id = `fault-${hex(prng, 12)}`
      set.validTokens.set(address, id)
      c.valid++
      return { contract_address: address, name: `Token ${id}`, symbol: 'FLT', decimals: prng.int(0, 24), id }
    }
    for (let n = 0; n < perKind; n++) {
      for (const kind of tokenKinds) {
        const good = validToken()
        lines.push(JSON.stringify(good))
        const note = c.add(kind)
        const other = `0x${hex(prng, 40)}`
        const bad =
          kind === 'lone-surrogate-name' ? { contract_address: other, name: `x\ud83d`, symbol: 'S', decimals: 1, note }
          : kind === 'id-conflict' ? { contract_address: other, name: 'Conflict', symbol: 'C', decimals: 1, id: good.id, note }
          : kind === 'id-is-another-address' ? { contract_address: other, name: 'Address id', symbol: 'A', decimals: 1, id: good.contract_address, note }
          : kind === 'bad-decimals' ? { contract_address: other, name: 'Decimals', symbol: 'D', decimals: 300, note }
          : { contract_address: other, name: 'Empty symbol', symbol: '', decimals: 1, note }
        lines.push(JSON.stringify(bad))
      }
    }
    const path = join(dir, 'bad-tokens.ndjson')
    writeFileSync(path, `${lines.join('\n')}\n`)
    set.files.push({ path, type: 'token', format: 'ndjson', bad: c.bad, badTotal: c.badTotal, validTotal: c.valid })
  }
  {
    const c = new Counter()
    const lines: string[] = []
    for (let n = 0; n < perKind; n++) {
      for (const kind of holdingKinds) {
        const wallet = `0x${hex(prng, 40)}`
        const token = `0x${hex(prng, 40)}`
        set.validHoldings.push({ wallet, token })
        c.valid++
        lines.push(JSON.stringify({ wallet_address: wallet, contract_address: token, balance_raw: '1000', value_usd: 1, as_of: SWAP_START_MS }))
        const note = c.add(kind)
        const bad = { wallet_address: `0x${hex(prng, 40)}`, contract_address: token, balance_raw: '1000', as_of: SWAP_START_MS, note }
        if (kind === 'negative-balance') bad.balance_raw = '-1'
        else if (kind === 'float-balance') bad.balance_raw = '0.5'
        else Object.assign(bad, { as_of: 'yesterday' })
        lines.push(JSON.stringify(bad))
      }
    }
    const path = join(dir, 'bad-holdings.ndjson')
    writeFileSync(path, `${lines.join('\n')}\n`)
    set.files.push({ path, type: 'holding', format: 'ndjson', bad: c.bad, badTotal: c.badTotal, validTotal: c.valid })
  }
  {
    const c = new Counter()
    const lines: string[] = []
    const token = `0x${hex(prng, 40)}`
    for (let n = 0; n < perKind; n++) {
      for (const kind of priceKinds) {
        const timestamp = SWAP_START_MS + (n * priceKinds.length + priceKinds.indexOf(kind)) * 3_600_000
        set.validPrices.push({ token, timestamp })
        c.valid++
        lines.push(JSON.stringify({ contract_address: token, timestamp, price_usd: 1.5, volume_usd: 10 }))
        const note = c.add(kind)
        const bad: Record<string, unknown> = { contract_address: token, timestamp: timestamp + 1, price_usd: 2, note }
        if (kind === 'zero-price') bad.price_usd = 0
        else if (kind === 'negative-volume') bad.volume_usd = -1
        else bad.price_usd = 'NaN'
        lines.push(JSON.stringify(bad))
      }
    }
    const path = join(dir, 'bad-prices.ndjson')
    writeFileSync(path, `${lines.join('\n')}\n`)
    set.files.push({ path, type: 'price', format: 'ndjson', bad: c.bad, badTotal: c.badTotal, validTotal: c.valid })
  }
  return set
}
