import { describeIssues, swapRecord } from '../../shared/records/records.js'
import { SWAP_INSERT_COLUMNS } from '../../shared/storage/schema/swaps-schema.js'
import { compactLine, type EncodedRows } from './compact-rows.js'
import { emptyPlainSwap, readPlainSwap } from './swap-fast-path.js'
import { swapRow, type SwapRow } from './table-rows.js'
import type { Rejected } from './validate-records.js'

/**
 * Swaps as received, straight to the JSONCompactEachRow lines of the swaps table. A plain
 * swap (see swap-fast-path.ts) is written from its checked fields with no intermediate
 * record, row or array: the worker's hottest loop. Anything else goes through the schema
 * and swapRow, as every other record type does. test/swap-lines.test.ts checks that both
 * give the same text for the same record.
 */


export interface SwapLines {
  encoded: EncodedRows
  rejected: Rejected[]
}

const scratch = emptyPlainSwap()

export function swapLines(records: readonly unknown[], ingestedAt: number): SwapLines {
  const end = `,${ingestedAt}]\n`
  const lines: string[] = []
  const rejected: Rejected[] = []
  const s = scratch
  for (let index = 0; index < records.length; index++) {
    const record = records[index]
    if (readPlainSwap(record, s)) {
      // Hex and digits only, proven by readPlainSwap: no escaping needed. `dex` is free text.
      const value = s.valueUsd === null ? 'null' : String(s.valueUsd)
      const dex = s.dex === null ? 'null' : JSON.stringify(s.dex)
      lines.push(
        `[${s.chainId},"${s.hash}",${s.blockNumber},${s.timestamp},"${s.wallet}","${s.soldAddress}","${s.soldAmount}",` +
          `"${s.boughtAddress}","${s.boughtAmount}",${value},${dex}${end}`,
      )
      continue
    }
    const parsed = swapRecord.safeParse(record)
    if (parsed.success) lines.push(swapRowLine(swapRow(parsed.data, ingestedAt)))
    else rejected.push({ record, reason: describeIssues(parsed.error), index })
  }
  return { encoded: { columns: SWAP_INSERT_COLUMNS, text: lines.join(''), count: lines.length }, rejected }
}

export function swapRowLine(row: SwapRow): string {
  return compactLine(SWAP_INSERT_COLUMNS.map((c) => row[c]))
}
