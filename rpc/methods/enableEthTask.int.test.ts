import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedUrl, startLatencyProxy, startSilentNode, type EvmDevnet } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { TEST_PASSWORD, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import {
  cancelTask,
  describeEvents,
  enabledTickers,
  enterPin,
  eventually,
  initTask,
  startTask,
  taskEvents,
  taskStatus,
  untilFinished,
  untilStatus,
} from '../../devnet/testing/tasks.ts';
import { enableEthTaskStatusResult } from '../../spec/enableEthTask.ts';

/**
 * `task::enable_eth::*` with a software key against a real devnet and the real service over HTTP
 * (spec 3.2, 4.1–4.4; docs/compatibility.md §8). Hardware tasks: enableEthTaskHardware.int.test.ts;
 * restart and scale: enableEthTaskSessions.int.test.ts.
 */

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({
    tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_234_567_891n }, { symbol: 'DAI', decimals: 18, amount: 5n * 10n ** 18n + 1n }],
  });
});
after(() => devnet.stop());

function stack(options: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  return startStack({ devnet, ...options });
}

/** Error details inside a failed status: exactly the v2 error fields, without `mmrpc`/`id`. */
function assertErrorDetails(result: any, errorType: string, data?: unknown): void {
  assert.equal(result.status, 'Error', JSON.stringify(result));
  const keys = ['error', 'error_path', 'error_trace', 'error_type', 'error_data'];
  // `error_data` is left out only for a variant carrying nothing (as in the immediate envelope).
  assert.deepEqual(Object.keys(result.details), 'error_data' in result.details ? keys : keys.slice(0, 4));
  assert.equal(result.details.error_type, errorType, JSON.stringify(result));
  assert.equal(typeof result.details.error, 'string');
  if (data !== undefined) assert.deepEqual(result.details.error_data, data);
  assert.ok(enableEthTaskStatusResult.check(result), JSON.stringify(enableEthTaskStatusResult.firstProblem(result)));
}

function assertV2Error(answer: { status: number; body: any }, status: number, errorType: string, data?: unknown): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.error_type, errorType, JSON.stringify(answer.body));
  if (data !== undefined) assert.deepEqual(answer.body.error_data, data);
}

