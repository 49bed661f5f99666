import { spawn, type ChildProcess } from 'node:child_process'
import { freePort } from '../../devnet/anvil-process.js'
import { createRedis } from '../../shared/platform/redis.js'

/** A port nothing listens on (a moment ago). */
export { freePort }

export interface PrivateRedis {
  url: string
  /** SIGKILL: the connections drop as in a crash. */
  kill(): Promise<void>
}

/** A throw-away redis-server (no persistence) on a free port (or `port`: e.g. where a client already waits), for outage tests. */
export async function startPrivateRedis(port?: number): Promise<PrivateRedis> {
  port ??= await freePort()
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `redis://127.0.0.1:${port}`
  const probe = createRedis(url)
  probe.on('error', () => undefined)
  try {
    const deadline = Date.now() + 10_000
    for (;;) {
      try {
        if ((await probe.ping()) === 'PONG') break
      } catch (err) {
        if (Date.now() > deadline) throw err
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  } finally {
    probe.disconnect()
  }
  return {
    url,
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}
