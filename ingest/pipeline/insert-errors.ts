/**
 * Whether an insert failed because of the rows themselves (retrying the same rows can
 * never succeed) or because of the moment (connection, timeout, overload, a table being
 * altered): everything not recognized as a data error is treated as transient, so BullMQ
 * retries it with backoff rather than dropping records.
 */
const DATA_ERROR_TYPES = new Set([
  'CANNOT_PARSE_INPUT_ASSERTION_FAILED',
  'CANNOT_PARSE_TEXT',
  'CANNOT_PARSE_NUMBER',
  'CANNOT_PARSE_DATETIME',
  'CANNOT_PARSE_QUOTED_STRING',
  'CANNOT_PARSE_ESCAPE_SEQUENCE',
  'CANNOT_READ_ALL_DATA',
  'ATTEMPT_TO_READ_AFTER_EOF',
  'INCORRECT_DATA',
  'TYPE_MISMATCH',
  'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
  'ARGUMENT_OUT_OF_BOUND',
  'TOO_LARGE_STRING_SIZE',
  'INCORRECT_NUMBER_OF_COLUMNS',
])

export function isDataError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false
  const type = (err as { type?: unknown }).type
  return typeof type === 'string' && (DATA_ERROR_TYPES.has(type) || type.startsWith('CANNOT_PARSE'))
}
