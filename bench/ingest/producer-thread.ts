/**
 * The benchmark's producer, on its own thread as a real producer is its own process.
 * It builds its records first (a real producer has them at hand), says 'ready', and on
 * 'go' enqueues them in jobs of `jobSize`, a few jobs per round trip; then says 'done'.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { IngestProducer } from '../../shared/records/ingest-producer.js'
import type { Config } from '../../shared/platform/config.js'
import type { RecordInput } from '../../shared/records/records.js'
import { syntheticSwap } from './synthetic-swaps.js'

interface ProducerInput {
  config: Pick<Config, 'redis' | 'ingest'>
  total: number
  jobSize: number
  jobsPerCall: number
}

const { config, total, jobSize, jobsPerCall } = workerData as ProducerInput
const port = parentPort!
const batches: RecordInput<'swap'>[][] = []
for (let start = 0; start < total; start += jobSize) {
  const records = []
  for (let i = start; i < Math.min(start + jobSize, total); i++) records.push(syntheticSwap(i))
  batches.push(records)
}
const producer = new IngestProducer(config)
await producer.queue.waitUntilReady()
port.postMessage('ready')
await new Promise((resolve) => port.once('message', resolve))
for (let b = 0; b < batches.length; b += jobsPerCall) {
  await producer.sendMany(batches.slice(b, b + jobsPerCall).map((records) => ({ type: 'swap', records, source: 'benchmark' })))
}
await producer.close()
port.postMessage('done')
