import { IngestProducer } from '../../shared/records/ingest-producer.js'
import type { RecordType } from '../../shared/platform/queues.js'
import type { Runtime } from '../../shared/runtime.js'
import { buildSampleDataset, type SampleDataset, type SampleOptions } from './sample-dataset.js'

export interface SampleLoadResult {
  tokens: number
  prices: number
  swaps: number
  holdings: number
  jobIds: string[]
}

const BATCH = 5_000
const SOURCE = 'sample-data'

/** Enqueues the sample through the ingest queue, as any producer would: tokens first. */
export async function enqueueSampleData(
  producer: IngestProducer,
  dataset: SampleDataset = buildSampleDataset(),
): Promise<SampleLoadResult> {
  const jobIds: string[] = []
  const groups: Array<[RecordType, unknown[]]> = [
    ['token', dataset.tokens],
    ['price', dataset.prices],
    ['swap', dataset.swaps],
    ['holding', dataset.holdings],
  ]
  for (const [type, records] of groups) {
    for (let i = 0; i < records.length; i += BATCH) {
      jobIds.push(await producer.send(type, records.slice(i, i + BATCH), `${SOURCE}:${type}`))
    }
  }
  return {
    tokens: dataset.tokens.length,
    prices: dataset.prices.length,
    swaps: dataset.swaps.length,
    holdings: dataset.holdings.length,
    jobIds,
  }
}

/** True when no token has been stored yet: the sample is loaded only into an empty store. */
export async function storeIsEmpty(runtime: Pick<Runtime, 'clickhouse' | 'tables'>): Promise<boolean> {
  const rs = await runtime.clickhouse.query({
    query: `SELECT count() AS n FROM (SELECT 1 FROM ${runtime.tables.tokens} LIMIT 1)`,
    format: 'JSONEachRow',
  })
  const [row] = await rs.json<{ n: string | number }>()
  return Number(row?.n ?? 0) === 0
}

/**
 * `npm start`'s first-run sample: in embedded mode, when SAMPLE_DATA is on and the store
 * holds no token, enqueue the bundled sample. Returns what was enqueued, or null.
 */
export async function loadSampleDataIfEmpty(
  runtime: Runtime,
  producer: IngestProducer,
  options: SampleOptions = {},
): Promise<SampleLoadResult | null> {
  const { config } = runtime
  if (!config.sampleData || config.clickhouse.mode !== 'embedded') return null
  if (!(await storeIsEmpty(runtime))) return null
  return enqueueSampleData(producer, buildSampleDataset(options))
}

/** What `npm start` calls once its roles are up: loads the sample if due, logs what was enqueued. */
export async function loadSampleDataOnFirstStart(runtime: Runtime): Promise<SampleLoadResult | null> {
  if (!runtime.config.sampleData || runtime.config.clickhouse.mode !== 'embedded') return null
  const producer = new IngestProducer(runtime.config)
  try {
    const loaded = await loadSampleDataIfEmpty(runtime, producer)
    if (loaded) {
      const { jobIds, ...counts } = loaded
      runtime.logger.info('empty store: enqueued the sample dataset (SAMPLE_DATA=false turns this off)', {
        ...counts,
        jobs: jobIds.length,
      })
    }
    return loaded
  } finally {
    await producer.close()
  }
}
