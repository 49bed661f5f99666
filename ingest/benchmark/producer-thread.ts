/**
 * The benchmark's producer, on its own thread as a real producer is its own process:
 * enqueues `total` synthetic swaps in jobs of `jobSize`, a few jobs per round trip.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { IngestProducer } from '../../shared/ingest-producer.js'
import type { Config } from '../../shared/config.js'
import { syntheticSwap } from './synthetic-swaps.js'

interface ProducerInput {
  config: Pick<Config, 'redis' | 'ingest'>
  total: number
  jobSize: number
  jobsPerCall: number
}

const { config, total, jobSize, jobsPerCall } = workerData as ProducerInput
const producer = new IngestProducer(config)
for (let start = 0; start < total; ) {
  const jobs = []
  for (let j = 0; j < jobsPerCall && start < total; j++) {
    const records = []
    for (let i = start; i < Math.min(start + jobSize, total); i++) records.push(syntheticSwap(i))
    jobs.push({ type: 'swap' as const, records, source: 'benchmark' })
    start += records.length
  }
  await producer.sendMany(jobs)
}
await producer.close()
parentPort!.postMessage('done')
