import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'
import type { Config } from '../../shared/platform/config.js'
import type { RedriveJobStatus } from '../../shared/dead-letters/dead-letter-redrive-queue.js'
import { DeadLetterReader, type DeadLetter, type DeadLetterCounts, type DeadLetterFilter } from '../../shared/dead-letters/dead-letters.js'
import { IngestProducer } from '../../shared/records/ingest-producer.js'
import type { DeadLetterRedriveJobData, DeadLetterRedriveResult } from '../../shared/platform/queues.js'
import type { Tables } from '../../shared/storage/tables.js'
import { redriveDeadLetters } from '../pipeline/dead-letter-redrive.js'
import { DeadLetterStore } from '../pipeline/dead-letter-store.js'

/**
 * How the dead-letters command reaches the dead letters: the store itself (server mode, or
 * the embedded store while the service is stopped), or the running service's admin
 * endpoints (the embedded store while the service holds it).
 */
export interface DeadLetterAccess {
  /** Where it works, for messages. */
  readonly via: string
  page(filter: DeadLetterFilter, limit: number, offset: number): Promise<{ letters: DeadLetter[]; total: number }>
  counts(reasons: number): Promise<DeadLetterCounts>
  /** Re-drives; `onQueued` is told the job id when the service runs it. */
  redrive(selection: DeadLetterRedriveJobData, wait: boolean, onQueued?: (id: string) => void): Promise<DeadLetterRedriveResult | undefined>
  close(): Promise<void>
}

/** In this process: reads the store, and re-drives through the ingest queue (streamed). */
export class StoreAccess implements DeadLetterAccess {
  readonly via = 'the store'
  private readonly reader: DeadLetterReader

  constructor(
    private readonly config: Pick<Config, 'redis' | 'ingest'>,
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {
    this.reader = new DeadLetterReader(clickhouse, tables)
  }

  page(filter: DeadLetterFilter, limit: number, offset: number) {
    return this.reader.page(filter, limit, offset)
  }

  counts(reasons: number) {
    return this.reader.counts(reasons)
  }

  async redrive(selection: DeadLetterRedriveJobData): Promise<DeadLetterRedriveResult> {
    const producer = new IngestProducer(this.config)
    try {
      return await redriveDeadLetters(this.reader, new DeadLetterStore(this.clickhouse, this.tables), producer, selection)
    } finally {
      await producer.close()
    }
  }

  async close(): Promise<void> {
    await this.clickhouse.close()
  }
}

export class AdminApiError extends Error {}

/** Through the running service's admin endpoints (API_URL, ADMIN_TOKEN). */
export class AdminApiAccess implements DeadLetterAccess {
  readonly via: string

  constructor(
    private readonly apiUrl: string,
    private readonly token: string,
    private readonly pollMs = 250,
  ) {
    this.via = `the running service at ${apiUrl}`
  }

  async page(filter: DeadLetterFilter, limit: number, offset: number) {
    const query = new URLSearchParams({ limit: String(limit), offset: String(offset) })
    if (filter.type !== undefined) query.set('type', filter.type)
    if (filter.reason !== undefined) query.set('reason', filter.reason)
    if (filter.source !== undefined) query.set('source', filter.source)
    if (filter.pendingOnly) query.set('pending', 'true')
    const body = await this.call<{ result: DeadLetter[]; pagination: { total: number } }>('GET', `/admin/dead-letters?${query}`)
    return { letters: body.result, total: body.pagination.total }
  }

  async counts(reasons: number) {
    return (await this.call<{ result: DeadLetterCounts }>('GET', `/admin/dead-letters/counts?reasons=${reasons}`)).result
  }

  async redrive(selection: DeadLetterRedriveJobData, wait: boolean, onQueued?: (id: string) => void) {
    const payload = Object.keys(selection).length === 0 ? { all: true } : selection
    let status = (await this.call<{ result: RedriveJobStatus }>('POST', '/admin/dead-letters/redrive', payload)).result
    onQueued?.(status.id)
    if (!wait) return undefined
    while (status.state !== 'completed' && status.state !== 'failed') {
      await new Promise((resolve) => setTimeout(resolve, this.pollMs))
      status = (await this.call<{ result: RedriveJobStatus }>('GET', `/admin/dead-letters/redrives/${encodeURIComponent(status.id)}`)).result
    }
    if (status.state === 'failed') throw new AdminApiError(`the re-drive ${status.id} failed: ${status.failed_reason ?? 'no reason given'}`)
    return status.result ?? undefined
  }

  async close(): Promise<void> {}

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response
    try {
      response = await fetch(`${this.apiUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    } catch (err) {
      const detail = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err)
      throw new AdminApiError(`the service does not answer at ${this.apiUrl} (API_URL): ${detail}`)
    }
    const parsed = (await response.json().catch(() => undefined)) as { message?: unknown } | undefined
    if (!response.ok) {
      const message = typeof parsed?.message === 'string' ? parsed.message : `HTTP ${response.status}`
      const hint =
        response.status === 404 && !path.startsWith('/admin/dead-letters/redrives/')
          ? ' (is ADMIN_TOKEN set for the running service too?)'
          : response.status === 401
            ? ' (ADMIN_TOKEN differs from the running service\'s)'
            : ''
      throw new AdminApiError(`${method} ${path}: ${response.status} ${message}${hint}`)
    }
    return parsed as T
  }
}
