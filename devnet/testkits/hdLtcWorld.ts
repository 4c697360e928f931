/**
 * An HD LTC wallet (the real coins entry, `m/44'/2'`, from the BIP39 test mnemonic) over the devnet
 * Electrum server on regtest litecoind, with the service started in `enable_hd` mode: the world
 * the HD UTXO tests share.
 */
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../litecoind/litecoind.ts';
import { p2pkhAddress } from '../litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../electrum/electrumServer.ts';
import { realCoinEntries } from '../data/index.ts';
import { startStack, startTestDevnet, type Stack } from '../testing/stack.ts';
import type { EvmDevnet } from '../evm/evmDevnet.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';

export const HD_TEST_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

export interface HdLtcWorld {
  readonly node: Litecoind;
  readonly electrum: ElectrumServer;
  readonly devnet: EvmDevnet;
  readonly s: Stack;
  /** hash160 of the key at External `addressId` of account 0. */
  hashOf(addressId: number): Promise<Buffer>;
  /** That address as the LTC entry shows it (pubtype 48). */
  ltcAddress(addressId: number): Promise<string>;
  /** The `task::enable_utxo` task's final status (`Ok` or `Error`). */
  finished(taskId: number): Promise<any>;
  stop(): Promise<void>;
}

/** Starts litecoind and funds `funding` (External address index → litoshis, one block each, in index order), then the Electrum server and the service. */
export async function startHdLtcWorld(funding: Readonly<Record<number, bigint>>): Promise<HdLtcWorld> {
  const keys = createHdKeyProvider(HD_TEST_MNEMONIC);
  const [ltc] = (await realCoinEntries(['LTC'])) as [Record<string, unknown>];
  const hashOf = async (addressId: number) =>
    Buffer.from(btcCrypto.hash160(Buffer.from((await keys.publicKey(ltc as never, { accountId: 0, chain: 'External', addressId })).compressed)));
  const ltcAddress = async (addressId: number) => payments.p2pkh({ hash: await hashOf(addressId), network: { pubKeyHash: 48 } as never }).address!;
  const [node, devnet] = await Promise.all([startLitecoind(), startTestDevnet()]);
  for (const [index, litoshis] of Object.entries(funding)) await node.fund(p2pkhAddress(await hashOf(Number(index))), litoshis, 1);
  const electrum = await startElectrumServer({ litecoind: node, transports: ['TCP'] });
  const s = await startStack({ devnet, config: { enable_hd: true, passphrase: HD_TEST_MNEMONIC }, extraCoins: [ltc] });
  return {
    node,
    electrum,
    devnet,
    s,
    hashOf,
    ltcAddress,
    async finished(taskId) {
      for (let i = 0; i < 5_000; i++) {
        const { body } = await s.v2('task::enable_utxo::status', { task_id: taskId, forget_if_finished: false });
        if (body.result.status === 'Ok' || body.result.status === 'Error') return body.result;
        await new Promise((r) => setTimeout(r, 2));
      }
      throw new Error('task did not finish');
    },
    async stop() {
      await s.stop();
      await electrum.stop();
      await node.stop();
      await devnet.stop();
    },
  };
}
