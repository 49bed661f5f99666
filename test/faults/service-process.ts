import type { ChildProcess } from 'node:child_process'
import { spawnTsx } from '../support/backfill-files.js'

/**
 * The service (`npm start`'s main.ts: ingest, indicators and API in one process on an
 * embedded store) as a child process that the suite kills with SIGKILL and starts again.
 * Its log (pino JSON on stderr) is kept to find what went wrong.
 */
export class ServiceProcess {
  private child: ChildProcess | undefined
  private exited: Promise<number | null> = Promise.resolve(null)
  private log = ''
  /** Exits the suite did not cause (a crash), with the end of the log before them. */
  readonly crashes: string[] = []
  private expectingExit = false
  ready = false

  constructor(private readonly env: Record<string, string>) {}

  /** Starts the process; resolves once the API listens (every role started). */
  async start(timeoutMs = 120_000): Promise<void> {
    this.spawn()
    await this.waitReady(timeoutMs)
  }

  /** Starts the process without waiting for it. */
  spawn(): void {
    const child = spawnTsx('main.ts', [], this.env)
    this.child = child
    this.ready = false
    this.expectingExit = false
    this.log = ''
    child.stdout!.on('data', (d: Buffer) => this.append(d))
    child.stderr!.on('data', (d: Buffer) => this.append(d))
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        if (!this.expectingExit) this.crashes.push(`exit ${code ?? signal}: ${this.log.slice(-3_000)}`)
        resolve(code)
      }),
    )
  }

  async waitReady(timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!this.ready) {
      if (!this.running) {
        throw new Error(`the service exited before it was ready:\n${this.log.slice(-5_000)}`)
      }
      if (Date.now() > deadline) throw new Error(`the service did not start within ${timeoutMs} ms:\n${this.log.slice(-5_000)}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
  }

  async kill(): Promise<void> {
    this.expectingExit = true
    if (this.running) this.child!.kill('SIGKILL')
    await this.exited
  }

  /** SIGTERM: the roles drain; resolves with the exit code. */
  async stop(): Promise<number | null> {
    this.expectingExit = true
    if (this.running) this.child!.kill('SIGTERM')
    return this.exited
  }

  recentLog(chars = 5_000): string {
    return this.log.slice(-chars)
  }

  private append(d: Buffer): void {
    this.log += d.toString()
    if (this.log.length > 200_000) this.log = this.log.slice(-100_000)
    if (!this.ready && this.log.includes('api listening')) this.ready = true
  }
}
