import { ErrorType, errorSentence } from '../../spec/errors.ts';
import type { Clock } from '../../kernel/clock.ts';
import { AllNodesFailedError, tryNodesInOrder } from './nodeFailover.ts';
import { urlLabel } from '../../kernel/urlLabel.ts';
import { TokenReadError } from './tokenReadError.ts';
import type { BusyNodes } from './busyNodes.ts';

/** A node as a family reads it: its URL, or an object that has one (with transport details). */
export type NodeAddress = string | { readonly url: string };

/** Nodes of an active coin, best first: the one that last answered moves to the front. */
export interface NodeList<N extends NodeAddress = string> {
  nodes: readonly N[];
}

export interface NodeListOptions {
  readonly clock: Clock;
  /** Budget of one node before the next is tried. */
  readonly timeoutMs: number;
  /** The service's book of busy nodes, shared by every coin (see {@link BusyNodes}). */
  readonly busyNodes: BusyNodes;
}

/**
 * Runs `work` against `list`'s nodes with the service's one failover policy (`tryNodesInOrder`),
 * for every chain family. A token error stops the failover; it and "every node failed" become a
 * `Transport` error naming node origins only (URLs may hold API keys). A busy node (HTTP 429, a
 * rate-limit error) is skipped until its `Retry-After`. `signal` aborts everything.
 */
export async function readFromNodes<T, N extends NodeAddress = string>(
  list: NodeList<N>,
  signal: AbortSignal,
  options: NodeListOptions,
  work: (node: N, nodeSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  const nodes = list.nodes;
  try {
    const { value, index } = await tryNodesInOrder(nodes.length, (i, nodeSignal) => work(nodes[i]!, nodeSignal), {
      clock: options.clock,
      timeoutMs: options.timeoutMs,
      signal,
      label: (i) => urlLabel(urlOf(nodes[i]!)),
      isFatal: (e) => e instanceof TokenReadError,
      busy: { book: options.busyNodes, key: (i) => urlOf(nodes[i]!) },
    });
    if (index > 0) list.nodes = [nodes[index]!, ...nodes.filter((_, i) => i !== index)];
    return value;
  } catch (error) {
    if (error instanceof AllNodesFailedError || error instanceof TokenReadError) {
      throw errorSentence(ErrorType.Transport, error.message, { cause: error });
    }
    throw error;
  }
}

function urlOf(node: NodeAddress): string {
  return typeof node === 'string' ? node : node.url;
}
