/** The human-readable report: one table row per N and path, then the target verdict and any notes. */
import type { BenchConfig } from './benchConfig.ts';
import { PATHS, TARGET_CALLS, TARGET_N, TARGET_ROUND_TRIPS, TARGET_SLACK_MS, type PathName, type Row } from './analysis.ts';
import type { Summary } from './stats.ts';

const PATH_LABELS: Readonly<Record<PathName, string>> = {
  multicall: 'multicall (known node)',
  firstContact: 'multicall (first contact)',
  plain: 'plain batched (today)',
  baseline: 'sequential (reference)',
};

/** `7` when every run agreed, `6–7` otherwise. */
export function count(s: Summary): string {
  return s.min === s.max ? String(s.min) : `${s.min}–${s.max}`;
}

/** `62.2 [60.1–70.3]`: median [min–max], ms. */
export function wall(s: Summary): string {
  return `${s.median.toFixed(1)} [${s.min.toFixed(1)}–${s.max.toFixed(1)}]`;
}

/** A Markdown-style table; the first column left-aligned, the others right-aligned. */
export function renderTable(headers: readonly string[], cells: readonly (readonly string[])[]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: readonly string[]) => `| ${values.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)];
}

/** Where the multicall path's time goes, beside the plain path's: node execution and our CPU, apart. */
function renderBreakdown(rows: readonly Row[], latencyMs: number): string[] {
  const cells = rows.map((r) => [
    String(r.n),
    (r.paths.plain.wallMs.median - latencyMs).toFixed(1),
    r.diagnostics.plainNodeMs.median.toFixed(1),
    (r.paths.multicall.wallMs.median - latencyMs).toFixed(1),
    r.diagnostics.multicallNodeMs.median.toFixed(1),
    r.diagnostics.encodeMs.median.toFixed(2),
    r.diagnostics.decodeMs.median.toFixed(2),
  ]);
  return [
    'Diagnostic: beyond the injected latency (medians, ms). "devnet alone" = the same calls posted straight to the devnet (no proxy);',
    'encode/decode = our aggregate3 ABI code on the same N + 1 reads, in this process.',
    ...renderTable(['tokens N', 'plain wall − latency', 'devnet alone, N+2 calls', 'multicall wall − latency', 'devnet alone, aggregate3', 'our encode', 'our decode'], cells),
  ];
}

/** Renders the tables and the lines under them (target verdict, breakdown, surprises). */
export function renderReport(rows: readonly Row[], config: BenchConfig): string {
  const cells = rows.flatMap((r) =>
    PATHS.map((p) => {
      const s = r.paths[p];
      return [String(r.n), PATH_LABELS[p], count(s.rpcCalls), count(s.httpRequests), count(s.roundTrips), wall(s.wallMs)];
    }),
  );
  const out = [
    `enable_eth_with_tokens: multicall vs today's plain batch vs the reference's sequential requests — latency ${config.latencyMs} ms/round trip, batch size ${config.batchSize} (${config.batchSizeSource}), ${config.runs} runs per cell`,
    '',
    ...renderTable(['tokens N', 'path', 'node calls', 'HTTP requests', 'round trips', 'wall ms (median [min–max])'], cells),
    '',
    'Ratios of the multicall path (known node), medians: plain / multicall and sequential / multicall',
    ...renderTable(
      ['tokens N', 'calls vs plain', 'wall vs plain', 'wall vs sequential'],
      rows.map((r) => [String(r.n), `${r.ratios.vsPlainCalls.toFixed(1)}×`, `${r.ratios.vsPlainWall.toFixed(2)}×`, `${r.ratios.vsBaselineWall.toFixed(1)}×`]),
    ),
    '',
  ];
  const targetRow = rows.find((r) => r.target);
  if (targetRow?.target) {
    const t = targetRow.target;
    const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
    const mc = targetRow.paths.multicall;
    const fc = targetRow.paths.firstContact;
    out.push(
      `Target: ETH + ${TARGET_N} tokens in <= ${TARGET_CALLS} node calls and ${TARGET_ROUND_TRIPS} round trip, also on first contact: ${t.met ? 'MET' : '*** MISSED ***'}`,
      `  known node: ${mc.rpcCalls.max} calls (worst run) → ${mark(t.callsOk)}`,
      `  first contact: ${fc.rpcCalls.max} calls (worst run) → ${mark(t.firstContactCallsOk)}`,
      `  round trips: ${Math.max(mc.roundTrips.max, fc.roundTrips.max)} (worst run of both) → ${mark(t.roundTripsOk)}`,
      `  (informational) median wall < ${config.latencyMs} + ${TARGET_SLACK_MS} = ${t.wallLimitMs} ms: ${mc.wallMs.median.toFixed(1)} ms → ${t.wallOk ? 'yes' : 'no'}`,
    );
  }
  out.push('', ...renderBreakdown(rows, config.latencyMs));
  const notes = rows.flatMap((r) => r.notes);
  out.push(
    '',
    notes.length === 0
      ? 'Traffic as designed: multicall 1 + ceil((N+1)/100) calls (+1 eth_getCode on first contact), plain N+2 batched, sequential N+2 one at a time.'
      : 'Surprises:',
  );
  out.push(...notes.map((n) => `  - ${n}`));
  return out.join('\n');
}
