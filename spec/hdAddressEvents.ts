import { Type, type Static } from '@sinclair/typebox';
import { EventBalance, event } from './eventParts.ts';

/**
 * The events of an enabled coin's HD account growing (issue 26, docs/events.md): an address handed
 * out by `get_new_address`, addresses found by `scan_for_new_addresses`. On the coin's stream, after
 * its `CoinActivated`; the HD address counts (events/projections/hdAddresses.ts) take them in, so a
 * restart or a replay knows every address the wallet handed out. Public data only.
 */

const Chain = Type.Union([Type.Literal('External'), Type.Literal('Internal')]);

/** One address of an HD account with its balances, keyed by ticker (the coin and its tokens). */
export const NewAddressRead = Type.Object({
  address: Type.String(),
  derivationPath: Type.String(),
  chain: Chain,
  /** The address id on its chain (the last part of `derivationPath`). */
  addressIndex: Type.Integer({ minimum: 0 }),
  /** Keyed by ticker; empty for an unused address a scan passed on its way to a used one. */
  balances: Type.Record(Type.String(), EventBalance),
});
export type NewAddressRead = Static<typeof NewAddressRead>;

/** What a `task::scan_for_new_addresses` found: every address added to the account, both chains. */
export const ScannedAddressesRead = Type.Object({
  accountIndex: Type.Integer({ minimum: 0 }),
  accountPath: Type.String(),
  addresses: Type.Array(NewAddressRead),
});
export type ScannedAddressesRead = Static<typeof ScannedAddressesRead>;

/** `get_new_address` handed out the address at `addressIndex` of the account's `chain`. */
export const AddressCreated = event(
  'AddressCreated',
  Type.Object({
    ticker: Type.String(),
    /** The wallet the account belongs to (a public id, as in `CoinActivated.hd`). */
    walletId: Type.String(),
    accountIndex: Type.Integer({ minimum: 0 }),
    ...NewAddressRead.properties,
  }),
);

/**
 * A scan of the account's `chain` beyond its known addresses: `addresses` were added (unused ones
 * before the last used one included), and `knownAddresses` of the chain are known now.
 */
export const AddressesScanned = event(
  'AddressesScanned',
  Type.Object({
    ticker: Type.String(),
    walletId: Type.String(),
    accountIndex: Type.Integer({ minimum: 0 }),
    chain: Chain,
    knownAddresses: Type.Integer({ minimum: 0 }),
    addresses: Type.Array(NewAddressRead),
  }),
);
