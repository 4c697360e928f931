/**
 * Electrum leg of the balance-watch bench (issue 24 item 8): 20 coins of one regtest chain on one
 * Electrum server (10 paid to the wallet's P2PKH address, 10 to its segwit address; each coin its
 * own ticker and activation). Every block pays both addresses in one transaction that never
 * entered the mempool (`generateblock` with the signed transaction), so the change is first seen
 * with the block. Counts the requests the service sends the server from the mine to the block's
 * last frame, and times each `BALANCE:<coin>` frame from the mine; the reference client's polling
 * runs in the same window.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { systemClock } from '../../kernel/clock.ts';
import { addressScriptHash, connectElectrum, LITECOIN_REGTEST, p2pkhAddress, scriptHashOf, startElectrumServer, startLitecoind, type ElectrumServer } from '../../devnet/index.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { startStack, TEST_PASSPHRASE, TEST_PASSWORD } from '../../devnet/testing/stack.ts';
import { eventually } from '../../devnet/testing/tasks.ts';
import { formatAmount, parseAmount } from '../../spec/amount.ts';
import { recordSse } from './sseRecorder.ts';
import { seenAfter, startClientPolling } from './clientPolling.ts';
import type { WatchLeg } from './watchReport.ts';
import { mulberry32 } from '../../devnet/testing/seededRandom.ts';

export interface ElectrumWatchOptions {
  readonly coins: number;
  readonly blocks: number;
  readonly clientPeriodMs: number;
  /** How often the devnet server asks litecoind for a new tip (a real server's block notification delay). */
  readonly serverPollMs: number;
}

const PER_BLOCK = 100_000n; // 0.001 LTC to each address

/**
 * What the server alone needs for one read of the wallet (the tip, `get_balance` and `listunspent`
 * of its three scripts: P2PKH, P2PK, P2WPKH), the median of 5 batches from a bare client. The
 * devnet server answers from litecoind, so this is part of every delay.
 */
async function serverReadMs(server: ElectrumServer, hashes: readonly string[]): Promise<number> {
  const client = await connectElectrum('TCP', server.tcp!);
  try {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      await client.batch([{ method: 'blockchain.headers.subscribe' }, ...['get_balance', 'listunspent'].flatMap((m) => hashes.map((h) => ({ method: `blockchain.scripthash.${m}`, params: [h] })))]);
      times.push(performance.now() - start);
    }
    return times.sort((a, b) => a - b)[2]!;
  } finally {
    client.close();
  }
}
const FUNDED = 100_000_000n;

