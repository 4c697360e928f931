/** Key providers and address encodings (docs/compatibility.md §6). Private keys never leave a provider. */
export { evmAddress, hash160, p2pkhAddress, tronAddress } from './addresses.ts';
export { evmToTronBase58, evmToTronHex, tronToEvmAddress } from './tronAddress.ts';
export { createIguanaKeyProvider, type IguanaKeyProvider } from './iguana.ts';
export { InvalidPrivateKeyError, IguanaKeySource } from './iguanaSeed.ts';
export { createHdKeyProvider } from './hd.ts';
export { InvalidMnemonicError, MnemonicProblem } from './mnemonic.ts';
export { type PassphraseInput } from './secrecy.ts';
export {
  DerivationMethod,
  isHdKeyProvider,
  type AddressPath,
  type HdKeyProvider,
  type KeyCoin,
  type KeyProvider,
  type PublicKey,
} from '../../actors/ports/keyProvider.ts';
