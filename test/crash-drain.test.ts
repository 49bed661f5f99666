import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { startRoles, type RoleSupervisorOptions } from '../shared/run-roles.js'
import type { RunningRole } from '../shared/runtime.js'
import { recordingLogger } from './support/recording-logger.js'

/**
 * The crash paths of a process running roles, in-process: fake roles record their stops,
 * a plain EventEmitter stands for `process` (signals, unhandledRejection,
 * uncaughtException) and a fake exit records the code instead of ending the test.
 */
function harness(timeoutMs = 5_000) {
  const events = new EventEmitter()
  const record: string[] = []
  const logger = recordingLogger()
  let exited: (code: number) => void = () => undefined
  const exitCode = new Promise<number>((resolve) => {
    exited = resolve
  })
  const options: RoleSupervisorOptions = {
    events,
    logger,
    timeoutMs,
    exit: (code) => {
      record.push(`exit ${code}`)
      exited(code)
    },
    close: async () => {
      record.push('close store')
    },
  }
  const role = (name: string, stop: () => Promise<void> = async () => undefined) => async (): Promise<RunningRole> => {
    record.push(`start ${name}`)
    return {
      name,
      stop: async () => {
        record.push(`stop ${name}`)
        await stop()
      },
    }
  }
  return { events, record, logger, options, role, exitCode }
}

describe('roles stop in order on a crash', () => {
  it('an unhandled rejection after start: logged, every started role stopped in reverse order, then exit 1', async () => {
    const h = harness()
    await startRoles({}, [h.role('ingest'), h.role('indicators'), h.role('api')], h.options)
    h.events.emit('unhandledRejection', new Error('worker exploded'), Promise.resolve())
    expect(await h.exitCode).toBe(1)
    expect(h.record).toEqual([
      'start ingest',
      'start indicators',
      'start api',
      'stop api',
      'stop indicators',
      'stop ingest',
      'close store',
      'exit 1',
    ])
    const crash = h.logger.lines.find((l) => l.level === 'error' && l.msg.includes('unhandledRejection'))
    expect(crash?.fields.err).toBeInstanceOf(Error)
  })

  it('an uncaught exception: the same drain, exit 1', async () => {
    const h = harness()
    await startRoles({}, [h.role('ingest'), h.role('api')], h.options)
    h.events.emit('uncaughtException', new Error('thrown in a callback'), 'uncaughtException')
    expect(await h.exitCode).toBe(1)
    expect(h.record).toEqual(['start ingest', 'start api', 'stop api', 'stop ingest', 'close store', 'exit 1'])
  })

  it('a role failing to start: the roles already started are stopped, the rest never start, exit 1', async () => {
    const h = harness()
    const failing = async (): Promise<RunningRole> => {
      h.record.push('start api (fails)')
      throw new Error('port in use')
    }
    await expect(startRoles({}, [h.role('ingest'), h.role('indicators'), failing, h.role('never')], h.options)).rejects.toThrow(
      'port in use',
    )
    expect(await h.exitCode).toBe(1)
    expect(h.record).toEqual([
      'start ingest',
      'start indicators',
      'start api (fails)',
      'stop indicators',
      'stop ingest',
      'close store',
      'exit 1',
    ])
    expect(h.logger.lines.some((l) => l.level === 'error' && l.msg.includes('failed to start'))).toBe(true)
  })

  it('a crash while a role is starting: that role finishes starting and is stopped first; no further role starts', async () => {
    const h = harness()
    let open: () => void = () => undefined
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    const slowStart = async (): Promise<RunningRole> => {
      const role = await h.role('indicators')()
      await gate
      return role
    }
    const started = startRoles({}, [h.role('ingest'), slowStart, h.role('api')], h.options)
    await new Promise((r) => setTimeout(r, 20))
    h.events.emit('unhandledRejection', new Error('while starting'), Promise.resolve())
    open()
    await started
    expect(await h.exitCode).toBe(1)
    expect(h.record).toEqual(['start ingest', 'start indicators', 'stop indicators', 'stop ingest', 'close store', 'exit 1'])
  })

  it('a drain that hangs is cut short by the shutdown timeout: exit 1', async () => {
    const h = harness(100)
    await startRoles({}, [h.role('ingest', () => new Promise<void>(() => undefined)), h.role('api')], h.options)
    const started = Date.now()
    h.events.emit('unhandledRejection', new Error('boom'), Promise.resolve())
    expect(await h.exitCode).toBe(1)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(h.record).toEqual(['start ingest', 'start api', 'stop api', 'stop ingest', 'exit 1'])
  })

  it('a stop that fails still stops the other roles, and the exit is 1', async () => {
    const h = harness()
    await startRoles(
      {},
      [
        h.role('ingest'),
        h.role('indicators', async () => {
          throw new Error('cannot close')
        }),
        h.role('api'),
      ],
      h.options,
    )
    h.events.emit('SIGTERM', 'SIGTERM')
    expect(await h.exitCode).toBe(1)
    expect(h.record).toEqual([
      'start ingest',
      'start indicators',
      'start api',
      'stop api',
      'stop indicators',
      'stop ingest',
      'close store',
      'exit 1',
    ])
  })

  it('SIGTERM still drains the same way and exits 0; a crash during that drain makes it exit 1 without a second drain', async () => {
    const h = harness()
    let release: () => void = () => undefined
    const slow = new Promise<void>((resolve) => {
      release = resolve
    })
    await startRoles({}, [h.role('ingest', () => slow), h.role('api')], h.options)
    h.events.emit('SIGTERM', 'SIGTERM')
    await new Promise((r) => setTimeout(r, 20))
    h.events.emit('unhandledRejection', new Error('during drain'), Promise.resolve())
    release()
    expect(await h.exitCode).toBe(1)
    expect(h.record).toEqual(['start ingest', 'start api', 'stop api', 'stop ingest', 'close store', 'exit 1'])

    const calm = harness()
    await startRoles({}, [calm.role('ingest'), calm.role('api')], calm.options)
    calm.events.emit('SIGTERM', 'SIGTERM')
    expect(await calm.exitCode).toBe(0)
    expect(calm.record).toEqual(['start ingest', 'start api', 'stop api', 'stop ingest', 'close store', 'exit 0'])
  })
})
