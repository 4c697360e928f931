/**
 * Origin of a node URL (scheme, host, port): safe to show in errors and events, unlike paths and
 * queries, which often hold API keys. A scheme without a web origin (`tcp://…`) keeps its host.
 */
export function urlLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' ? `${parsed.protocol}//${parsed.host}` : parsed.origin;
  } catch {
    return '(invalid url)';
  }
}
