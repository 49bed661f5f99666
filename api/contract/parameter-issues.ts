import { z } from 'zod'
import { givenOnce, shown } from './parameters.js'

type Issue = z.core.$ZodRawIssue

function zodWording(issue: Issue): string {
  const worded = z.config().localeError?.(issue)
  return (typeof worded === 'string' ? worded : worded?.message) ?? 'Invalid input'
}

/**
 * The 400 message of a parameter whose schema words none itself (an enum, a pattern):
 * it names the parameter and says what was wrong, in the words of the parameters that
 * do (parameters.ts). Issues without a path (a whole query or body) keep the schema's
 * or zod's message.
 */
export function parameterIssueMessage(issue: Issue): string | undefined {
  const name = (issue.path ?? []).map(String).join('.')
  if (name === '') return undefined
  if (Array.isArray(issue.input)) return givenOnce(name)
  if (issue.code === 'invalid_value') {
    const values = issue.values.map(String)
    const expected = values.length === 1 ? `must be ${values[0]}` : `must be one of ${values.join(', ')}`
    return `${name} ${expected} (got "${shown(issue.input)}")`
  }
  if (issue.code === 'invalid_format' && issue.format === 'regex' && 'pattern' in issue) {
    return `${name} must match ${String(issue.pattern)} (got "${shown(issue.input)}")`
  }
  return `${name} is not valid (got "${shown(issue.input)}"): ${zodWording(issue)}`
}
