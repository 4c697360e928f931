/**
 * The gas price part of `coin_status`'s `gas_station` (issue 13): the price in gwei as an exact
 * decimal string (wei formatted with 9 decimals by the one amount formatter), when the station
 * answered it, and whether refreshes have failed since.
 */
import { formatAmount } from '../amount.ts';

/** Wei per gwei, as decimals of the amount formatter. */
const GWEI_DECIMALS = 9;

/** A coin's gas price as its projection holds it (exact wei as a decimal string). */
export interface GasPriceView {
  readonly gasPriceWei: string;
  readonly updatedAt: string;
  readonly stale: boolean;
}

/** A price in wei (an integer's decimal string) in gwei, exactly: `"75000000001"` → `"75.000000001"`. */
export function gweiOf(wei: string): string {
  return formatAmount(BigInt(wei), GWEI_DECIMALS);
}

/** Wire form: `{gas_price_gwei, updated_at, stale}`. */
export function renderGasPrice(view: GasPriceView): { gas_price_gwei: string; updated_at: string; stale: boolean } {
  return { gas_price_gwei: gweiOf(view.gasPriceWei), updated_at: view.updatedAt, stale: view.stale };
}
