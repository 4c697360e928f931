/**
 * The reference's GUI logging in to a software wallet (docs/compatibility.md §19): every coin of
 * the wallet activated at once, one future per coin, no ordering and no limit. Each future asks
 * `get_enabled_coins`, activates the coin the way the client's strategy picks (a platform with no
 * tokens; a token with its platform while the platform is inactive, else `enable_erc20`; a UTXO
 * coin through `task::enable_utxo`, polled every 500 ms), reads `my_balance`, and polls
 * `get_enabled_coins` until the coin is listed (15 polls, 50 ms doubling to 500 ms). A failed
 * future is retried by the GUI, up to 15 tries, waiting 500 ms doubling to 10 s.
 */
import { sleep, systemClock } from '../../kernel/clock.ts';
import { enableErc20Params, ethWithTokensParams, utxoInitParams, type EvmPlatformConfig, type UtxoConfig } from './clientBodies.ts';
import { isSdkError, type ReferenceClient } from './sdkClient.ts';
import { pollTask } from './taskPolling.ts';

export type LoginAsset =
  | { readonly kind: 'platform'; readonly ticker: string; readonly platform: EvmPlatformConfig }
  | { readonly kind: 'token'; readonly ticker: string; readonly platform: EvmPlatformConfig }
  | { readonly kind: 'utxo'; readonly ticker: string; readonly coin: UtxoConfig };

export interface LoginOptions {
  /** @default 15 */
  readonly tries?: number;
  /** The GUI's first wait before a retry, doubled after each one up to `maxBackoffMs`. @default 500 */
  readonly firstBackoffMs?: number;
  /** @default 10000 */
  readonly maxBackoffMs?: number;
  /** Task status poll interval. @default 500 */
  readonly pollMs?: number;
}

/** How one coin's future ended: the activation tries it made (0: it found the coin active). */
export interface AssetOutcome {
  readonly ticker: string;
  readonly tries: number;
  readonly active: boolean;
  /** The method of the try that activated it. */
  readonly activatedBy?: string;
}

const wait = (ms: number) => sleep(systemClock, ms);

/** Runs the login's futures, all at once; resolves when every one has ended. */
export function loginStorm(client: ReferenceClient, assets: readonly LoginAsset[], options: LoginOptions = {}): Promise<AssetOutcome[]> {
  return Promise.all(assets.map((asset) => activateWithRetries(client, asset, options)));
}

async function activateWithRetries(client: ReferenceClient, asset: LoginAsset, options: LoginOptions): Promise<AssetOutcome> {
  const tries = options.tries ?? 15;
  let backoff = options.firstBackoffMs ?? 500;
  for (let attempt = 1; attempt <= tries; attempt++) {
    const enabled = await enabledTickers(client);
    if (enabled.includes(asset.ticker)) return { ticker: asset.ticker, tries: attempt - 1, active: true };
    const method = await activateOnce(client, asset, enabled, options.pollMs ?? 500);
    if (method !== undefined) {
      await client.legacy('my_balance', { coin: asset.ticker });
      if (await becomesVisible(client, asset.ticker)) return { ticker: asset.ticker, tries: attempt, active: true, activatedBy: method };
    }
    if (attempt < tries) await wait(backoff);
    backoff = Math.min(backoff * 2, options.maxBackoffMs ?? 10_000);
  }
  return { ticker: asset.ticker, tries, active: false };
}

/** The SDK's `get_enabled_coins` (v2, `"params": null`): `result.coins[].ticker`. */
async function enabledTickers(client: ReferenceClient): Promise<string[]> {
  const { body } = await client.v2('get_enabled_coins', null);
  if (isSdkError(body)) throw new Error(`get_enabled_coins failed: ${JSON.stringify(body).slice(0, 200)}`);
  return (body.result.coins as { ticker: string }[]).map((coin) => coin.ticker);
}

/** One activation by the client's strategy; the method that succeeded, or `undefined`. */
async function activateOnce(client: ReferenceClient, asset: LoginAsset, enabled: readonly string[], pollMs: number): Promise<string | undefined> {
  if (asset.kind === 'utxo') return (await utxoTask(client, asset.coin, pollMs)) ? 'task::enable_utxo::init' : undefined;
  const viaToken = asset.kind === 'token' && enabled.includes(asset.platform.ticker);
  const [method, params] = viaToken
    ? (['enable_erc20', enableErc20Params(asset.ticker, asset.platform)] as const)
    : (['enable_eth_with_tokens', ethWithTokensParams(asset.platform, asset.kind === 'token' ? [asset.ticker] : [])] as const);
  const { body } = await client.v2(method, params);
  return isSdkError(body) ? undefined : method;
}

/** `task::enable_utxo::init`, then its status every `pollMs` until `Ok` (true) or an error (false); no overall limit. */
async function utxoTask(client: ReferenceClient, coin: UtxoConfig, pollMs: number): Promise<boolean> {
  const init = await client.v2('task::enable_utxo::init', utxoInitParams(coin));
  if (isSdkError(init.body)) return false;
  const last = (await pollTask(client, 'enable_utxo', init.body.result.task_id, { intervalMs: pollMs })).at(-1);
  return !isSdkError(last) && last.result.status === 'Ok';
}

/** The SDK's check after an activation: up to 15 `get_enabled_coins`, 50 ms doubling to 500 ms apart. */
async function becomesVisible(client: ReferenceClient, ticker: string): Promise<boolean> {
  let pause = 50;
  for (let poll = 0; poll < 15; poll++) {
    if ((await enabledTickers(client)).includes(ticker)) return true;
    await wait(pause);
    pause = Math.min(pause * 2, 500);
  }
  return false;
}
