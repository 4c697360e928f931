/** Funding helpers for a devnet litecoind beyond `Litecoind.fund`. */
import { amountField } from '../../infra/utxo/daemonAmounts.ts';
import type { Litecoind } from './litecoind.ts';
import { p2pkhAddress } from './litecoinRegtest.ts';
import { nodeRpc } from '../../infra/utxo/daemonRpc.ts';

/** Litecoin's COINBASE_MATURITY: a coinbase output is spendable from its 100th confirmation on. */
export const COINBASE_MATURITY = 100;

export interface CoinbaseFunding {
  /** The regtest P2PKH address of the hash160. */
  address: string;
  blockHash: string;
  height: number;
  /** The coinbase transaction; its output 0 pays `address`. */
  txid: string;
  /** Output 0's value: the block subsidy (50 LTC below height 150, halving every 150 blocks) plus the fees of the mempool transactions the block took. */
  litoshis: bigint;
}

/**
 * Funds the P2PKH address of `hash160` (20 bytes, hex or raw) with an **immature coinbase**: mines
 * one block whose coinbase pays that address (`mine(1, address)`). A coinbase output needs
 * {@link COINBASE_MATURITY} confirmations before it can be spent, so until 99 more blocks are mined
 * the UTXO shows up in balances and `listunspent` (Electrum too: it does not flag coinbases) but
 * any transaction spending it is rejected (`bad-txns-premature-spend-of-coinbase`).
 */
export async function fundImmatureCoinbase(node: Litecoind, hash160: Uint8Array | string): Promise<CoinbaseFunding> {
  const address = p2pkhAddress(hash160);
  const [blockHash] = await node.mine(1, address);
  const block = await nodeRpc(node, { exactAmounts: true })<{ height: number; tx: { txid: string; vout: { value: unknown }[] }[] }>('getblock', [blockHash, 2]);
  const coinbase = block.tx[0]!;
  return { address, blockHash: blockHash!, height: block.height, txid: coinbase.txid, litoshis: amountField(coinbase.vout[0]!.value) };
}
