/** The human-readable report: one table row per N and path, then the target verdict and any notes. */
import type { BenchConfig } from './benchConfig.ts';
import { PATHS, TARGET_CALLS, TARGET_N, TARGET_PATHS, TARGET_ROUND_TRIPS, TARGET_SLACK_MS, type PathName, type Row } from './analysis.ts';
import type { Summary } from './stats.ts';

const PATH_LABELS: Readonly<Record<PathName, string>> = {
  multicall: 'Multicall3 chain, known node: aggregate3',
  firstContact: 'Multicall3 chain, first contact: deployless',
  deployless: 'no Multicall3, first contact: deployless',
  plain: 'node refuses no-to calls: plain batched',
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

/** Where each batched path's time goes: node execution and our CPU, apart. */
function renderBreakdown(rows: readonly Row[], latencyMs: number): string[] {
  const beyond = (r: Row, p: PathName) => (r.paths[p].wallMs.median - latencyMs).toFixed(1);
  const node = rows.map((r) => [
    String(r.n),
    beyond(r, 'plain'),
    r.diagnostics.plainNodeMs.median.toFixed(1),
    beyond(r, 'multicall'),
    r.diagnostics.multicallNodeMs.median.toFixed(1),
    beyond(r, 'deployless'),
    r.diagnostics.deploylessNodeMs.median.toFixed(1),
  ]);
  const cpu = rows.map((r) => [
    String(r.n),
    r.diagnostics.encodeMs.median.toFixed(2),
    r.diagnostics.decodeMs.median.toFixed(2),
    r.diagnostics.deploylessEncodeMs.median.toFixed(2),
    r.diagnostics.deploylessDecodeMs.median.toFixed(2),
  ]);
  return [
    'Diagnostic: beyond the injected latency (medians, ms). "devnet alone" = the same calls posted straight to the devnet (no proxy, no',
    'limited node): plain = eth_blockNumber + N + 1 plain calls in one batch; aggregate3 = eth_blockNumber + aggregate3(N + 1 reads);',
    'deployless = eth_blockNumber + the first-contact deployless call(s) on the chain without Multicall3 (probe + N + 1 reads).',
    ...renderTable(['tokens N', 'plain wall − latency', 'devnet alone, plain', 'multicall wall − latency', 'devnet alone, aggregate3', 'deployless wall − latency', 'devnet alone, deployless'], node),
    '',
    'Our CPU on the same reads, in this process (medians, ms):',
    ...renderTable(['tokens N', 'aggregate3 encode', 'aggregate3 decode', 'deployless encode', 'deployless decode'], cpu),
  ];
}

/** Renders the tables and the lines under them (target verdict, breakdown, surprises). */
export function renderReport(rows: readonly Row[], config: BenchConfig): string {
  const cells = rows.flatMap((r) =>
    PATHS.map((p) => {
      const s = r.paths[p];
      return [String(r.n), PATH_LABELS[p], count(s.rpcCalls), count(s.callsWithoutTo), count(s.httpRequests), count(s.roundTrips), wall(s.wallMs)];
    }),
  );
  const ratio = (x: number, digits: number) => `${x.toFixed(digits)}×`;
  const out = [
    `enable_eth_with_tokens: aggregate3 / deployless / plain batched reads vs the reference's sequential requests — latency ${config.latencyMs} ms/round trip, batch size ${config.batchSize} (${config.batchSizeSource}), ${config.runs} runs per cell`,
    '',
    ...renderTable(['tokens N', 'path', 'node calls', 'of them eth_call without to', 'HTTP requests', 'round trips', 'wall ms (median [min–max])'], cells),
    '',
    'Ratios, medians: plain / path and sequential / path, for the multicall path (known node) and the deployless path (no Multicall3)',
    ...renderTable(
      ['tokens N', 'calls plain/multicall', 'wall plain/multicall', 'wall sequential/multicall', 'calls plain/deployless', 'wall plain/deployless', 'wall sequential/deployless'],
      rows.map((r) => [
        String(r.n),
        ratio(r.ratios.vsPlainCalls, 1),
        ratio(r.ratios.vsPlainWall, 2),
        ratio(r.ratios.vsBaselineWall, 1),
        ratio(r.ratios.deploylessVsPlainCalls, 1),
        ratio(r.ratios.deploylessVsPlainWall, 2),
        ratio(r.ratios.deploylessVsBaselineWall, 1),
      ]),
    ),
    '',
  ];
  const targetRow = rows.find((r) => r.target);
  if (targetRow?.target) {
    const t = targetRow.target;
    const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
    out.push(
      `Target: ETH + ${TARGET_N} tokens in <= ${TARGET_CALLS} node calls and ${TARGET_ROUND_TRIPS} round trip, on the chain with Multicall3 (known node and first contact) and on the chain without it (first contact): ${t.met ? 'MET' : '*** MISSED ***'}`,
      ...TARGET_PATHS.map((p) => {
        const x = t.paths[p];
        return `  ${PATH_LABELS[p]}: ${x.calls} calls → ${mark(x.callsOk)}, ${x.roundTrips} round trip(s) → ${mark(x.roundTripsOk)} (worst run)`;
      }),
      `  (informational) multicall (known node) median wall < ${config.latencyMs} + ${TARGET_SLACK_MS} = ${t.wallLimitMs} ms: ${targetRow.paths.multicall.wallMs.median.toFixed(1)} ms → ${t.wallOk ? 'yes' : 'no'}`,
    );
  }
  out.push('', ...renderBreakdown(rows, config.latencyMs));
  const notes = rows.flatMap((r) => r.notes);
  out.push(
    '',
    notes.length === 0
      ? 'Traffic as designed: multicall 1 + ceil((N+1)/100) calls (aggregate3, with to); first contact and no Multicall3 1 + ceil((N+2)/150) calls (deployless, without to); plain N+2 batched; sequential N+2 one at a time.'
      : 'Surprises:',
  );
  out.push(...notes.map((n) => `  - ${n}`));
  return out.join('\n');
}
