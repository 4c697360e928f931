/** A node transport failure (refused, HTTP error, malformed body, closed socket): the next node should be tried. */
export class EvmNodeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EvmNodeError';
  }
}
