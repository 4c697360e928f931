/**
 * Gas price from an ethgasstation-style HTTP API (legacy `enable`, spec 4.7): `GET <url>` answers
 * `{"fast": <n>, "average": <n>, …}` (Polygon's station names `average` `standard`).
 *
 * The rule is the reference's (older mm2 `GasStationData`, before EIP-1559 pricing replaced it):
 * a station number `n` means `n × 10^decimals` wei, truncated to an integer; `decimals` defaults to
 * 8, ethgasstation's unit of 10^8 wei (so `10` there is 1 gwei), and Polygon's station, which
 * answers in gwei, uses 9. Policy `Average` takes `average`; `MeanAverageFast` the exact mean
 * `(average + fast) / 2`, truncated only after scaling. E.g. average 500, fast 1000, decimals 8 →
 * 750 × 10^8 wei = 75 gwei.
 */
import { ErrorType, errorSentence } from '../../spec/errors.ts';
import type { GasStationSpec } from '../../actors/ports/chainFamily.ts';
import type { Clock } from '../../kernel/clock.ts';
import { urlLabel } from '../../kernel/urlLabel.ts';
import { describeFailure, getBoundedText } from '../http/boundedGet.ts';

/** A station answer this large is not a gas station's. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** A decimal number as an exact fraction `digits / 10^scale`. */
interface ExactDecimal {
  readonly digits: bigint;
  readonly scale: number;
}

/** The station's price in wei under `policy`, or throws an `Error` saying what is wrong with `answer`. */
export function gasPriceFromStation(answer: unknown, decimals: number, policy: GasStationSpec['policy']): bigint {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw new Error('the answer is not a JSON object');
  const fields = answer as Record<string, unknown>;
  const average = stationNumber(fields['average'] ?? fields['standard'], '"average" (or "standard")');
  const fast = stationNumber(fields['fast'], '"fast"');
  const scale = Math.max(average.scale, fast.scale);
  const at = (n: ExactDecimal) => n.digits * 10n ** BigInt(scale - n.scale);
  // Sum before dividing so the mean stays exact until the final truncation.
  const [numerator, halves] = policy === 'Average' ? [at(average), 1n] : [at(average) + at(fast), 2n];
  return (numerator * 10n ** BigInt(decimals)) / (halves * 10n ** BigInt(scale));
}

/**
 * Queries the station (aborted with `signal`, or after `timeoutMs` on `clock`) and prices gas from
 * its answer. Any failure is the legacy error of spec 7.2, naming the station's origin only (its
 * path or query may hold an API key).
 */
export async function readGasStationPrice(
  station: GasStationSpec,
  signal: AbortSignal,
  options: { readonly clock: Clock; readonly timeoutMs: number },
): Promise<bigint> {
  const timeout = new AbortController();
  const cancelTimer = options.clock.setTimeout(() => timeout.abort(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
  try {
    const text = await getBoundedText(station.url, { signal: AbortSignal.any([signal, timeout.signal]), maxBytes: MAX_ANSWER_BYTES });
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new Error('the answer is not JSON');
    }
    return gasPriceFromStation(answer, station.decimals, station.policy);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const reason = timeout.signal.aborted ? (timeout.signal.reason as Error).message : describeFailure(error);
    const message = `Failed to get the gas price from the gas station ${urlLabel(station.url)}: ${reason}`;
    throw errorSentence(ErrorType.Transport, message, { cause: error });
  } finally {
    cancelTimer();
  }
}

/**
 * A non-negative station number, exactly: a decimal string as written, a JSON number through its
 * shortest decimal form (exact for up to 15 significant digits, as any station sends).
 */
function stationNumber(value: unknown, name: string): ExactDecimal {
  if (value === undefined || value === null) throw new Error(`the answer has no ${name}`);
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  const match = text === undefined ? null : /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  const exponent = Number(match?.[3] ?? 0);
  if (!match || Math.abs(exponent) > 100) {
    throw new Error(`the answer's ${name} is not a non-negative decimal number (got ${JSON.stringify(value).slice(0, 40)})`);
  }
  const fraction = match[2] ?? '';
  const scale = fraction.length - exponent;
  const digits = BigInt(`${match[1]}${fraction}`);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}
