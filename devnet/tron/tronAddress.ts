/** TRON ⇄ EVM address mapping for the devnet TRON node (the codec itself lives in `infra/keys`). */
import { evmToTronBase58, evmToTronHex } from '../../infra/keys/tronAddress.ts';

export { evmToTronBase58, evmToTronHex, tronToEvmAddress } from '../../infra/keys/tronAddress.ts';

/** The form a TRON HTTP node answers in: base58 when the request said `visible: true`, else hex. */
export function formatTronAddress(evmAddress: string, visible: boolean): string {
  return visible ? evmToTronBase58(evmAddress) : evmToTronHex(evmAddress);
}
