import { IngestProducer } from '../../shared/records/ingest-producer.js'
import type { RunningRole } from '../../shared/runtime.js'
import { JobWaiter } from '../../ingest/cli/backfill/job-waiter.js'
import { startIngestRole } from '../../ingest/role.js'
import { loadSampleDataIfEmpty, type SampleLoadResult } from '../../ingest/sample-data/load-sample-data.js'
import { recomputeAllAfterIngestJobs } from '../../indicators/recompute-after-ingest.js'
import { startIndicatorsRole } from '../../indicators/role.js'
import { getJson, startTestApi, type TestApi } from './http.js'
import { createTestRuntime, type TestRuntime } from './runtime.js'

export interface SampleService {
  baseUrl: string
  runtime: TestRuntime
  sample: SampleLoadResult
  stop(): Promise<void>
}

/** Traded in the sample: it has candles, holders and swaps. */
export const SAMPLE_WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/**
 * The service as `npm start` runs it on its first start, in this process on a fresh test
 * store: ingest, indicators and the API roles, the sample enqueued through the ingest
 * queue, a recompute of every token once it is stored. Resolves when the sample is stored,
 * its candles aggregated and WETH's technical analysis cached.
 */
export async function startSampleService(): Promise<SampleService> {
  const runtime = await createTestRuntime({ SAMPLE_DATA: 'true' })
  const roles: RunningRole[] = []
  let api: TestApi | undefined
  const producer = new IngestProducer(runtime.config)
  const stop = async () => {
    await api?.close()
    for (const role of roles.reverse()) await role.stop()
    await producer.close()
    await runtime.cleanup()
  }
  try {
    roles.push(await startIngestRole(runtime))
    roles.push(await startIndicatorsRole(runtime))
    api = await startTestApi(runtime, { onDemandWaitMs: 20_000 })
    const baseUrl = api.baseUrl
    const sample = await loadSampleDataIfEmpty(runtime, producer)
    if (sample === null) throw new Error('the test store was not empty')
    const outcome = await new JobWaiter(producer.queue, sample.jobIds, 50).waitAll()
    if (outcome.failed.length > 0 || outcome.rejected > 0) {
      throw new Error(`the sample did not load whole: ${JSON.stringify(outcome)}`)
    }
    await recomputeAllAfterIngestJobs(runtime, sample.jobIds)
    await until(
      "WETH's candles",
      async () => (await getJson(`${baseUrl}/tokens/${SAMPLE_WETH}/candles?limit=1`)).body?.pagination?.total > 300,
      60_000,
    )
    await until(
      "WETH's technical analysis",
      async () => (await getJson(`${baseUrl}/technical-analysis?contract_address=${SAMPLE_WETH}`)).status === 200,
      60_000,
    )
    return { baseUrl, runtime, sample, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
