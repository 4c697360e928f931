/**
 * A gas price in gwei, as `coin_status` (`gas_station.gas_price_gwei`) and the coin's KV value
 * (`gasPrice.gasPriceGwei`) show it: wei formatted with 9 decimals by the one amount formatter.
 */
import { formatAmount } from '../amount.ts';

/** Wei per gwei, as decimals of the amount formatter. */
const GWEI_DECIMALS = 9;

/** A price in wei (an integer's decimal string) in gwei, exactly: `"75000000001"` → `"75.000000001"`. */
export function gweiOf(wei: string): string {
  return formatAmount(BigInt(wei), GWEI_DECIMALS);
}
