/**
 * The dashboard in a real headless Chromium against dev mode (issue 15 item 3): sign-in, live
 * coins and tasks from `/events` without a reload, a refused password, a resumed stream; live
 * balances from the watcher's `BalanceChanged` events (issue 24 item 5).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Interface, parseUnits, toQuantity } from 'ethers';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevMode } from './devnet/devMode/devMode.ts';
import { launchChromium, type Page } from './devnet/browser/chromium.ts';
import { startTcpRelay } from './devnet/proxies/tcpRelay.ts';

const ARTIFACTS = join(import.meta.dirname, '.artifacts');
/** Placeholder swap contract (activation does not call it), as the dev banner prints it. */
const SWAP_CONTRACT = '0x24ABE4c71FC658C91313b6552cd40cD808b3Ea80';

/**
 * Page-side: resolves with `performance.now()` when `predicate` (a JS expression) first holds, or
 * `null` after `ms`; watches the DOM instead of sleeping.
 */
const waitInPage = (predicate: string, ms: number): string => `new Promise((resolve) => {
  const check = () => { try { return Boolean(${predicate}); } catch { return false; } };
  if (check()) return resolve(performance.now());
  const observer = new MutationObserver(() => { if (check()) { observer.disconnect(); clearTimeout(timer); resolve(performance.now()); } });
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  const timer = setTimeout(() => { observer.disconnect(); resolve(check() ? performance.now() : null); }, ${ms});
})`;

async function waitFor(page: Page, predicate: string, ms: number, what: string): Promise<void> {
  const at = await page.evaluate<number | null>(waitInPage(predicate, ms));
  if (at === null) {
    const seen = await page.evaluate<string>('document.querySelector("main").innerText');
    assert.fail(`${what}: not within ${ms} ms; the page shows:\n${seen}`);
  }
}

const stateOf = (ticker: string) => `document.querySelector('#coins tr[data-ticker="${ticker}"] .state')?.textContent`;

async function signIn(page: Page, password: string): Promise<void> {
  await page.evaluate(`(() => {
    document.querySelector('#password').value = ${JSON.stringify(password)};
    document.querySelector('#login').requestSubmit();
  })()`);
}

