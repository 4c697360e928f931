/** Order statistics of a bench's repeated samples. */

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median (mean of the two middle values for an even count), min and max of a non-empty list. */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new Error('cannot summarize an empty sample');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** The `p`-th percentile (0–100) of an ascending-sorted, non-empty sample, by nearest rank. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) throw new Error('cannot take a percentile of an empty sample');
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}
