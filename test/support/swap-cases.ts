import { MAX_TIMESTAMP_MS } from '../../shared/records/records.js'
import { swapInput } from './record-inputs.js'
import { mixedCase } from './factories.js'

const MAX = ((1n << 256n) - 1n).toString()

/** Values that probe each rule of the swap schema: edges, wrong types, CSV-like strings, text to escape. */
const probes: unknown[] = [
  undefined, null, '', ' ', 0, -0, 1, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER,
  MAX_TIMESTAMP_MS, MAX_TIMESTAMP_MS + 1,
  Number.MAX_SAFE_INTEGER + 1, 1e21, '0', '1', '00', '007', '12', ' 12', '1.5', '-1', '1e3', 'abc', MAX, `0${MAX}`,
  (BigInt(MAX) + 1n).toString(), '9'.repeat(77), '9'.repeat(78), true, [], {}, ['0x1'], 'uniswap', ' uniswap ', 'x'.repeat(128),
  'x'.repeat(129), `0x${'a'.repeat(40)}`, `0x${'A'.repeat(40)}`, `0X${'a'.repeat(40)}`, `0x${'g'.repeat(40)}`, `0x${'ab'.repeat(32)}`,
  `0x${'AB'.repeat(32)}`, `0x${'ab'.repeat(31)}`, { contract_address: `0x${'c'.repeat(40)}`, amount_raw: '5' },
  { contract_address: `0x${'c'.repeat(40)}`, amount_raw: 5 }, { contract_address: `0x${'C'.repeat(40)}`, amount_raw: '05', extra: 1 },
  0.1 + 0.2, 5e-324, Number.MAX_VALUE, 1e-7, 123456789.123, 'uni"swap', 'uni\\swap', 'uni\nswap', 'üniswap', 'uni\u2028swap', 'uni\u0000swap',
]
const fields = ['hash', 'block_number', 'timestamp', 'wallet_address', 'token_sold', 'token_bought', 'value_usd', 'dex', 'chain_id']
const legFields = ['contract_address', 'amount_raw']

/** Thousands of swaps as a producer might send them: valid ones and each field mutated by each probe. */
export function swapCases(): unknown[] {
  const bases: Record<string, unknown>[] = [
    swapInput('base-1') as Record<string, unknown>,
    { ...swapInput('base-2', { wallet_address: mixedCase(swapInput('x').wallet_address) }), value_usd: undefined, dex: undefined },
    { ...swapInput('base-3'), chain_id: 10, value_usd: null, dex: null, extra_field: 'dropped' },
  ]
  const out: unknown[] = [...bases, null, 'swap', 42, []]
  for (const base of bases) {
    for (const field of fields) {
      for (const probe of probes) {
        const copy: Record<string, unknown> = { ...base, [field]: probe }
        if (probe === undefined) delete copy[field]
        out.push(copy)
      }
    }
    for (const side of ['token_sold', 'token_bought']) {
      for (const field of legFields) {
        for (const probe of probes) {
          const legCopy: Record<string, unknown> = { ...(base[side] as object), [field]: probe }
          out.push({ ...base, [side]: legCopy })
        }
      }
    }
  }
  return out
}