test('the dashboard shows dev mode live in Chromium: ETH active within 1 s of its activation answer, no reload', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dashboard-'));
  const dev = await startDevMode({ dir, listenPort: 0, devnetPort: 0, tronPort: 0, electrumPort: 0 });
  // The browser reaches the service through a relay, so the test can drop its connections.
  const relay = await startTcpRelay(dev.service.url);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const requests: { url: string; headers: Record<string, string> }[] = [];
    page.session.on<{ request: { url: string; headers: Record<string, string> } }>('Network.requestWillBeSent', ({ request }) => requests.push(request));
    await page.session.send('Network.enable');
    const origin = new URL(relay.url).origin;
    await page.goto(`${relay.url}/dashboard`);
    const loads = await page.evaluate<number>('performance.getEntriesByType("navigation").length');

    // A wrong password: a clear message, and no data.
    await signIn(page, `${dev.password}-wrong`);
    await waitFor(page, `!document.querySelector('#login-error').hidden`, 5_000, 'the refusal');
    assert.match(await page.evaluate<string>(`document.querySelector('#login-error').textContent`), /^Wrong RPC password\. 9 attempts left/);
    assert.equal(await page.evaluate<boolean>(`document.querySelector('#data-panel').hidden`), true);
    assert.equal(await page.evaluate<number>(`document.querySelectorAll('#coins tbody tr, #tasks tbody tr').length`), 0);
    assert.equal(requests.filter((r) => new URL(r.url).pathname === '/events').length, 0, 'no stream opened');

    // The right one: the stream opens (its `ready` frame).
    await signIn(page, dev.password);
    await waitFor(page, `document.querySelector('#connection').dataset.connection === 'live'`, 5_000, 'the stream');
    assert.equal(await page.evaluate<boolean>(`document.querySelector('#login-panel').hidden`), true);

    // Activate ETH from the page's origin and time the answer and the DOM change on the page's clock.
    const activation = { userpass: dev.password, mmrpc: '2.0', method: 'enable_eth_with_tokens', params: {
      ticker: 'ETH',
      // With a WebSocket the watcher follows newHeads: a transfer is read at its block, no poll.
      nodes: [{ url: dev.devnet.url, ws_url: dev.devnet.wsUrl }],
      swap_contract_address: SWAP_CONTRACT,
      fallback_swap_contract: SWAP_CONTRACT,
      erc20_tokens_requests: [{ ticker: 'USDT-ERC20' }, { ticker: 'DAI-ERC20' }],
    } };
    const timing = await page.evaluate<{ status: number; answer: any; answeredAt: number; shownAt: number | null }>(`(async () => {
      const shown = ${waitInPage(`${stateOf('ETH')} === 'active'`, 30_000)};
      const res = await fetch('/', { method: 'POST', body: ${JSON.stringify(JSON.stringify(activation))} });
      const answer = await res.json();
      const answeredAt = performance.now();
      const shownAt = await Promise.race([shown, new Promise((resolve) => setTimeout(() => resolve(null), Math.max(0, answeredAt + 1000 - performance.now())))]);
      return { status: res.status, answer, answeredAt, shownAt };
    })()`);
    assert.equal(timing.status, 200, JSON.stringify(timing.answer));
    assert.ok(timing.answer.result.eth_addresses_infos[dev.address], 'activated');
    assert.notEqual(timing.shownAt, null, 'ETH not shown active within 1 s of the activation answer');
    const delayMs = timing.shownAt! - timing.answeredAt;
    assert.ok(delayMs <= 1000, `shown ${delayMs} ms after the answer`);
    console.error(`dashboard: ETH shown active ${delayMs.toFixed(1)} ms after the activation answer`);

    // What the row shows: the address and balances the dev chain funded (10 ETH, 25000 USDT, 1500.5 DAI).
    await waitFor(page, `${stateOf('DAI-ERC20')} === 'active' && ${stateOf('USDT-ERC20')} === 'active'`, 1_000, 'the tokens');
    const rows = await page.evaluate<Record<string, string[]>>(`Object.fromEntries([...document.querySelectorAll('#coins tbody tr')].map((r) => [r.dataset.ticker, [...r.cells].map((c) => c.querySelector('.state')?.textContent ?? c.textContent)]))`);
    assert.deepEqual(Object.keys(rows), ['ETH', 'DAI-ERC20', 'USDT-ERC20']);
    assert.deepEqual(rows.ETH!.slice(1, 4), ['active', dev.address, '10']);
    assert.deepEqual(rows['USDT-ERC20']!.slice(1, 4), ['active', dev.address, '25000']);
    assert.deepEqual(rows['DAI-ERC20']!.slice(1, 4), ['active', dev.address, '1500.5']);
    assert.match(rows.ETH![4]!, /^confirmations \d+ · notarization not required · tx_history off/);

    // Live balances: a transfer of 1.25 ETH and a mint of 2 DAI to the wallet, on the dev chain, are
    // shown from their BalanceChanged events; the page asks the RPC for no balance.
    const balanceCalls = () => requests.filter((r) => r.url.endsWith('/') && /my_balance|account_balance/.test(JSON.stringify(r))).length;
    const dai = dev.devnet.tokens.find((t) => t.symbol === 'DAI')!;
    const mint = new Interface(['function mint(address to, uint256 amount)']).encodeFunctionData('mint', [dev.address, parseUnits('2', dai.decimals)]);
    await dev.devnet.request('eth_sendTransaction', [{ from: dev.devnet.deployer, to: dev.address, value: toQuantity(parseUnits('1.25', 18)) }]);
    await dev.devnet.request('eth_sendTransaction', [{ from: dev.devnet.deployer, to: dai.address, data: mint }]);
    const balanceOf = (ticker: string) => `document.querySelector('#coins tr[data-ticker="${ticker}"]').cells[3].textContent`;
    await waitFor(page, `${balanceOf('ETH')} === '11.25' && ${balanceOf('DAI-ERC20')} === '1502.5'`, 10_000, 'the watched balances');
    assert.equal(await page.evaluate<string>(balanceOf('USDT-ERC20')), '25000', 'an unchanged balance stays');
    assert.match(await page.evaluate<string>(`document.querySelector('#coins tr[data-ticker="ETH"] .activity').textContent`), /balance of 0x[0-9a-fA-F]{40} changed at block \d+/);
    assert.equal(balanceCalls(), 0, 'no balance poll by the page');
    // The bodies are seen (so the check above could fail): the page's coin_status reads are there.
    assert.ok(requests.some((r) => r.url.endsWith('/') && JSON.stringify(r).includes('coin_status')), 'request bodies are captured');

    // A task (TRX through task::enable_eth::init, from outside the page) appears and ends Ok.
    const init = await fetch(dev.service.url, { method: 'POST', body: JSON.stringify({ userpass: dev.password, mmrpc: '2.0', method: 'task::enable_eth::init', params: {
      ticker: 'TRX', nodes: [{ url: dev.tron.url }], erc20_tokens_requests: [{ ticker: 'USDT-TRC20' }],
    } }) }).then((r) => r.json() as Promise<any>);
    const taskId = init.result.task_id as number;
    await waitFor(page, `document.querySelector('#tasks tr[data-task="${taskId}"]')?.dataset.status === 'Ok'`, 10_000, 'the task');
    await waitFor(page, `${stateOf('TRX')} === 'active' && ${stateOf('USDT-TRC20')} === 'active'`, 1_000, 'TRX');
    // Its progress: the node that answered (the TRON node, first in the list) and the tokens read.
    const progress = await page.evaluate<string>(`document.querySelector('#tasks tr[data-task="${taskId}"]').cells[3].textContent`);
    assert.match(progress, new RegExp(`^activated at block \\d+ · read \\d+: node 0 \\(${new URL(dev.tron.url).origin.replaceAll('.', '\\.')}\\) answered in \\d+ ms · .*tokens read: 1 of 1`));

    // Transaction history (issue 26): ETH loads none; the dev LTC, activated with tx_history, shows its sync finished.
    assert.equal(await page.evaluate<string>(`document.querySelector('#coins tr[data-ticker="ETH"]').cells[5].textContent`), 'NotEnabled');
    assert.ok(dev.utxo.running, 'dev mode runs litecoind');
    const ltc = await fetch(dev.service.url, { method: 'POST', body: JSON.stringify({ userpass: dev.password, method: 'electrum', coin: 'LTC', servers: [{ url: dev.utxo.electrum.tcp, protocol: 'TCP' }], tx_history: true }) });
    assert.equal(ltc.status, 200, await ltc.text());
    await waitFor(page, `/^Finished: [1-9]\\d* transactions at block \\d+$/.test(document.querySelector('#coins tr[data-ticker="LTC"]')?.cells[5].textContent)`, 10_000, 'the LTC history');

    // A withdraw task is read with its own kind's status method, and shows what it signed.
    const withdraw = await fetch(dev.service.url, { method: 'POST', body: JSON.stringify({ userpass: dev.password, mmrpc: '2.0', method: 'task::withdraw::init', params: {
      coin: 'ETH', to: '0x8ba1f109551bD432803012645Ac136ddd64DBA72', amount: '0.01',
    } }) }).then((r) => r.json() as Promise<any>);
    const withdrawId = withdraw.result.task_id as number;
    await waitFor(page, `document.querySelector('#tasks tr[data-task="${withdrawId}"]')?.dataset.status === 'Ok'`, 10_000, 'the withdraw task');
    const withdrawRow = await page.evaluate<string[]>(`[...document.querySelector('#tasks tr[data-task="${withdrawId}"]').cells].map((c) => c.textContent)`);
    assert.equal(withdrawRow[0], `${withdrawId} withdraw`);
    assert.match(withdrawRow[3]!, /^signed [0-9a-f]{64} \(not broadcast by the task\)/);

    // The connection drops and stays down while the log moves on; the resume brings what it missed.
    const seenBefore = await page.evaluate<string>(`document.querySelector('#connection').dataset.lastEventId`);
    const release = relay.hold();
    assert.ok(relay.cut() > 0);
    await waitFor(page, `document.querySelector('#connection').dataset.connection === 'reconnecting'`, 5_000, 'the drop');
    const set = await fetch(dev.service.url, { method: 'POST', body: JSON.stringify({ userpass: dev.password, method: 'set_required_confirmations', coin: 'ETH', confirmations: 7 }) });
    assert.equal(set.status, 200);
    release();
    await waitFor(page, `document.querySelector('#coins tr[data-ticker="ETH"]').cells[4].textContent.startsWith('confirmations 7 ')`, 15_000, 'the change made while disconnected');
    const streams = requests.filter((r) => new URL(r.url).pathname === '/events');
    assert.equal(streams[0]!.headers['Last-Event-ID'], '0', 'the first connection reads the log from its start');
    assert.ok(streams.slice(1).some((r) => r.headers['Last-Event-ID'] === seenBefore), `a reconnect resumes after event ${seenBefore}`);

    // No reload happened, and the page only ever spoke to its own origin, never with the password in a URL.
    assert.equal(await page.evaluate<number>('performance.getEntriesByType("navigation").length'), loads);
    for (const { url } of requests) {
      assert.equal(new URL(url).origin, origin, url);
      assert.equal(url.includes(dev.password), false, 'the password in a URL');
    }
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(join(ARTIFACTS, 'dashboard.png'), await page.screenshot());
  } finally {
    await browser.close();
    await relay.stop();
    await dev.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
