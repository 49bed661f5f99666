import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

export const INGESTED_AT_INDEX = 'ingested_at_minmax'

function statements(t: Tables): string[] {
  return [
    // What arrived since a watermark (the statistics runs' changed swaps, shared/smart-money/
    // run-changes.ts, and their "anything new?" test) was a scan of every row's ingested_at;
    // rows arrive roughly in time order, so a granule's range of ingested_at skips nearly all.
    `ALTER TABLE ${t.swaps} ADD INDEX IF NOT EXISTS ${INGESTED_AT_INDEX} ingested_at TYPE minmax GRANULARITY 1`,
    // Built for the stored parts in the background (new parts have it as they are written).
    `ALTER TABLE ${t.swaps} MATERIALIZE INDEX ${INGESTED_AT_INDEX}`,
  ]
}

/** A minmax index of ingested_at on swaps_by_time. */
export const swapsIngestedAtIndex: Migration = { version: 19, name: 'swaps_ingested_at_index', statements }
