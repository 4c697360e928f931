import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadNodeConfig, isStrongPassword } from '../config/index.ts';
import { createIguanaKeyProvider, evmAddress, evmToTronBase58 } from '../keys/index.ts';
import { startService, type RunningService } from '../service.ts';
import { startEvmDevnet, startTronNode, type EvmDevnet, type TronNode } from './index.ts';
import { devnetCoins } from './devnetCoins.ts';

/** Tokens the dev chain deploys and mints to the dev wallet. */
const DEV_TOKENS = [
  { symbol: 'USDT', decimals: 6, amount: 25_000_000_000n }, // 25 000
  { symbol: 'DAI', decimals: 18, amount: 1_500n * 10n ** 18n + 5n * 10n ** 17n }, // 1500.5
] as const;
const DEV_ETH_WEI = 10n * 10n ** 18n;
/** Placeholder swap contract for the printed requests (activation does not call it). */
const DEV_SWAP_CONTRACT = '0x24ABE4c71FC658C91313b6552cd40cD808b3Ea80';

export interface DevMode {
  readonly devnet: EvmDevnet;
  /** The TRON HTTP node over the same chain (TRX balance = the wallet's wei, as SUN). */
  readonly tron: TronNode;
  readonly service: RunningService;
  readonly password: string;
  readonly address: string;
  /** Human-readable banner with ready-to-paste curl commands. */
  readonly banner: string;
  stop(): Promise<void>;
}

/**
 * Dev mode (no MM2.json): an in-process EVM devnet on 127.0.0.1 with two ERC20s, a TRON HTTP node
 * over the same chain (the ERC20s double as TRC20s), a generated
 * config under `<dir>` (kept between runs so the password and wallet stay the same; delete the
 * folder to reset), and the service on `rpcport` (default 7783). Nothing leaves the machine.
 */
export async function startDevMode(options: {
  dir: string;
  /** RPC port written to the config (default 7783). */
  rpcport?: number;
  /** Port actually bound, overriding the config (0 in tests). */
  listenPort?: number;
  /** Devnet port (default 8545 when free, so pasted commands survive a restart). */
  devnetPort?: number;
  /** TRON node port (default 8090, java-tron's HTTP port, when free). */
  tronPort?: number;
}): Promise<DevMode> {
  await mkdir(options.dir, { recursive: true });
  const confPath = join(options.dir, 'MM2.json');
  const secrets = await devSecrets(confPath);
  const keys = createIguanaKeyProvider(secrets.passphrase);
  const address = evmAddress(await keys.publicKey({ coin: 'ETH' }));

  const devnetOptions = {
    fund: [{ address, wei: DEV_ETH_WEI }],
    tokens: DEV_TOKENS.map((t) => ({ symbol: t.symbol, decimals: t.decimals, mint: [{ address, amount: t.amount }] })),
  };
  const devnet = await startEvmDevnet({ ...devnetOptions, port: options.devnetPort ?? 8545 }).catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || options.devnetPort !== undefined) throw e;
    return startEvmDevnet({ ...devnetOptions, port: 0 });
  });
  let tron: TronNode | undefined;
  try {
    tron = await startTronNode({ evm: devnet, port: options.tronPort ?? 8090 }).catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || options.tronPort !== undefined) throw e;
      return startTronNode({ evm: devnet, port: 0 });
    });
    const coins = devnetCoins(devnet);
    const rpcport = options.rpcport ?? 7783;
    await writeFile(
      confPath,
      `${JSON.stringify({ ...secrets, rpcport, dbdir: join(options.dir, 'db'), coins }, null, 2)}\n`,
      { mode: 0o600 },
    );
    const config = await loadNodeConfig({ env: { MM_CONF_PATH: confPath } });
    const service = await startService({ config, ...(options.listenPort === undefined ? {} : { port: options.listenPort }) });
    const node = tron;
    return {
      devnet,
      tron: node,
      service,
      password: secrets.rpc_password,
      address,
      banner: banner(service.url, devnet, node, secrets.rpc_password, address, confPath),
      async stop() {
        await service.stop();
        await node.stop();
        await devnet.stop();
      },
    };
  } catch (error) {
    await tron?.stop();
    await devnet.stop();
    throw error;
  }
}

/** Reuses the secrets of an earlier dev run, or generates a strong password and a passphrase. */
async function devSecrets(confPath: string): Promise<{ rpc_password: string; passphrase: string }> {
  if (existsSync(confPath)) {
    const earlier = JSON.parse(await readFile(confPath, 'utf8')) as { rpc_password?: unknown; passphrase?: unknown };
    if (typeof earlier.rpc_password === 'string' && typeof earlier.passphrase === 'string') {
      return { rpc_password: earlier.rpc_password, passphrase: earlier.passphrase };
    }
  }
  let rpc_password: string;
  do rpc_password = `Dev-${randomBytes(12).toString('base64url')}-7q`;
  while (!isStrongPassword(rpc_password));
  return { rpc_password, passphrase: `dev wallet ${randomBytes(16).toString('hex')}` };
}

function banner(url: string, devnet: EvmDevnet, tron: TronNode, password: string, address: string, confPath: string): string {
  const tokens = devnet.tokens.map((t) => `{"ticker":"${t.symbol}-ERC20"}`).join(',');
  const activate = {
    userpass: password,
    mmrpc: '2.0',
    method: 'enable_eth_with_tokens',
    params: {
      ticker: 'ETH',
      nodes: [{ url: devnet.url }],
      swap_contract_address: DEV_SWAP_CONTRACT,
      fallback_swap_contract: DEV_SWAP_CONTRACT,
      erc20_tokens_requests: JSON.parse(`[${tokens}]`) as unknown[],
    },
  };
  const activateTrx = {
    userpass: password,
    mmrpc: '2.0',
    method: 'enable_eth_with_tokens',
    params: { ticker: 'TRX', nodes: [{ url: tron.url }], erc20_tokens_requests: [{ ticker: 'USDT-TRC20' }] },
  };
  const q = (body: unknown) => `curl -s ${url} -d '${JSON.stringify(body)}'`;
  return [
    'coin-activation: dev mode (no MM2.json found)',
    `  RPC            ${url}`,
    `  rpc_password   ${password}`,
    `  EVM devnet     ${devnet.url} (chain id ${devnet.chainId}, in-process, 127.0.0.1 only)`,
    `  TRON node      ${tron.url} (HTTP API over the same chain: 1 SUN = 1 wei, the ERC20s are also TRC20s)`,
    `  wallet         ${address} (10 ETH, 25000 USDT-ERC20, 1500.5 DAI-ERC20)`,
    `                 ${evmToTronBase58(address)} on TRON (the same account: 10000000000000 TRX, 25000 USDT-TRC20)`,
    `  config         ${confPath} (delete its folder to reset)`,
    '',
    'Activate ETH with its tokens:',
    `  ${q(activate)}`,
    'Activate TRX with a TRC20 (wallet-only: no swap contracts):',
    `  ${q(activateTrx)}`,
    'List enabled coins:',
    `  ${q({ userpass: password, method: 'get_enabled_coins' })}`,
    'Balance of a token:',
    `  ${q({ userpass: password, method: 'my_balance', coin: 'USDT-ERC20' })}`,
    '',
  ].join('\n');
}
