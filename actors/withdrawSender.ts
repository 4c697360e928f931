/**
 * The sender of a withdrawal (spec 2.3 WithdrawFromInfo, docs/compatibility.md §23): an Iguana or
 * one-address key sends from its address (a `from` naming another is refused); an HD account sends
 * from the enabled address, or from `from` when it names an address the wallet knows (one the
 * activation listed). The one place of this rule for every family.
 */
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { WithdrawFrom, WithdrawSender } from '../spec/withdraw.ts';
import type { ActivatedCoin } from '../machines/activation.types.ts';

const CHAINS = ['External', 'Internal'] as const;

const unexpected = (message: string) => new ActivationError(ErrorType.UnexpectedFromAddress, message, message);

/** `…/account'/chain/index` → the address path below the account, if `path` is one. */
function addressPathOf(path: string): WithdrawSender['addressPath'] {
  const match = /\/(\d+)'\/([01])\/(\d+)$/.exec(path);
  if (!match) return undefined;
  return { accountId: Number(match[1]), chain: CHAINS[Number(match[2])]!, addressId: Number(match[3]) };
}

function senderAt(address: string, derivationPath: string | undefined): WithdrawSender {
  if (derivationPath === undefined) return { address };
  const addressPath = addressPathOf(derivationPath);
  return { address, derivationPath, ...(addressPath === undefined ? {} : { addressPath }) };
}

/** The sender of `coin` for `from` (absent: its enabled address). */
export function resolveSender(coin: ActivatedCoin, from: WithdrawFrom | undefined): WithdrawSender {
  const enabled = senderAt(coin.address, coin.derivationPath);
  if (from === undefined) return enabled;
  const hd = coin.hd;
  if (hd === undefined) {
    if (coin.derivationPath === undefined) throw unexpected("'from' is not supported if the coin is initialized with an Iguana private key");
    // A one-address hardware key: `from` may only name that address.
    const path = 'derivationPath' in from ? from.derivationPath : undefined;
    if (path === coin.derivationPath) return enabled;
    throw unexpected(`'from' must be ${coin.derivationPath}: the coin is enabled with one hardware address`);
  }
  const path = 'derivationPath' in from ? from.derivationPath : `${hd.accountPath}/${CHAINS.indexOf(from.chain)}/${from.addressId}`;
  if (!('derivationPath' in from) && from.accountId !== hd.accountId) {
    throw new ActivationError(ErrorType.UnknownAccount, `Unknown account ${from.accountId}: the coin is enabled on account ${hd.accountId}`, { account_id: from.accountId });
  }
  if (!path.startsWith(`${hd.accountPath}/`)) throw unexpected(`'${path}' is not an address of the enabled account ${hd.accountPath}`);
  const listed = hd.addresses.find((a) => a.derivationPath === path);
  if (listed === undefined) throw unexpected(`'${path}' address is not activated`);
  return senderAt(listed.address, listed.derivationPath);
}
