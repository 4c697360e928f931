/**
 * A second litecoind wallet that holds the service's own key (`importprivkey`), so that regtest can
 * make transactions to and from the service's addresses, and say what its history is
 * (`gettransaction`): what the history tests and the benchmark compare the service's answers with.
 */
import { encodeBase58Check, Base58Checksum } from '../../infra/keys/base58check.ts';
import { amountField, formatCoinAmount, parseRpcJsonExact } from '../../infra/utxo/daemonAmounts.ts';
import { createRpcClient, type RpcCall } from '../../infra/utxo/daemonRpc.ts';
import type { Litecoind } from './litecoind.ts';

/** Regtest WIF prefix. */
const REGTEST_WIF = 0xef;

export interface WalletPair {
  /** The node's own wallet (`devnet`, with the mined coins), amounts exact. */
  readonly node: RpcCall;
  /** The wallet holding the service's keys, amounts exact. */
  readonly ours: RpcCall;
  /** Sends from the node's wallet to each address, one transaction (`sendmany`); returns the txid. */
  sendMany(outputs: Readonly<Record<string, bigint>>): Promise<string>;
  /** Spends the service's coins to each address, the change back to `change` (the service's address); returns the txid. */
  spend(outputs: Readonly<Record<string, bigint>>, change: string): Promise<string>;
}

/** A transaction of `ours` as litecoind sees it. */
export interface WalletTx {
  readonly txid: string;
  /** Net change of the wallet's balance, fee included (litoshis). */
  readonly balanceChange: bigint;
  /** The fee, from whichever of the two wallets paid it (litoshis). */
  readonly fee: bigint;
  readonly confirmations: number;
  readonly blockHeight: number;
  readonly blockTime: number;
}

/**
 * Creates the wallet `ours` holding `privateKeys` (32 bytes each, compressed), without a rescan. It
 * is blank (no keys of its own), so every output it sees is one of the service's addresses.
 */
export async function walletPair(node: Litecoind, privateKeys: readonly Uint8Array[]): Promise<WalletPair> {
  const at = (wallet: string) => createRpcClient({ url: `${node.rpcUrl}/wallet/${wallet}`, user: node.rpcUser, password: node.rpcPassword }, parseRpcJsonExact);
  await node.rpc('createwallet', ['ours', false, true]);
  const ours = at('ours');
  for (const key of privateKeys) {
    const wif = encodeBase58Check(Uint8Array.from([REGTEST_WIF, ...key, 0x01]), Base58Checksum.DoubleSha256);
    await ours('importprivkey', [wif, '', false]);
  }
  const amounts = (outputs: Readonly<Record<string, bigint>>) => Object.fromEntries(Object.entries(outputs).map(([a, v]) => [a, formatCoinAmount(v)]));
  const devnet = at('devnet');
  return {
    node: devnet,
    ours,
    sendMany: (outputs) => devnet<string>('sendmany', ['', amounts(outputs)]),
    async spend(outputs, change) {
      const raw = await ours<string>('createrawtransaction', [[], amounts(outputs)]);
      const funded = await ours<{ hex: string }>('fundrawtransaction', [raw, { changeAddress: change }]);
      const signed = await ours<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [funded.hex]);
      if (!signed.complete) throw new Error('ours could not sign its spend');
      return ours<string>('sendrawtransaction', [signed.hex]);
    },
  };
}

/** Every transaction of `ours` (`listtransactions`, then `gettransaction` each) with its fee. */
export async function walletHistory(pair: WalletPair): Promise<WalletTx[]> {
  const listed = await pair.ours<{ txid: string }[]>('listtransactions', ['*', 100_000, 0, true]);
  const txids = [...new Set(listed.map((t) => t.txid))];
  return Promise.all(
    txids.map(async (txid) => {
      const tx = await pair.ours<{ amount: unknown; fee?: unknown; confirmations: number; blockheight?: number; blocktime?: number }>('gettransaction', [txid, true]);
      const ownFee = tx.fee === undefined ? undefined : amountField(tx.fee);
      // A receipt: the sender (the node's wallet) knows the fee.
      const senderFee = ownFee === undefined ? amountField((await pair.node<{ fee: unknown }>('gettransaction', [txid, true])).fee) : ownFee;
      return {
        txid,
        balanceChange: amountField(tx.amount) + (ownFee ?? 0n),
        fee: -senderFee,
        confirmations: tx.confirmations,
        blockHeight: tx.blockheight ?? 0,
        blockTime: tx.blocktime ?? 0,
      };
    }),
  );
}
