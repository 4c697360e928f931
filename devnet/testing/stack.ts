import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEvmDevnet, startTronNode, type EvmDevnet, type TronNode } from '../index.ts';
import { devnetCoins } from '../devMode/devnetCoins.ts';

export { devnetCoins };
import { loadNodeConfig } from '../../infra/config/index.ts';
import { startService, type RunningService, type ServiceOptions } from '../../service.ts';
import { ManualClock } from './manualClock.ts';
import type { Clock } from '../../kernel/clock.ts';

/** Passphrase of the test wallet (docs/compatibility.md §6 check vector). */
export const TEST_PASSPHRASE = 'bob passphrase';
/** Its Iguana ETH address. */
export const TEST_ADDRESS = '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d';
export const TEST_PASSWORD = 'Test-rpc-pw-91!';
export const DEVNET_CHAIN_ID = 1337;
/** A well-formed swap contract address for requests (no contract is needed to activate). */
export const SWAP_CONTRACT = '0x24ABE4c71FC658C91313b6552cd40cD808b3Ea80';

export interface TestToken {
  readonly symbol: string;
  readonly decimals: number;
  readonly amount: bigint;
}

export interface StackOptions {
  readonly tokens?: readonly TestToken[];
  readonly nativeWei?: bigint;
  /** Extra coins-file entries (e.g. malformed ones for error tests). */
  readonly extraCoins?: readonly unknown[];
  /** The coins file's entries instead of the devnet's own (`devnetCoins`); `extraCoins` still follow. */
  readonly coins?: readonly unknown[];
  readonly evm?: ServiceOptions['evm'];
  readonly clock?: Clock;
  /** Reuse a devnet across stacks (faster suites). */
  readonly devnet?: EvmDevnet;
  readonly dbdir?: string;
  /** Device adapter (tests use a fake `HardwareWallet`). */
  readonly hardware?: ServiceOptions['hardware'];
  /** Extra MM2.json keys (e.g. `nats`, `node_id`). */
  readonly config?: Record<string, unknown>;
  /** Hardware waits (connect, PIN, device answer and confirmation) of `task::enable_eth` tasks. */
  readonly taskTimeouts?: ServiceOptions['taskTimeouts'];
  /** Also start a devnet TRON HTTP node over the devnet (`stack.tron`). */
  readonly tron?: boolean;
  readonly tronOptions?: ServiceOptions['tron'];
  readonly utxoOptions?: ServiceOptions['utxo'];
  readonly history?: ServiceOptions['history'];
}

export interface Stack {
  readonly devnet: EvmDevnet;
  /** The devnet TRON node, when `tron: true`. */
  readonly tron?: TronNode;
  readonly service: RunningService;
  readonly dir: string;
  readonly coins: readonly unknown[];
  /** POSTs a raw body; returns HTTP status and parsed JSON. */
  post(body: unknown): Promise<{ status: number; body: any }>;
  /** A v2 call with the right password. */
  v2(method: string, params?: unknown): Promise<{ status: number; body: any }>;
  /** A legacy call with the right password. */
  legacy(method: string, fields?: Record<string, unknown>): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** A devnet on DEVNET_CHAIN_ID with the test wallet funded and each token minted to it. */
export function startTestDevnet(options: { nativeWei?: bigint; tokens?: readonly TestToken[]; multicall?: boolean } = {}): Promise<EvmDevnet> {
  return startEvmDevnet({
    chainId: DEVNET_CHAIN_ID,
    ...(options.multicall === undefined ? {} : { multicall: options.multicall }),
    fund: [{ address: TEST_ADDRESS, wei: options.nativeWei ?? 1_234_500_000_000_000_000n }],
    tokens: (options.tokens ?? []).map((t) => ({
      symbol: t.symbol,
      decimals: t.decimals,
      mint: t.amount === 0n ? [] : [{ address: TEST_ADDRESS, amount: t.amount }],
    })),
  });
}

/** Starts a devnet (unless given), writes MM2.json and coins to a temp dir, loads them, starts the service. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const tokens = options.tokens ?? [];
  const devnet = options.devnet ?? (await startTestDevnet({ tokens, ...(options.nativeWei === undefined ? {} : { nativeWei: options.nativeWei }) }));
  const dir = await mkdtemp(join(tmpdir(), 'coin-activation-'));
  const coins = [...(options.coins ?? devnetCoins(devnet)), ...(options.extraCoins ?? [])];
  await writeFile(join(dir, 'coins'), JSON.stringify(coins));
  await writeFile(
    join(dir, 'MM2.json'),
    JSON.stringify({ rpc_password: TEST_PASSWORD, passphrase: TEST_PASSPHRASE, dbdir: options.dbdir ?? join(dir, 'db'), ...options.config }),
  );
  const config = await loadNodeConfig({ cwd: dir, env: {} });
  const service = await startService({
    config,
    port: 0,
    clock: options.clock ?? new ManualClock(Date.now()),
    evm: options.evm,
    ...(options.tronOptions === undefined ? {} : { tron: options.tronOptions }),
    ...(options.utxoOptions === undefined ? {} : { utxo: options.utxoOptions }),
    ...(options.history === undefined ? {} : { history: options.history }),
    ...(options.hardware === undefined ? {} : { hardware: options.hardware }),
    ...(options.taskTimeouts === undefined ? {} : { taskTimeouts: options.taskTimeouts }),
  });
  const tron = options.tron ? await startTronNode({ evm: devnet }) : undefined;
  const post = async (body: unknown) => {
    const res = await fetch(service.url, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text) };
  };
  return {
    devnet,
    ...(tron === undefined ? {} : { tron }),
    service,
    dir,
    coins,
    post,
    v2: (method, params = {}) => post({ mmrpc: '2.0', userpass: TEST_PASSWORD, method, params }),
    legacy: (method, fields = {}) => post({ userpass: TEST_PASSWORD, method, ...fields }),
    async stop() {
      await service.stop();
      await tron?.stop();
      if (!options.devnet) await devnet.stop();
    },
  };
}

/** `enable_eth_with_tokens` params for the devnet ETH with the given token tickers. */
export function enableEthParams(stack: Stack, tokens: readonly string[], extra: Record<string, unknown> = {}) {
  return {
    ticker: 'ETH',
    nodes: [{ url: stack.devnet.url }],
    swap_contract_address: SWAP_CONTRACT,
    fallback_swap_contract: SWAP_CONTRACT,
    erc20_tokens_requests: tokens.map((ticker) => ({ ticker })),
    ...extra,
  };
}

/** `enable_eth_with_tokens` params for the devnet TRX with the given TRC20 tickers (spec 4.5: ticker, nodes, tokens only). */
export function enableTrxParams(stack: Stack, tokens: readonly string[], extra: Record<string, unknown> = {}) {
  if (stack.tron === undefined) throw new Error('start the stack with tron: true');
  return {
    ticker: 'TRX',
    nodes: [{ url: stack.tron.url }],
    erc20_tokens_requests: tokens.map((ticker) => ({ ticker })),
    ...extra,
  };
}
