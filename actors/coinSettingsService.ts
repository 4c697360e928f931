/**
 * Reading and changing the settings of enabled coins (issue 13): `coin_status` reads them from the
 * coin statuses the log builds (the KV values), the setters go through the coin's machine (a
 * token's: its platform's), each change one event. Knows nothing of wire shapes.
 */
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { CoinSettings } from '../spec/coinSettings.ts';
import type { CoinStatusView, GasPriceView } from '../spec/render/coinStatus.ts';
import type { EnabledCoinsProjection } from '../events/projections/enabledCoins.ts';
import type { CoinStatusesProjection } from '../events/projections/coinStatuses.ts';
import type { CoinStatus } from '../events/projections/coinStatus.ts';
import type { SettingChange } from '../machines/activation.types.ts';
import type { CoinRegistry } from './coinRegistry.ts';

/** How a refusal names the missing coin: the v2 form (`{coin}`, HTTP 404) or the legacy sentence. */
export const NoSuchCoinForm = { V2: 'v2', Legacy: 'legacy' } as const;
export type NoSuchCoinForm = (typeof NoSuchCoinForm)[keyof typeof NoSuchCoinForm];

/** `NoSuchCoin` as the reference answers it: v2 `error_data: {coin}` with 404, legacy the sentence. */
export function noSuchCoin(ticker: string, form: NoSuchCoinForm): ActivationError {
  const message = `No such coin ${ticker}`;
  return form === NoSuchCoinForm.V2
    ? new ActivationError(ErrorType.NoSuchCoin, message, { coin: ticker }, { httpStatus: 404 })
    : new ActivationError(ErrorType.NoSuchCoin, message, ticker);
}

export class CoinSettingsService {
  readonly #registry: Pick<CoinRegistry, 'changeSetting'>;
  readonly #enabledCoins: Pick<EnabledCoinsProjection, 'find'>;
  readonly #statuses: Pick<CoinStatusesProjection, 'get'>;
  readonly #gasPrice: (platform: string) => GasPriceView | undefined;

  constructor(deps: {
    registry: Pick<CoinRegistry, 'changeSetting'>;
    enabledCoins: Pick<EnabledCoinsProjection, 'find'>;
    statuses: Pick<CoinStatusesProjection, 'get'>;
    /** The gas price of a coin's station (a platform's or a coin of its own), when one is known. */
    gasPrice?: (platform: string) => GasPriceView | undefined;
  }) {
    this.#registry = deps.registry;
    this.#enabledCoins = deps.enabledCoins;
    this.#statuses = deps.statuses;
    this.#gasPrice = deps.gasPrice ?? (() => undefined);
  }

  /**
   * The status of an enabled coin (a passive platform too: it is kept for its tokens) or token,
   * as its events built it. `NoSuchCoin` (v2 form) for anything else, unknown tickers included.
   */
  status(ticker: string): CoinStatusView {
    const enabled = this.#enabledCoins.find(ticker);
    const owner = enabled?.platform ?? ticker;
    const status = enabled === undefined ? undefined : this.#statuses.get(owner);
    const settings = status?.settings?.[ticker];
    if (status === undefined || settings === undefined || status.address === undefined || status.state === 'inactive') {
      throw noSuchCoin(ticker, NoSuchCoinForm.V2);
    }
    const token = enabled?.platform === undefined ? undefined : status.tokens?.find((t) => t.ticker === ticker);
    const gasPrice = settings.gasStation === null ? undefined : this.#gasPrice(owner);
    return {
      ticker,
      state: token === undefined ? status.state : 'active',
      ...(token === undefined ? {} : { platform: owner }),
      address: status.address,
      derivationMethod: status.derivationMethod ?? 'Iguana',
      settings,
      ...(token === undefined ? { tokens: (status.tokens ?? []).map((t) => t.ticker) } : {}),
      activatedAt: activatedAt(status, token?.activatedAt),
      ...(gasPrice === undefined ? {} : { gasPrice }),
    };
  }

  /** `set_required_confirmations`: the coin's confirmations from now on (legacy `NoSuchCoin` when not available). */
  async setRequiredConfirmations(ticker: string, confirmations: number): Promise<CoinSettings['requiredConfirmations']> {
    await this.#change(ticker, { setting: 'requiredConfirmations', value: confirmations });
    return confirmations;
  }

  /** `set_requires_notarization`: kept as given for every coin (docs/compatibility.md §13). */
  async setRequiresNotarization(ticker: string, requiresNotarization: boolean): Promise<boolean> {
    await this.#change(ticker, { setting: 'requiresNotarization', value: requiresNotarization });
    return requiresNotarization;
  }

  async #change(ticker: string, change: SettingChange): Promise<void> {
    const owner = this.#enabledCoins.find(ticker)?.platform ?? ticker;
    if (!(await this.#registry.changeSetting(owner, ticker, change))) throw noSuchCoin(ticker, NoSuchCoinForm.Legacy);
  }
}

/** A token's own time, else the coin's (every enabled coin has one since settings are kept). */
function activatedAt(status: CoinStatus, tokenTime: string | undefined): string {
  return tokenTime ?? status.activatedAt ?? status.updatedAt;
}
