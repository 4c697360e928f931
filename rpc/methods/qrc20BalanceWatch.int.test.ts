import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Interface } from 'ethers';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { startEvmDevnet, type EvmDevnet } from '../../devnet/index.ts';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { startStack, TEST_PASSPHRASE } from '../../devnet/testing/stack.ts';
import { eventually } from '../../devnet/testing/tasks.ts';
import type { StoredEvent } from '../../spec/events.ts';

/**
 * A QRC20 token over Electrum, watched (issue 24): its balance lives in its contract, so no script
 * hash tells it changed; the watcher reads it again at each new block the server pushes, in one
 * batch of `blockchain.contract.call`, and writes a `BalanceChanged` only when it moved. The
 * devnet server runs Qtum contract calls on the EVM devnet.
 */

const TOKEN = 'QTOK-QRC20';
const erc20 = new Interface(['function mint(address to, uint256 amount)']);
let node: Litecoind;
let evm: EvmDevnet;
let server: ElectrumServer;
let owner: string;

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'QTUMR' });
  owner = `0x${Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex')}`;
  [node, evm] = await Promise.all([startLitecoind(), startEvmDevnet({ tokens: [{ symbol: 'QTOK', decimals: 6, mint: [{ address: owner, amount: 7_654_321n }] }] })]);
  server = await startElectrumServer({ litecoind: node, evm, transports: ['TCP'], pollMs: 50 });
});
after(async () => {
  await server?.stop();
  await Promise.all([node?.stop(), evm?.stop()]);
});

/** Waits until the server has received nothing for 150 ms (the watcher's first read and subscription have ended). */
async function settled(): Promise<void> {
  for (let seen = -1; seen !== server.hits.length; ) {
    seen = server.hits.length;
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function balanceChanges(log: AsyncIterable<StoredEvent>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of log) if (e.type === 'BalanceChanged') out.push(`${e.data.ticker} ${e.data.old.spendable} -> ${e.data.new.spendable}`);
  return out;
}

test('Given a QRC20 over Electrum, When a mint lands and a block is pushed, Then one BalanceChanged from a contract read, and my_balance answers it without a server call; a quiet block writes nothing', async () => {
  const coins = [
    { coin: 'QTUMR', mm2: 1, pubtype: 120, decimals: 8, protocol: { type: 'QTUM' } },
    { coin: TOKEN, mm2: 1, pubtype: 120, protocol: { type: 'QRC20', protocol_data: { platform: 'QTUMR', contract_address: evm.tokens[0]!.address } } },
  ];
  const s = await startStack({ extraCoins: coins });
  try {
    const swap = '0x2f754733acd6d753731c00fee32cb484551cc15d';
    const { status, body } = await s.legacy('electrum', { coin: TOKEN, servers: [{ url: server.tcp!, protocol: 'TCP' }], swap_contract_address: swap, fallback_swap_contract: swap });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.balance, '7.654321');
    await eventually(() => s.service.registry.balanceWatchers === 1 && s.service.registry.watchedBalance(TOKEN, TOKEN, body.address) !== undefined, 'the token to be watched');

    await eventually(() => server.hits.includes('blockchain.headers.subscribe'), 'the watcher to follow the server');
    await settled(); // its first read is done: what follows is the block's
    await evm.request('eth_sendTransaction', [{ from: evm.deployer, to: evm.tokens[0]!.address, data: erc20.encodeFunctionData('mint', [owner, 1_000_000n]) }]);
    const calls = server.hits.length;
    await node.mine(1); // the server pushes the new header; the watcher reads the contract
    let changes: string[] = [];
    const deadline = Date.now() + 10_000;
    while (changes.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      changes = await balanceChanges(s.service.log.read());
    }
    assert.deepEqual(changes, [`${TOKEN} 7.654321 -> 8.654321`]);
    assert.ok(server.hits.slice(calls).includes('blockchain.contract.call'), 'read through the contract');

    await new Promise((r) => setTimeout(r, 200)); // the read has ended
    const before = server.hits.length;
    assert.equal((await s.legacy('my_balance', { coin: TOKEN })).body.balance, '8.654321');
    assert.equal(server.hits.length, before, 'my_balance asked the server nothing');

    await node.mine(1); // nothing of the wallet changed
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await balanceChanges(s.service.log.read()), changes, 'no event for an unchanged balance');
  } finally {
    await s.stop();
  }
});
