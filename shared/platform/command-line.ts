import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ConfigError } from './config.js'

/** A mistake in how a command was called: reported in one line with the short usage, exit code 2. */
export class UsageError extends Error {}

export interface CommandHelp {
  /** As typed after `npm run`, e.g. "devnet"; it begins each error line. */
  name: string
  /** The whole help (`--help`, `-h`): usage, options, exit codes. */
  usage: string
  /** One line printed under a mistake, ending in "(--help for more)". */
  shortUsage: string
}

type Options = NonNullable<ParseArgsConfig['options']>
type OptionValue<T> = T extends { type: 'boolean' } ? boolean : string
/** What parseArgs reads for these options (none of the commands' options is `multiple`). */
type OptionValues<O extends Options> = {
  [K in keyof O]: O[K] extends { default: unknown } ? OptionValue<O[K]> : OptionValue<O[K]> | undefined
}

/**
 * A command's options, read as the other commands read theirs: `--help` or `-h` prints the
 * usage on stdout and exits 0; an unknown option, a malformed value (`interpret` throws a
 * UsageError) or a bad setting in the environment (ConfigError) prints one line and the
 * short usage on stderr and exits 2, without a stack trace.
 */
export function readCommandLine<const O extends Options, R>(
  command: CommandHelp,
  options: O,
  interpret: (values: OptionValues<O>) => R,
  argv: string[] = process.argv.slice(2),
): R {
  try {
    const { values } = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } } })
    if ((values as { help?: boolean }).help === true) {
      process.stdout.write(`${command.usage}\n`)
      process.exit(0)
    }
    return interpret(values as unknown as OptionValues<O>)
  } catch (err) {
    const mistake = err instanceof UsageError || err instanceof ConfigError || (err as { code?: unknown }).code?.toString().startsWith('ERR_PARSE_ARGS')
    if (!mistake) throw err
    process.stderr.write(`${command.name}: ${(err as Error).message}\n${command.shortUsage}\n`)
    process.exit(2)
  }
}

/** An integer option from `min` to `max`, or a UsageError naming it. */
export function integerOption(name: string, raw: string, min: number, max: number): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!(Number.isSafeInteger(value) && value >= min && value <= max)) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got "${raw}")`)
  }
  return value
}
