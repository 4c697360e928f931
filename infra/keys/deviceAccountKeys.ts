/**
 * The keys of one HD account from its public node, as a hardware device gives it (the account's
 * extended public key: public key and chain code at `derivation_path/<account>'`). An address is
 * two non-hardened public steps below it (`chain/address_index`), derived here, so a gap-limit scan
 * asks the device once, not once per address. Holds no secret: the node is public.
 */
import { CHAIN_INDEX, chainIndex, checkIndex, derivePublicChild, publicNode, type PublicNode } from './bip32.ts';
import { DerivationMethod, type HdKeyProvider, type KeyCoin } from '../../actors/ports/keyProvider.ts';
import type { DeviceAccountNode } from '../../machines/activation.types.ts';
import { invalidRequest } from '../../spec/errors.ts';

/**
 * An {@link HdKeyProvider} for `account` only: `walletId` is the id its activation records the
 * address counts under. Another account is refused (`InvalidRequest`): the device gave this one.
 */
export function createDeviceAccountKeys(account: DeviceAccountNode, walletId: string): HdKeyProvider {
  const root = publicNode(account.publicKeyHex, account.chainCodeHex);
  const chains: Readonly<Record<'External' | 'Internal', PublicNode>> = {
    External: derivePublicChild(root, CHAIN_INDEX.External),
    Internal: derivePublicChild(root, CHAIN_INDEX.Internal),
  };
  const accountPath = (coin: KeyCoin, accountId: number): string => {
    if (checkIndex('account_id', accountId) !== account.accountId) {
      throw invalidRequest(`${coin.coin}: the device gave account ${account.accountId} (${account.derivationPath}), not account ${accountId}`);
    }
    return account.derivationPath;
  };
  return {
    derivationMethod: DerivationMethod.HDWallet,
    walletId,
    accountPath,
    addressPath: (coin, path) => `${accountPath(coin, path.accountId)}/${chainIndex(path.chain)}/${checkIndex('address_id', path.addressId)}`,
    async publicKey(coin, path = { accountId: account.accountId, chain: 'External', addressId: 0 }) {
      accountPath(coin, path.accountId);
      chainIndex(path.chain);
      const { publicKey } = derivePublicChild(chains[path.chain], checkIndex('address_id', path.addressId));
      return { ...publicKey, compressed: publicKey.compressed.slice() };
    },
  };
}
