import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSilentNode, type EvmDevnet } from '../../devnet/index.ts';
import { DEVNET_CHAIN_ID, SWAP_CONTRACT, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import {
  cancelTask,
  describeEvents,
  enabledTickers,
  initTask,
  startTask,
  taskEvents,
  taskStatus,
  untilFinished,
  untilStatus,
} from '../../devnet/testing/tasks.ts';

/** `task::enable_eth` across a restart (same dbdir) and at scale (200 concurrent tasks). */

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_000_000n }] });
});
after(() => devnet.stop());

/** A second EVM platform on the devnet chain, so one task can hang while ETH is active. */
const ETH2 = { coin: 'ETH2', decimals: 18, derivation_path: "m/44'/60'", protocol: { type: 'ETH', protocol_data: { chain_id: DEVNET_CHAIN_ID } } };

describe('task::enable_eth across a restart', () => {
  test('ids continue after the highest ever used; finished tasks stay readable; running ones read as interrupted', async () => {
    const dbdir = await mkdtemp(join(tmpdir(), 'tasks-restart-'));
    const silent = await startSilentNode();
    const stacks: Stack[] = [];
    const open = async () => {
      const s = await startStack({ devnet, dbdir, extraCoins: [ETH2] });
      stacks.push(s);
      return s;
    };
    try {
      const first = await open();
      const ok = await startTask(first, enableEthParams(first, ['USDT-ERC20']));
      const okResult = (await untilFinished(first, ok)).result;
      assert.equal(okResult.status, 'Ok');
      const forgotten = await startTask(first, enableEthParams(first, [], { ticker: 'NOPE' }));
      await untilFinished(first, forgotten);
      await taskStatus(first, forgotten, true);
      const running = await startTask(first, { ...enableEthParams(first, [], { ticker: 'ETH2' }), nodes: [{ url: silent.url }] });
      await untilStatus(first, running, 'InProgress', 'RequestingWalletBalance');
      assert.deepEqual([ok, forgotten, running], [0, 1, 2]);
      await first.stop();

      const second = await open();
      assert.equal(await startTask(second, enableEthParams(second, [], { ticker: 'NOPE' })), 3, 'no id is reused');

      const okAgain = await taskStatus(second, ok, false);
      assert.equal(okAgain.status, 200);
      assert.deepEqual(okAgain.body.result, okResult, 'a finished task of the previous session reads the same');
      assert.equal((await taskStatus(second, forgotten)).body.error_type, 'NoSuchTask');

      const interrupted = await taskStatus(second, running, false);
      assert.equal(interrupted.status, 200);
      assert.equal(interrupted.body.result.status, 'Error');
      assert.equal(interrupted.body.result.details.error_type, 'InternalError');
      assert.match(interrupted.body.result.details.error, /interrupted/);
      const runningEvents = await taskEvents(second, running);
      assert.deepEqual(describeEvents(runningEvents), [
        'TaskCreated',
        'TaskProgressed:InProgress/ActivatingCoin',
        'TaskProgressed:InProgress/RequestingWalletBalance',
        'TaskInterrupted',
      ]);
      assert.deepEqual(runningEvents.at(-1)!.data, { taskId: running, sessionId: first.service.sessionId });
      assert.equal(runningEvents.at(-1)!.metadata.sessionId, second.service.sessionId);

      // Finished either way: not cancellable, not awaiting anything.
      assert.equal((await cancelTask(second, ok)).body.error_type, 'TaskFinished');
      assert.equal((await cancelTask(second, running)).status, 409);
      // Coins are per session: ETH and ETH2 can be activated again, by a task too.
      assert.deepEqual(await enabledTickers(second), []);
      const eth2 = await startTask(second, enableEthParams(second, [], { ticker: 'ETH2' }));
      assert.equal(eth2, 4);
      assert.equal((await untilFinished(second, eth2)).result.status, 'Ok');
      assert.equal((await taskStatus(second, running, true)).body.result.status, 'Error', 'forgotten on this read');
      await second.stop();

      const third = await open();
      assert.equal(await startTask(third, enableEthParams(third, [], { ticker: 'NOPE' })), 5);
      assert.equal((await taskStatus(third, running)).body.error_type, 'NoSuchTask');
      assert.equal((await taskStatus(third, ok, false)).body.result.status, 'Ok');
      const interruptions = (await taskEvents(third, running)).filter((e) => e.type === 'TaskInterrupted');
      assert.equal(interruptions.length, 1, 'recorded once, not on every start');
    } finally {
      for (const s of stacks) await s.stop().catch(() => undefined);
      await silent.stop();
      await rm(dbdir, { recursive: true, force: true });
    }
  });
});

describe('task::enable_eth at scale', () => {
  test('200 concurrent tasks for 200 distinct EVM coins all reach Ok', async (t) => {
    const tickers = Array.from({ length: 200 }, (_, i) => `EVM${String(i).padStart(3, '0')}`);
    const coins = tickers.map((coin) => ({
      coin,
      decimals: 18,
      derivation_path: "m/44'/60'",
      protocol: { type: 'ETH', protocol_data: { chain_id: DEVNET_CHAIN_ID } },
    }));
    const s = await startStack({ devnet, extraCoins: coins });
    try {
      const params = (ticker: string) => ({
        ticker,
        nodes: [{ url: devnet.url }],
        swap_contract_address: SWAP_CONTRACT,
        fallback_swap_contract: SWAP_CONTRACT,
        erc20_tokens_requests: [],
      });
      const started = performance.now();
      const inits = await Promise.all(tickers.map((ticker) => initTask(s, params(ticker))));
      const initMs = performance.now() - started;
      assert.deepEqual([...new Set(inits.map((a) => a.status))], [200]);
      const ids = inits.map((a) => a.body.result.task_id as number);
      assert.equal(new Set(ids).size, 200, 'every task id distinct');
      assert.deepEqual([...ids].sort((a, b) => a - b), Array.from({ length: 200 }, (_, i) => i));

      const finals = await Promise.all(ids.map((id) => untilFinished(s, id, { intervalMs: 20, timeoutMs: 30_000 })));
      const wallMs = performance.now() - started;
      const notOk = finals.filter((f) => f.result.status !== 'Ok');
      assert.deepEqual(notOk.map((f) => f.result), []);
      t.diagnostic(`200 tasks: all inits answered in ${initMs.toFixed(0)} ms, all Ok after ${wallMs.toFixed(0)} ms wall`);
      assert.deepEqual(await enabledTickers(s), tickers);
    } finally {
      await s.stop();
    }
  });
});