describe('task::enable_eth with a software key on a real devnet', () => {
  for (const getBalances of [true, false]) {
    test(`init answers at once on a slow chain; status walks to Ok equal to enable_eth_with_tokens (get_balances ${getBalances})`, async () => {
      const latencyMs = 400;
      const proxy = await startLatencyProxy({ target: devnet.url, latencyMs });
      const s = await stack();
      try {
        const params = { ...enableEthParams(s, ['USDT-ERC20', 'DAI-ERC20'], { get_balances: getBalances }), nodes: [{ url: proxy.url }] };
        // The node answers nothing until released: init must answer without waiting for the chain.
        const release = proxy.hold();
        const { status, body } = await initTask(s, params);
        release();
        assert.equal(status, 200, JSON.stringify(body));
        assert.deepEqual(body, { mmrpc: '2.0', result: { task_id: 0 }, id: null });

        const { result, seen } = await untilFinished(s, 0);
        assert.equal(result.status, 'Ok', JSON.stringify(result));
        assert.ok(enableEthTaskStatusResult.check(result));
        // What polling can see is a subsequence of the steps; the chain wait is long enough to be seen.
        const steps = ['InProgress/ActivatingCoin', 'InProgress/RequestingWalletBalance', 'InProgress/Finishing', 'Ok'];
        assert.deepEqual(seen, steps.filter((step) => seen.includes(step)), `out of order: ${seen.join(' → ')}`);
        assert.ok(seen.includes('InProgress/RequestingWalletBalance'), seen.join(' → '));
        // ...and the log holds every step.
        assert.deepEqual(
          describeEvents(await taskEvents(s, 0)).filter((e) => e.startsWith('TaskProgressed')),
          ['TaskProgressed:InProgress/ActivatingCoin', 'TaskProgressed:InProgress/RequestingWalletBalance', 'TaskProgressed:InProgress/Finishing'],
        );
        assert.deepEqual(await enabledTickers(s), ['DAI-ERC20', 'ETH', 'USDT-ERC20']);

        // The same activation through enable_eth_with_tokens gives the very same object.
        assert.equal((await s.legacy('disable_coin', { coin: 'ETH', force_disable: true })).status, 200);
        const direct = await s.v2('enable_eth_with_tokens', params);
        assert.equal(direct.status, 200, JSON.stringify(direct.body));
        assert.deepEqual(result.details, direct.body.result);
        if (!getBalances) assert.equal(JSON.stringify(result.details).includes('balances'), false);

        // Ids increase, one per accepted init.
        assert.equal((await s.legacy('disable_coin', { coin: 'ETH', force_disable: true })).status, 200);
        assert.equal(await startTask(s, params), 1);
        // (without ETH's tokens: they are ETH's, so a task listing them is refused at once)
        assert.equal(await startTask(s, { ...params, ticker: 'NOPE', erc20_tokens_requests: [] }), 2);
        await untilFinished(s, 1);
      } finally {
        await s.stop();
        await proxy.stop();
      }
    });
  }

  test('forget_if_finished: by default the first finished read forgets; false keeps it readable', async () => {
    const s = await stack();
    try {
      const ok = await startTask(s, enableEthParams(s, ['USDT-ERC20']));
      await untilFinished(s, ok);
      for (let i = 0; i < 3; i++) assert.equal((await taskStatus(s, ok, false)).body.result.status, 'Ok');
      const first = await taskStatus(s, ok); // default: forget
      assert.equal(first.status, 200);
      assert.equal(first.body.result.status, 'Ok');
      assertV2Error(await taskStatus(s, ok), 400, 'NoSuchTask', ok);
      assertV2Error(await taskStatus(s, ok, false), 400, 'NoSuchTask', ok);
      assertV2Error(await cancelTask(s, ok), 404, 'NoSuchTask', ok);

      const failed = await startTask(s, enableEthParams(s, [], { ticker: 'NOPE' }));
      await untilFinished(s, failed);
      const read = await taskStatus(s, failed, true);
      assert.equal(read.status, 200, 'a failed task is still a successful status read');
      assertErrorDetails(read.body.result, 'PlatformConfigIsNotFound', 'NOPE');
      assertV2Error(await taskStatus(s, failed, true), 400, 'NoSuchTask', failed);
    } finally {
      await s.stop();
    }
  });

  test('concurrent forgetting reads: exactly one gets the result, one TaskForgotten is recorded', async () => {
    const s = await stack();
    try {
      const id = await startTask(s, enableEthParams(s, []));
      await untilFinished(s, id);
      const call = { mmrpc: '2.0', userpass: TEST_PASSWORD, method: 'task::enable_eth::status', params: { task_id: id } };
      const { body } = await s.post([call, call, call]);
      assert.deepEqual(body.map((a: any) => a.result?.status ?? a.error_type).sort(), ['NoSuchTask', 'NoSuchTask', 'Ok']);
      assert.equal(describeEvents(await taskEvents(s, id)).filter((t) => t === 'TaskForgotten').length, 1);
    } finally {
      await s.stop();
    }
  });

  test('only parse errors and an active or reserved platform fail init synchronously', async () => {
    const clock = new ManualClock();
    const silent = await startSilentNode();
    const s = await stack({ clock, evm: { nodeTimeoutMs: 10_000 } });
    try {
      const base = enableEthParams(s, ['USDT-ERC20']);
      const parseErrors: [string, Record<string, unknown>, RegExp][] = [
        ['missing ticker', (({ ticker: _, ...rest }) => rest)(base), /params\.ticker|params: .*ticker/],
        ['nodes not a list', { ...base, nodes: 'http://x' }, /params\.nodes/],
        ['token request without ticker', { ...base, erc20_tokens_requests: [{}] }, /params\.erc20_tokens_requests\[0\]\.ticker|erc20_tokens_requests/],
        ['get_balances not a boolean', { ...base, get_balances: 'yes' }, /params\.get_balances/],
        ['BrowserWallet rpc_mode', { ...base, rpc_mode: 'BrowserWallet' }, /rpc_mode/],
        ['BrowserWallet key policy', { ...base, priv_key_policy: { type: 'BrowserWallet' } }, /priv_key_policy/],
        ['unknown key policy', { ...base, priv_key_policy: 'Paper' }, /params\.priv_key_policy/],
      ];
      for (const [name, params, field] of parseErrors) {
        const answer = await initTask(s, params);
        assertV2Error(answer, 400, 'InvalidRequest');
        assert.match(answer.body.error, field, name);
      }
      // None of them used up a task id.
      const first = await startTask(s, { ...base, nodes: [{ url: silent.url }] });
      assert.equal(first, 0);
      await untilStatus(s, first, 'InProgress', 'RequestingWalletBalance');

      // While the task holds ETH: a second init and enable_eth_with_tokens are refused.
      assertV2Error(await initTask(s, base), 400, 'PlatformIsAlreadyActivated', 'ETH');
      const immediate = await s.v2('enable_eth_with_tokens', base);
      assertV2Error(immediate, 400, 'PlatformIsAlreadyActivated', 'ETH');
      assert.equal(immediate.body.error, 'ETH');
      assert.equal((await cancelTask(s, first)).body.result, 'success');

      // While enable_eth_with_tokens is activating ETH, init is refused too.
      const pending = s.v2('enable_eth_with_tokens', { ...base, nodes: [{ url: silent.url }] });
      await eventually(() => silent.connections() >= 2, 'the activation to reach the silent node');
      assertV2Error(await initTask(s, base), 400, 'PlatformIsAlreadyActivated', 'ETH');
      clock.advance(10_000);
      assertV2Error(await pending, 502, 'Transport');

      // And once ETH is active.
      assert.equal((await s.v2('enable_eth_with_tokens', base)).status, 200);
      assertV2Error(await initTask(s, base), 400, 'PlatformIsAlreadyActivated', 'ETH');
      assert.equal(await startTask(s, { ...base, ticker: 'NOPE', erc20_tokens_requests: [] }), first + 1, 'refused inits used no id');
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('two inits of one ticker in one batch: exactly one task', async () => {
    const s = await stack();
    try {
      const call = { mmrpc: '2.0', userpass: TEST_PASSWORD, method: 'task::enable_eth::init', params: enableEthParams(s, []) };
      const { body } = await s.post([call, call]);
      assert.deepEqual(body.map((a: any) => (a.result ? 'task' : a.error_type)).sort(), ['PlatformIsAlreadyActivated', 'task']);
      const id = body.find((a: any) => a.result).result.task_id;
      assert.equal((await untilFinished(s, id)).result.status, 'Ok');
      assert.deepEqual(await enabledTickers(s), ['ETH']);
    } finally {
      await s.stop();
    }
  });

  test('everything else is accepted and reported later by status, with HTTP 200', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const s = await stack();
    try {
      const base = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: proxy.url }] };
      const refused = await refusedUrl();
      const cases: [string, Record<string, unknown>, string, unknown][] = [
        ['unknown ticker', { ...base, ticker: 'NOPE' }, 'PlatformConfigIsNotFound', 'NOPE'],
        ['unknown token', { ...base, erc20_tokens_requests: [{ ticker: 'USDT-ERC20' }, { ticker: 'NOPE-ERC20' }] }, 'TokenConfigIsNotFound', 'NOPE-ERC20'],
        ['no nodes', { ...base, nodes: [] }, 'AtLeastOneNodeRequired', 'Enable request for ETH coin must have at least 1 node'],
        ['all nodes down', { ...base, nodes: [{ url: refused }, { url: `${refused}/v3/secret-api-key` }] }, 'Transport', undefined],
        ['RemoteWallet policy', { ...base, priv_key_policy: { type: 'RemoteWallet', data: 'abcd' } }, 'PrivKeyNotAllowed', undefined],
        ['zero swap contract', { ...base, swap_contract_address: '0x0000000000000000000000000000000000000000' }, 'InvalidRequest', "params.swap_contract_address can't be zero address"],
        ['another address than the Iguana key\'s one', { ...base, path_to_address: { account_id: 2, chain: 'External', address_id: 0 } }, 'UnexpectedDerivationMethod', undefined],
        ['a hardware key\'s path outside the coin\'s', { ...base, priv_key_policy: 'Hardware', path_to_address: { derivation_path: "m/44'/61'/0'/0/0" } }, 'InvalidRequest', undefined],
      ];
      for (const [name, params, errorType, data] of cases) {
        const init = await initTask(s, params);
        assert.equal(init.status, 200, `${name}: ${JSON.stringify(init.body)}`);
        const { result } = await untilFinished(s, init.body.result.task_id);
        assertErrorDetails(result, errorType, data);
        if (errorType === 'Transport') {
          assert.equal(typeof result.details.error_data, 'string');
          assert.doesNotMatch(JSON.stringify(result), /secret-api-key/);
        }
        assert.deepEqual(await enabledTickers(s), [], name);
        // The failed task released the ticker.
        assert.equal(describeEvents(await taskEvents(s, init.body.result.task_id)).at(-1), 'TaskFailed', name);
      }
      assert.equal(proxy.stats().httpRequests, 0, 'no chain work for a task that fails planning');
      // The fallback swap contract is optional (as in the reference).
      const { fallback_swap_contract: _, ...withoutFallback } = base;
      const id = await startTask(s, withoutFallback);
      assert.equal((await untilFinished(s, id)).result.status, 'Ok');
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('cancel while the wallet balance is requested: the node call stops and nothing is registered', async () => {
    const silent = await startSilentNode();
    const s = await stack();
    try {
      const params = enableEthParams(s, ['USDT-ERC20']);
      const id = await startTask(s, { ...params, nodes: [{ url: silent.url }] });
      await untilStatus(s, id, 'InProgress', 'RequestingWalletBalance');
      await eventually(() => silent.sockets()[0]?.bytes! > 0, 'the balance request to reach the silent node');
      const sentBeforeCancel = silent.sockets()[0]!.bytes;

      const cancelled = await cancelTask(s, id);
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.deepEqual(cancelled.body, { mmrpc: '2.0', result: 'success', id: null });
      await eventually(() => !silent.sockets()[0]!.open, 'the aborted request to close its socket');
      await new Promise((r) => setTimeout(r, 50));
      // No request after the cancel. (Node 20's fetch, undici, opens one spare idle connection after
      // an abort, nodejs/undici#5845; it carries no byte.)
      const sockets = silent.sockets();
      assert.equal(sockets[0]!.bytes, sentBeforeCancel);
      assert.deepEqual(sockets.slice(1).map((x) => x.bytes).filter((b) => b > 0), [], 'no request after the cancel');

      assertV2Error(await taskStatus(s, id), 400, 'NoSuchTask', id);
      assertV2Error(await taskStatus(s, id, false), 400, 'NoSuchTask', id);
      assertV2Error(await cancelTask(s, id), 404, 'NoSuchTask', id);
      assertV2Error(await enterPin(s, id, '1234'), 400, 'NoSuchTask', id);
      assert.deepEqual(await enabledTickers(s), []);
      assert.deepEqual(describeEvents(await taskEvents(s, id)), [
        'TaskCreated',
        'TaskProgressed:InProgress/ActivatingCoin',
        'TaskProgressed:InProgress/RequestingWalletBalance',
        'TaskCancelled',
      ]);
      // The ticker is free again at once, for either method.
      const direct = await s.v2('enable_eth_with_tokens', params);
      assert.equal(direct.status, 200, JSON.stringify(direct.body));
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      const again = await startTask(s, params);
      assert.equal((await untilFinished(s, again)).result.status, 'Ok');
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('cancel of a finished task is TaskFinished (409); of an unknown one NoSuchTask (404)', async () => {
    const s = await stack();
    try {
      const ok = await startTask(s, enableEthParams(s, []));
      await untilFinished(s, ok);
      assertV2Error(await cancelTask(s, ok), 409, 'TaskFinished', ok);
      assert.equal((await taskStatus(s, ok, false)).body.result.status, 'Ok', 'unchanged by the refused cancel');
      assert.deepEqual(await enabledTickers(s), ['ETH']);

      const failed = await startTask(s, enableEthParams(s, [], { ticker: 'NOPE' }));
      await untilFinished(s, failed);
      assertV2Error(await cancelTask(s, failed), 409, 'TaskFinished', failed);

      assertV2Error(await cancelTask(s, 4242), 404, 'NoSuchTask', 4242);
      assertV2Error(await taskStatus(s, 4242), 400, 'NoSuchTask', 4242);
      assertV2Error(await s.v2('task::enable_eth::cancel', { task_id: -1 }), 400, 'InvalidRequest');
    } finally {
      await s.stop();
    }
  });

  test('two cancels of one task in one batch: one success, one NoSuchTask', async () => {
    const silent = await startSilentNode();
    const s = await stack();
    try {
      const id = await startTask(s, { ...enableEthParams(s, []), nodes: [{ url: silent.url }] });
      await untilStatus(s, id, 'InProgress', 'RequestingWalletBalance');
      const call = { mmrpc: '2.0', userpass: TEST_PASSWORD, method: 'task::enable_eth::cancel', params: { task_id: id } };
      const { body } = await s.post([call, call]);
      assert.deepEqual(body.map((a: any) => a.result ?? a.error_type).sort(), ['NoSuchTask', 'success']);
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('user_action: unknown task, a task not awaiting a PIN, malformed PINs never echoed', async () => {
    const silent = await startSilentNode();
    const s = await stack();
    try {
      assertV2Error(await enterPin(s, 77, '1234'), 400, 'NoSuchTask', 77);
      const id = await startTask(s, { ...enableEthParams(s, []), nodes: [{ url: silent.url }] });
      await untilStatus(s, id, 'InProgress', 'RequestingWalletBalance');
      const notWaiting = await enterPin(s, id, '1234');
      assertV2Error(notWaiting, 500, 'InternalError');
      assert.doesNotMatch(JSON.stringify(notWaiting.body), /1234/);
      for (const pin of ['0123', 'abc', '', '12345678901234567890123456789012345678901234567890123']) {
        const answer = await enterPin(s, id, pin);
        assertV2Error(answer, 400, 'InvalidRequest');
        assert.match(answer.body.error, /params\.user_action\.pin/);
        if (pin !== '') assert.equal(JSON.stringify(answer.body).includes(pin), false, `PIN ${pin} echoed`);
      }
      const wrongAction = await s.v2('task::enable_eth::user_action', { task_id: id, user_action: { action_type: 'TrezorPassphrase', pin: '1' } });
      assertV2Error(wrongAction, 400, 'InvalidRequest');
      assert.equal((await taskStatus(s, id, false)).body.result.details, 'RequestingWalletBalance', 'the task is untouched');
      await cancelTask(s, id);
      const ok = await startTask(s, enableEthParams(s, []));
      await untilFinished(s, ok);
      assertV2Error(await enterPin(s, ok, '1234'), 500, 'InternalError');
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('every step of a software task is in the event log, in order', async () => {
    const s = await stack();
    try {
      const ok = await startTask(s, enableEthParams(s, ['USDT-ERC20']));
      await untilFinished(s, ok);
      await taskStatus(s, ok, true);
      assert.deepEqual(describeEvents(await taskEvents(s, ok)), [
        'TaskCreated',
        'TaskProgressed:InProgress/ActivatingCoin',
        'TaskProgressed:InProgress/RequestingWalletBalance',
        'TaskProgressed:InProgress/Finishing',
        'TaskSucceeded',
        'TaskForgotten',
      ]);
      const [created] = await taskEvents(s, ok);
      assert.deepEqual(created?.data, { taskId: ok, ticker: 'ETH', tokens: ['USDT-ERC20'], keyPolicy: 'ContextPrivKey', getBalances: true, clientId: 0, kind: 'enable_eth' });

      const failed = await startTask(s, enableEthParams(s, [], { ticker: 'NOPE' }));
      await untilFinished(s, failed);
      await taskStatus(s, failed, true);
      assert.deepEqual(describeEvents(await taskEvents(s, failed)), [
        'TaskCreated',
        'TaskProgressed:InProgress/ActivatingCoin',
        'TaskFailed',
        'TaskForgotten',
      ]);
    } finally {
      await s.stop();
    }
  });
});
