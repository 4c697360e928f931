/**
 * Origin of a node URL (scheme, host, port): safe to show in errors and events, unlike paths and
 * queries, which often hold API keys.
 */
export function urlLabel(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}
