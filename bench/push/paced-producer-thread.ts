/**
 * bench:push's producer, on its own thread as a real producer is its own process: on
 * 'go' ({ rate, seconds, first }), it enqueues synthetic swaps first, first+1, … in jobs
 * of `jobSize`, one job every jobSize/rate seconds, on schedule (a late job is sent at
 * once, not skipped); then posts the jobs it sent ({ id, first }) and waits for the next 'go'.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { IngestProducer } from '../../shared/records/ingest-producer.js'
import type { Config } from '../../shared/platform/config.js'
import { syntheticSwap } from '../ingest/synthetic-swaps.js'

export interface PacedRun {
  /** Swaps a second. */
  rate: number
  seconds: number
  /** The first synthetic swap's index. */
  first: number
}

export interface SentJob {
  id: string
  /** Its first swap's index; it holds jobSize swaps. */
  first: number
}

const { config, jobSize } = workerData as { config: Pick<Config, 'redis' | 'ingest'>; jobSize: number }
const port = parentPort!
const producer = new IngestProducer(config)
await producer.queue.waitUntilReady()
port.postMessage('ready')

port.on('message', (run: PacedRun | 'stop') => {
  if (run === 'stop') {
    void producer.close().then(() => port.postMessage('stopped'))
    return
  }
  void send(run).then((jobs) => port.postMessage(jobs))
})

async function send({ rate, seconds, first }: PacedRun): Promise<SentJob[]> {
  const jobs = Math.round((rate * seconds) / jobSize)
  const everyMs = (jobSize / rate) * 1000
  const started = performance.now()
  const sent: SentJob[] = []
  for (let j = 0; j < jobs; j++) {
    const wait = started + j * everyMs - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const from = first + j * jobSize
    const records = Array.from({ length: jobSize }, (_, k) => syntheticSwap(from + k))
    sent.push({ id: await producer.send('swap', records, 'bench-push'), first: from })
  }
  return sent
}
