/** The human-readable report: one table row per N, then the target verdict and any notes. */
import type { BenchConfig } from './benchConfig.ts';
import { TARGET_N, TARGET_SLACK_MS, TARGET_SPEEDUP, type Row } from './analysis.ts';
import type { Summary } from './stats.ts';

const HEADERS = [
  'tokens N',
  'ours requests',
  'ours max in flight',
  'ours wall ms (median [min–max])',
  'baseline requests',
  'baseline wall ms (median [min–max])',
  'speed-up ×',
  'target check',
] as const;

/** `7` when every run agreed, `6–7` otherwise. */
export function count(s: Summary): string {
  return s.min === s.max ? String(s.min) : `${s.min}–${s.max}`;
}

/** `62.2 [60.1–70.3]`: median [min–max], ms. */
export function wall(s: Summary): string {
  return `${s.median.toFixed(1)} [${s.min.toFixed(1)}–${s.max.toFixed(1)}]`;
}

function targetCell(row: Row): string {
  const t = row.target;
  if (!t) return '—';
  return t.met ? 'MET' : 'MISSED';
}

/** A Markdown-style table; the first column left-aligned, the others right-aligned. */
export function renderTable(headers: readonly string[], cells: readonly (readonly string[])[]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: readonly string[]) => `| ${values.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)];
}

/** Where ours' time beyond the injected latency goes: the devnet's own batch time vs the rest. */
function renderBreakdown(rows: readonly Row[]): string[] {
  const cells = rows.map((r) => [
    String(r.n),
    r.oursBeyondLatencyMs.toFixed(1),
    r.nodeBatchMs.median.toFixed(1),
    (r.oursBeyondLatencyMs - r.nodeBatchMs.median).toFixed(1),
  ]);
  return [
    'Diagnostic: ours beyond the injected latency (medians, ms)',
    ...renderTable(['tokens N', 'ours wall − latency', 'devnet alone, same batch direct', 'rest: service, proxy hop, HTTP'], cells),
  ];
}

/** Renders the table and the lines under it (verdict detail, breakdown, surprises). */
export function renderReport(rows: readonly Row[], config: BenchConfig): string {
  const cells = rows.map((r) => [
    String(r.n),
    count(r.ours.httpRequests),
    count(r.ours.maxInFlight),
    wall(r.ours.wallMs),
    count(r.baseline.httpRequests),
    wall(r.baseline.wallMs),
    `${r.speedup.toFixed(1)}×`,
    targetCell(r),
  ]);
  const out = [
    `enable_eth_with_tokens vs sequential baseline — latency ${config.latencyMs} ms/round trip, batch size ${config.batchSize} (${config.batchSizeSource}), ${config.runs} runs per cell`,
    '',
    ...renderTable(HEADERS, cells),
    '',
  ];
  const targetRow = rows.find((r) => r.target);
  if (targetRow?.target) {
    const t = targetRow.target;
    const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
    const maxRequests = targetRow.ours.httpRequests.max;
    out.push(
      `Target at N=${TARGET_N}: ${t.met ? 'MET' : '*** MISSED ***'}`,
      `  requests <= ceil(${TARGET_N + 2}/${config.batchSize}) = ${t.requestLimit}: ${maxRequests} (worst run) → ${mark(t.requestsOk)}`,
      `  all requests concurrent (max in flight = requests, every run): ${mark(t.concurrentOk)}`,
      `  median wall < ${config.latencyMs} + ${TARGET_SLACK_MS} = ${t.wallLimitMs} ms: ${targetRow.ours.wallMs.median.toFixed(1)} ms → ${mark(t.wallOk)}`,
      `  (informational) speed-up > ${TARGET_SPEEDUP}×: ${targetRow.speedup.toFixed(1)}× → ${t.speedupOk ? 'yes' : 'no'}`,
    );
  }
  out.push('', ...renderBreakdown(rows));
  const notes = rows.flatMap((r) => r.notes);
  out.push('', notes.length === 0 ? 'Traffic as designed: ours ceil((N+2)/batch) concurrent requests, baseline N+2 sequential ones, N+2 calls each.' : 'Surprises:');
  out.push(...notes.map((n) => `  - ${n}`));
  return out.join('\n');
}
