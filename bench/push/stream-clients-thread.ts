/**
 * bench:push's stream clients, on a thread of their own so that reading the streams does
 * not share the service's event loop: `urls.length` connections to GET /stream/swaps,
 * each read as a plain SSE client reads it. Every `swap` event's arrival is kept as
 * (synthetic swap index, ms since the epoch); on 'report' the thread posts them and its
 * counts, and on 'close' it ends every connection.
 */
import { request, type ClientRequest } from 'node:http'
import { parentPort, workerData } from 'node:worker_threads'

export interface ClientsReport {
  connected: number
  /** Index and arrival time (ms) of each swap event, every client's, as flat pairs. */
  arrivals: number[]
  events: number
  /** Connections the server closed or that failed, with the reason. */
  ended: string[]
}

const { urls } = workerData as { urls: string[] }
const port = parentPort!
const arrivals: number[] = []
const ended: string[] = []
let events = 0
let connected = 0
const requests: ClientRequest[] = []
const HASH = /"hash":"0x([0-9a-f]{16})/

for (const url of urls) {
  const req = request(url, { headers: { accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      ended.push(`${url}: HTTP ${res.statusCode}`)
      res.resume()
      return
    }
    connected++
    res.setEncoding('utf8')
    let pending = ''
    res.on('data', (chunk: string) => {
      pending += chunk
      let end: number
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const block = pending.slice(0, end)
        pending = pending.slice(end + 2)
        if (block.startsWith(':')) continue
        events++
        if (!block.includes('event: swap')) {
          if (block.includes('event: closed')) ended.push(`${url}: ${block}`)
          continue
        }
        const hash = HASH.exec(block)
        if (hash !== null) arrivals.push(parseInt(hash[1]!, 16), Date.now())
      }
    })
    res.on('end', () => ended.push(`${url}: ended`))
  })
  req.on('error', (err) => ended.push(`${url}: ${err.message}`))
  req.end()
  requests.push(req)
}

port.on('message', (message: 'report' | 'close') => {
  if (message === 'close') {
    for (const req of requests) req.destroy()
    port.postMessage('closed')
    return
  }
  const report: ClientsReport = { connected, arrivals: arrivals.splice(0), events, ended: [...ended] }
  port.postMessage(report)
})
port.postMessage('started')