export async function runElectrumWatch(o: ElectrumWatchOptions): Promise<WatchLeg> {
  const stoppers: (() => Promise<unknown> | void)[] = [];
  try {
    const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'LTC' });
    const hash = Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed)));
    const legacy = p2pkhAddress(hash.toString('hex'));
    const segwit = payments.p2wpkh({ hash, network: LITECOIN_REGTEST }).address!;
    const node = await startLitecoind();
    stoppers.push(() => node.stop());
    await node.rpc('sendmany', ['', { [legacy]: formatAmount(FUNDED, 8), [segwit]: formatAmount(FUNDED, 8) }]);
    await node.mine(1);
    const server = await startElectrumServer({ litecoind: node, transports: ['TCP'], pollMs: o.serverPollMs });
    stoppers.push(() => server.stop());
    const half = Math.ceil(o.coins / 2);
    const entries = Array.from({ length: o.coins }, (_, i) =>
      i < half
        ? { coin: `LTP${String(i).padStart(2, '0')}`, mm2: 1, pubtype: 111, decimals: 8, protocol: { type: 'UTXO' } }
        : { coin: `LTW${String(i).padStart(2, '0')}`, mm2: 1, pubtype: 111, segwit: true, bech32_hrp: 'rltc', address_format: { format: 'segwit' }, decimals: 8, protocol: { type: 'UTXO' } },
    );
    const tickers = entries.map((e) => e.coin);
    const stack = await startStack({ extraCoins: entries, clock: systemClock });
    stoppers.push(() => stack.stop());
    for (const coin of tickers) {
      const { status, body } = await stack.legacy('electrum', { coin, servers: [{ url: server.tcp!, protocol: 'TCP' }] });
      if (status !== 200) throw new Error(`${coin}: ${JSON.stringify(body)}`);
    }
    await eventually(() => stack.service.registry.balanceWatchers === 1 && tickers.every((t, i) => stack.service.registry.watchedBalance(t, t, i < half ? legacy : segwit) !== undefined), 'the coins to join one watcher', 30_000);
    const stream = await recordSse(`${stack.service.url}/event-stream?id=3`, { authorization: `Bearer ${TEST_PASSWORD}` });
    stoppers.push(() => stream.close());
    await eventually(() => stream.frames.length > 0, "the stream's ready frame");
    for (const coin of tickers) {
      const enabled = await stack.v2('stream::balance::enable', { coin, client_id: 3 });
      if (enabled.status !== 200) throw new Error(`${coin}: ${JSON.stringify(enabled.body)}`);
    }

    await sleep(1000);
    const idleFrom = server.requests.length;
    const idleMs = 5_000;
    await sleep(idleMs);
    const idleRequestsPerMinute = ((server.requests.length - idleFrom) * 60_000) / idleMs;

    const client = startClientPolling(stack.service.url, TEST_PASSWORD, tickers, o.clientPeriodMs);
    const random = mulberry32(26);
    const miner = await node.rpc<string>('getnewaddress', []);
    const changes: { coin: string; at: number; amount: bigint }[] = [];
    const requestsPerBlock: number[] = [];
    const delays: number[] = [];
    for (let k = 1; k <= o.blocks; k++) {
      await sleep(500 + random() * 1500);
      const raw = await node.rpc<string>('createrawtransaction', [[], { [legacy]: formatAmount(PER_BLOCK, 8), [segwit]: formatAmount(PER_BLOCK, 8) }]);
      const funded = await node.rpc<{ hex: string }>('fundrawtransaction', [raw]);
      const signed = await node.rpc<{ hex: string }>('signrawtransactionwithwallet', [funded.hex]);
      const before = server.requests.length;
      const frameCount = stream.frames.length;
      await node.rpc('generateblock', [miner, [signed.hex]]);
      const minedAt = performance.now();
      const expected = FUNDED + BigInt(k) * PER_BLOCK;
      for (const coin of tickers) changes.push({ coin, at: minedAt, amount: expected });
      const seen = new Map<string, number>();
      await eventually(() => {
        for (const f of stream.frames.slice(frameCount)) {
          const frame = JSON.parse(f.data) as { _type?: string; message?: { ticker: string; balance: { spendable: string } }[] };
          if (!frame._type?.startsWith('BALANCE:')) continue;
          for (const m of frame.message ?? []) if (!seen.has(m.ticker) && parseAmount(m.balance.spendable, 8) === expected) seen.set(m.ticker, f.at);
        }
        return seen.size === tickers.length;
      }, `block ${k}'s ${tickers.length} frames`, 30_000);
      for (const at of seen.values()) delays.push(at - minedAt);
      await sleep(20);
      requestsPerBlock.push(server.requests.length - before);
    }
    await sleep(o.clientPeriodMs + 500);
    client.stop();
    const clientDelays = seenAfter(client.answers, changes, (_coin, balance) => parseAmount(balance, 8));
    const fromMyBalance = server.requests.length;
    for (const coin of tickers) await stack.legacy('my_balance', { coin });
    const myBalanceRequests = server.requests.length - fromMyBalance;
    const p2pk = Buffer.concat([Buffer.from([0x21]), Buffer.from(key.compressed), Buffer.from([0xac])]);
    const nodeReadMs = await serverReadMs(server, [addressScriptHash(legacy), scriptHashOf(p2pk), addressScriptHash(segwit)]);
    return {
      name: `Electrum: ${o.coins} coins of one chain on one server`,
      coins: o.coins,
      blocks: o.blocks,
      paths: [{ name: `ours, subscriptions (server polls its node every ${o.serverPollMs} ms)`, idleRequestsPerMinute, requestsPerBlock, delaysMs: delays, goalP99Ms: 50, goalRequestsPerBlock: 1, nodeReadMs }],
      client: {
        // The reference answers each my_balance with one request to the server.
        requestsPerMinute: (o.coins * 60_000) / o.clientPeriodMs,
        delaysMs: clientDelays,
        unseen: changes.length - clientDelays.length,
        ourNodeCallsForAllCoins: myBalanceRequests,
      },
    };
  } finally {
    for (const stop of stoppers.reverse()) await stop();
  }
}
