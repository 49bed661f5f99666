import { destination as pinoDestination, pino, stdSerializers, stdTimeFunctions, type Logger as PinoLogger } from 'pino'
import pretty from 'pino-pretty'
import type { Config } from './config.js'

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
  child(fields: Record<string, unknown>): Logger
  /** The pino logger behind it, for pino-http (absent in test doubles). */
  readonly pino?: PinoLogger
}

/**
 * The one logger: pino, on stderr so stdout stays free for command output. JSON lines
 * (level as a word, ISO time, errors with their stack under `err`), or pretty lines when
 * stderr is a terminal. Writes are synchronous: a line logged just before the process
 * exits (a crash, a CLI's last word) is not lost in a buffer.
 */
export function createLogger(level: Config['logLevel'], base: Record<string, unknown> = {}): Logger {
  const options = {
    level,
    base,
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    serializers: { err: stdSerializers.err },
  }
  const destination = process.stderr.isTTY
    ? pretty({ destination: 2, sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l' })
    : pinoDestination({ dest: 2, sync: true })
  return wrap(pino(options, destination))
}

function wrap(logger: PinoLogger): Logger {
  return {
    debug: (msg, fields) => logger.debug(fields ?? {}, msg),
    info: (msg, fields) => logger.info(fields ?? {}, msg),
    warn: (msg, fields) => logger.warn(fields ?? {}, msg),
    error: (msg, fields) => logger.error(fields ?? {}, msg),
    child: (fields) => wrap(logger.child(fields)),
    pino: logger,
  }
}
