/**
 * A user's string as a literal inside a regular expression: every character with a meaning
 * there is escaped, so an id such as `(a|a)*b` matches itself and cannot backtrack.
 */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
