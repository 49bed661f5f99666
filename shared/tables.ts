/**
 * Every table name, qualified with the configured database. The database name is an
 * identifier validated by the configuration schema, never user input; chDB ignores the
 * client's `database` option, so qualified names are what works on both engines.
 */
export interface Tables {
  database: string
  migrations: string
  tokens: string
  swaps: string
  holdings: string
  prices: string
  deadLetters: string
}

export function tablesFor(database: string): Tables {
  const q = (name: string) => `${database}.${name}`
  return {
    database,
    migrations: q('schema_migrations'),
    tokens: q('tokens'),
    swaps: q('swaps'),
    holdings: q('holdings'),
    prices: q('prices'),
    deadLetters: q('dead_letters'),
  }
}
