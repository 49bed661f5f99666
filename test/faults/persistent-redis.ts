import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { createRedis } from '../../shared/platform/redis.js'

/**
 * The fault suite's own redis-server: append-only file with `appendfsync everysec` in a
 * directory of its own, on a port of its own (never the shared Redis). It can be stopped
 * gracefully (SIGTERM: Redis writes and fsyncs the AOF before exiting) and started again
 * on the same data, or killed and started on an empty directory (its data lost).
 */
export class PersistentRedis {
  private child: ChildProcess | undefined
  private exited: Promise<void> = Promise.resolve()
  readonly url: string

  constructor(
    readonly port: number,
    private readonly dir: string,
  ) {
    this.url = `redis://127.0.0.1:${port}`
  }

  async start(): Promise<void> {
    mkdirSync(this.dir, { recursive: true })
    const child = spawn(
      'redis-server',
      [
        '--port', String(this.port),
        '--bind', '127.0.0.1',
        '--dir', this.dir,
        '--appendonly', 'yes',
        '--appendfsync', 'everysec',
        '--save', '',
        '--maxmemory-policy', 'noeviction',
      ],
      { stdio: 'ignore' },
    )
    this.child = child
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()))
    await this.waitForPong()
  }

  /** SIGTERM: Redis fsyncs its append-only file and exits; nothing acknowledged is lost. */
  async stopGracefully(): Promise<void> {
    if (this.child && this.child.exitCode === null) this.child.kill('SIGTERM')
    await this.exited
  }

  async kill(): Promise<void> {
    if (this.child && this.child.exitCode === null) this.child.kill('SIGKILL')
    await this.exited
  }

  async restartGracefully(): Promise<void> {
    await this.stopGracefully()
    await this.start()
  }

  /** SIGKILL, its data directory deleted, started again empty: everything it held is lost. */
  async restartLosingData(): Promise<void> {
    if (this.child && this.child.exitCode === null) this.child.kill('SIGKILL')
    await this.exited
    rmSync(this.dir, { recursive: true, force: true })
    await this.start()
  }

  private async waitForPong(): Promise<void> {
    const probe = createRedis(this.url)
    probe.on('error', () => undefined)
    try {
      const deadline = Date.now() + 30_000
      for (;;) {
        try {
          // LOADING while the AOF is read back: keep asking.
          if ((await probe.ping()) === 'PONG') return
        } catch (err) {
          if (Date.now() > deadline) throw err
        }
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    } finally {
      probe.disconnect()
    }
  }
}
